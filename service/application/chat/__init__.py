"""Table talk (docs/api.md "Table talk"): each game's chat, its presets and the rules of
its texts."""
