"""Signing in: with an OpenID Connect ID token or a link code."""
