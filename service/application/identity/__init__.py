"""Identity: who sends a request (a seat, a player, an operator, nobody), their tokens,
players, and the names people give."""
