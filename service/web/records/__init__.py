"""Hand records: a game's record, import and export."""
