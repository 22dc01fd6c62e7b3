"""Webhook endpoints."""
