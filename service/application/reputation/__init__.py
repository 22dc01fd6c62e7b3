"""Reputation and bans (docs/api.md "Playing fair"): what a player's finished,
abandoned and clock-played games say of them, kept by a projector from the events the
games record, and the bans that abandoning rated or quick-play games brings."""
