"""What may be read of games: views, feeds and audits, listings, the inbox."""
