"""The games' command handlers, each run by write/registry.py's ``execute``."""
