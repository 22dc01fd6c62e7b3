"""The service's dealer deals with the rules' shuffle: a seeded game's deals depend only on
(seed, round), an unseeded game's on fresh randomness each time."""

from __future__ import annotations

from service.adapters.dealing.dealer import ShufflingDealer
from service.rules import GameConfig, Scoring, Variant, deal_shuffled

CONFIG = GameConfig(4, Scoring.BASIC, Variant.STANDARD)


def test_a_seeded_deal_is_the_shuffle_of_the_seed_and_round() -> None:
    dealer = ShufflingDealer()
    deal = dealer.deal(CONFIG, 42, 3)
    assert deal == deal_shuffled(CONFIG, b"yokai-septet-seed:42", b"round:3")
    assert dealer.deal(CONFIG, 42, 3) == deal
    assert dealer.deal(CONFIG, 42, 4) != deal
    assert dealer.deal(CONFIG, 43, 3) != deal


def test_an_unseeded_deal_is_never_the_same_twice() -> None:
    dealer = ShufflingDealer()
    deals = [dealer.deal(CONFIG, None, 1) for _ in range(5)]
    assert len({d.hands for d in deals}) == 5
    for deal in deals:
        assert len({c for hand in deal.hands for c in hand} | {deal.trump}) == len(CONFIG.deck)
