"""The problem types: every problem ``code`` the service answers with, its human title,
and the page its ``type`` URI (``/problems/<code>``) serves."""
