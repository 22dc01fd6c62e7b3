"""Personal data kept so that it can be forgotten: sealed under a key per person (and a
key per day for client addresses), revealed only where an answer leaves the service, and
erased by destroying the key (docs/privacy.md)."""
