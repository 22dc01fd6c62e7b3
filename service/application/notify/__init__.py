"""Turn notifications: Web Push and e-mail (API.md Part 4)."""
