"""Table talk's routes (docs/api.md "Table talk")."""
