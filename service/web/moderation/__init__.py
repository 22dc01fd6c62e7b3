"""Reports and moderation over HTTP (docs/api.md "Reports and moderation")."""
