"""The outside world's clock and randomness: the dealer's shuffles and the seed vault
of provably fair games."""
