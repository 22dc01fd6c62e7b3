"""Blocks and follows (docs/api.md "Blocks and follows"): a player's choices about other
players, the commands that make them, the lists of them, and what they change elsewhere
(invitations, quick play, the player stream)."""
