"""The Yokai Septet game server."""

API_VERSION = "1.0.0"
"""The version of the HTTP contract (the OpenAPI document's ``info.version``), apart from
the package's (pyproject.toml's, which ``yokai --version`` prints beside it): the contract
changes only by extension (docs/api.md)."""
