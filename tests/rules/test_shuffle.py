"""The shuffle and the deal (R-3.1, R-7.2): algorithm ``yokai-shuffle-v1`` as its module
docstring specifies it.

The known-answer tests compare the module with :class:`Reference`, a second
implementation written from the specification with ``hmac.new`` and ``struct``, and pin
a few outputs so that a change of output without a change of the algorithm's name fails.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

import pytest

from service.rules import (
    SEVEN_FOLLOWERS_DECK,
    SHUFFLE_ALGORITHM,
    STANDARD_DECK,
    Card,
    DealRound,
    GameConfig,
    Scoring,
    Variant,
    deal_problem,
    deal_shuffled,
    shuffle,
)
from service.rules.events import RoundDealt
from service.rules.shuffle import random_words, uniform_below
from tests.rules.scenario import new_table

T = TypeVar("T")

CONFIGS = [
    GameConfig(3, Scoring.ADVANCED, Variant.STANDARD),
    GameConfig(4, Scoring.BASIC, Variant.STANDARD),
    GameConfig(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
    GameConfig(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT),
]
CONFIG_IDS = ["3p", "4p", "seven_followers", "seven_followers_short"]
HAND_SIZES = {"3p": 16, "4p": 12, "seven_followers": 14, "seven_followers_short": 14}

KEY = b"yokai-septet-seed:1"
MESSAGE = b"round:1"


class Reference:
    """yokai-shuffle-v1, written straight from the specification."""

    def __init__(self, key: bytes, message: bytes) -> None:
        self.key = key
        self.message = message
        self.buffer = b""
        self.blocks = 0
        self.rejected = 0

    def read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            counter = struct.pack(">Q", self.blocks)
            self.buffer += hmac.new(self.key, self.message + counter, hashlib.sha256).digest()
            self.blocks += 1
        out, self.buffer = self.buffer[:count], self.buffer[count:]
        return out

    def uniform(self, n: int) -> int:
        limit = 2**32 - (2**32 % n)
        while True:
            x: int = struct.unpack(">I", self.read(4))[0]
            if x < limit:
                return x % n
            self.rejected += 1

    def shuffle(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.uniform(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def ids(cards: Sequence[Card]) -> list[str]:
    return [c.id for c in cards]


# --- the specification's inputs -----------------------------------------------------


def test_the_algorithm_has_its_name() -> None:
    assert SHUFFLE_ALGORITHM == "yokai-shuffle-v1"


def test_the_decks_are_in_the_documented_order() -> None:
    """The order the shuffle starts from is part of the algorithm (R-1.1, R-1.4, R-7.1)."""
    suits = ["green", "purple", "pink", "yellow", "black", "red", "blue"]
    standard = [
        f"{suit}-{rank}" for low, suit in enumerate(suits, 1) for rank in range(low, low + 7)
    ]
    assert ids(STANDARD_DECK) == standard
    seven_followers = [x for i in standard for x in ([i, f"{i}b"] if i.endswith("-7") else [i])]
    assert ids(SEVEN_FOLLOWERS_DECK) == seven_followers
    for config in CONFIGS:
        assert config.deck == (SEVEN_FOLLOWERS_DECK if config.seven_followers else STANDARD_DECK)


# --- the random source and the uniform draw -------------------------------------------


def test_the_stream_is_hmac_sha256_of_the_message_and_a_big_endian_block_counter() -> None:
    words = random_words(KEY, MESSAGE)
    stream = b"".join(struct.pack(">I", next(words)) for _ in range(8 * 3))
    blocks = [
        hmac.new(KEY, MESSAGE + i.to_bytes(8, "big"), hashlib.sha256).digest() for i in range(3)
    ]
    assert stream == b"".join(blocks)


def test_a_drawn_value_at_or_above_the_limit_is_discarded() -> None:
    n = 2**31 + 1
    limit = 2**32 - 2**32 % n
    assert limit == n  # about half of all 32-bit values are rejected for this n
    words = iter([2**32 - 1, limit, limit - 1, 10])
    assert uniform_below(n, words) == (limit - 1) % n == 2**31  # two values discarded
    assert uniform_below(n, words) == 10  # the next draw reads on, skipping nothing
    with pytest.raises(ValueError, match="ended"):
        uniform_below(n, words)


def test_a_small_draw_rejects_only_the_top_values() -> None:
    # 2**32 = 3 * 1431655765 + 1: only 2**32 - 1 would favour the remainder 0.
    assert uniform_below(3, iter([2**32 - 1, 2**32 - 2])) == (2**32 - 2) % 3 == 2
    assert uniform_below(3, iter([2**32 - 2])) == 2
    assert uniform_below(1, iter([2**32 - 1])) == 0  # nothing to reject when n = 1
    assert uniform_below(2**32, iter([2**32 - 1])) == 2**32 - 1


@pytest.mark.parametrize("n", [0, -1, 2**32 + 1])
def test_a_draw_below_an_impossible_bound_is_refused(n: int) -> None:
    with pytest.raises(ValueError, match="uniformly"):
        uniform_below(n, iter([0]))


def test_draws_with_many_rejections_match_the_reference() -> None:
    """The module and the reference read the same stream the same way across rejections."""
    n = 2**31 + 1
    reference = Reference(KEY, MESSAGE)
    words = random_words(KEY, MESSAGE)
    ours = [uniform_below(n, words) for _ in range(200)]
    assert ours == [reference.uniform(n) for _ in range(200)]
    assert reference.rejected > 50  # the rejection branch ran, often


# --- the shuffle ----------------------------------------------------------------------


@pytest.mark.parametrize("deck", [STANDARD_DECK, SEVEN_FOLLOWERS_DECK], ids=["49", "56"])
@pytest.mark.parametrize(
    ("key", "message"),
    [(KEY, MESSAGE), (KEY, b"round:2"), (b"\x00" * 32, b""), (bytes(range(32)), b"round:17")],
    ids=["seed-1-round-1", "seed-1-round-2", "zero-key-empty-message", "raw-key-round-17"],
)
def test_the_shuffle_matches_the_reference(
    deck: tuple[Card, ...], key: bytes, message: bytes
) -> None:
    assert shuffle(deck, key, message) == Reference(key, message).shuffle(deck)


def test_known_answers() -> None:
    """Pinned outputs: if these change, the algorithm changed and needs a new name."""
    assert shuffle(range(10), b"key", b"message") == [2, 5, 7, 6, 0, 8, 1, 9, 4, 3]
    first = shuffle(STANDARD_DECK, KEY, MESSAGE)
    assert ids(first[:5]) == ["pink-6", "purple-8", "purple-7", "green-2", "red-11"]
    assert first[-1].id == "red-10"


def test_the_shuffle_is_a_permutation_and_leaves_its_input_alone() -> None:
    items = list(range(30))
    out = shuffle(items, KEY, MESSAGE)
    assert items == list(range(30))
    assert sorted(out) == items and out != items
    assert shuffle([], KEY, MESSAGE) == []
    assert shuffle(["only"], KEY, MESSAGE) == ["only"]


def test_the_same_inputs_give_the_same_order_and_other_inputs_another() -> None:
    deck = STANDARD_DECK
    once = shuffle(deck, KEY, MESSAGE)
    assert shuffle(deck, KEY, MESSAGE) == once
    assert shuffle(deck, KEY, b"round:2") != once
    assert shuffle(deck, b"yokai-septet-seed:2", MESSAGE) != once
    # Key and message are not simply concatenated: moving a byte across changes the order.
    assert shuffle(deck, KEY + b"r", b"ound:1") != once


def test_every_position_is_uniform() -> None:
    """Over 7000 shuffles of 7 items (fixed inputs), how often each item lands in each
    position: every position's counts pass a chi-square test with a generous bound."""
    runs, size = 7000, 7
    counts = [Counter[int]() for _ in range(size)]
    for i in range(runs):
        for position, item in enumerate(shuffle(range(size), b"statistics", f"{i}".encode())):
            counts[position][item] += 1
    expected = runs / size
    for position in range(size):
        chi2 = sum((counts[position][item] - expected) ** 2 / expected for item in range(size))
        # 6 degrees of freedom: P(chi2 > 30) is about 4e-5 for a uniform shuffle.
        assert chi2 < 30, f"position {position}: {dict(counts[position])}, chi2 {chi2:.1f}"


