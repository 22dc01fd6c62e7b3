"""Blocks and follows: /v1/me/blocks and /v1/me/follows."""
