"""Players and their inbox."""