# --- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_R_3_1_R_7_2_a_deal_holds_every_card_once(config: GameConfig) -> None:
    size = HAND_SIZES[CONFIG_IDS[CONFIGS.index(config)]]
    for message in (b"round:1", b"round:2", b"round:3"):
        deal = deal_shuffled(config, KEY, message)
        assert isinstance(deal, DealRound)
        assert [len(h) for h in deal.hands] == [size] * config.players
        dealt = [c for h in deal.hands for c in h]
        if config.seven_followers:
            assert deal.trump is None  # no trump card
        else:
            assert deal.trump is not None
            dealt.append(deal.trump)
        assert Counter(dealt) == Counter(config.deck)
        assert deal_problem(config, deal.hands, deal.trump) is None


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_a_deal_is_the_shuffled_deck_in_consecutive_blocks(config: GameConfig) -> None:
    deck = Reference(KEY, MESSAGE).shuffle(config.deck)
    size = config.hand_size
    deal = deal_shuffled(config, KEY, MESSAGE)
    assert deal.hands == tuple(
        tuple(deck[s * size : (s + 1) * size]) for s in range(len(deal.hands))
    )
    assert deal.trump == (None if config.seven_followers else deck[-1])
    assert deal_shuffled(config, KEY, MESSAGE) == deal
    assert deal_shuffled(config, KEY, b"round:2") != deal


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_the_engine_accepts_a_shuffled_deal(config: GameConfig) -> None:
    table = new_table(config.players, config.scoring, config.variant)
    deal = deal_shuffled(config, KEY, MESSAGE)
    (dealt,) = table.do(deal)
    assert dealt == RoundDealt(1, deal.hands, deal.trump)
