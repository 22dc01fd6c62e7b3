"""Server-Sent Events streams."""
