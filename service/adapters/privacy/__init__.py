"""What privacy keeps outside the database (docs/privacy.md)."""
