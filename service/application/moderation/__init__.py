"""Reports and moderation (docs/api.md "Reports and moderation"): players report a
player, operators resolve the reports, and a muted player may not chat."""
