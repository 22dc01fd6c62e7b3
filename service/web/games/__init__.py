"""Games: commands, views, feeds and audits."""
