"""The shuffle and the deal (R-3.1, R-7.2): a pure, versioned, documented algorithm.

Why our own: a deal must be reproducible from its inputs by anyone holding them (an
operator replaying a seeded game, an auditor checking fairness, a test), on any platform
and any Python version. ``random.Random.shuffle`` promises none of that across versions
and says nothing about bias; this module is a complete specification in a few lines of
standard library, and its name changes whenever its output would.

Algorithm ``yokai-shuffle-v1``
==============================

Inputs: ``key`` and ``message``, two byte strings given by the caller (the service uses a
secret or seed-derived key and the round number as the message), and the items to
shuffle, in their given order. For a deal the items are the deck, ``GameConfig.deck``, in
its canonical order: suits in the order of R-1.1 (green, purple, pink, yellow, black, red,
blue), ranks ascending within a suit, card ids as in R-1.4 (``green-1`` … ``green-7``,
``purple-2`` … ``blue-13``: 49 cards); for Seven Followers each suit's second 7
(``<suit>-7b``, R-7.1) comes right after its 7 (56 cards).

1. **Random source.** The byte stream ``block_0 || block_1 || block_2 || …`` where
   ``block_i = HMAC-SHA256(key, message || uint64_be(i))`` and ``uint64_be(i)`` is the
   block counter ``i`` (0, 1, 2, …) as 8 bytes, big-endian. Each block is 32 bytes.
2. **A uniform integer in [0, n)**, for 1 <= n <= 2**32: read the next 4 bytes of the
   stream as an unsigned 32-bit big-endian integer ``x``. Let
   ``limit = 2**32 - (2**32 mod n)``. If ``x < limit`` the result is ``x mod n``;
   otherwise those 4 bytes are discarded and the next 4 are read, until a value is
   accepted (rejection sampling: every result is exactly equally likely, no modulo bias).
   Reads are consecutive across draws and never skip bytes: as blocks are 32 bytes, the
   k-th read (from 0) is bytes 4k … 4k+3 of the stream.
3. **Fisher-Yates from the top.** For ``i`` from ``len - 1`` down to 1: ``j`` = a uniform
   integer in [0, i + 1) (step 2); swap the items at positions ``i`` and ``j``.
4. **The deal.** Shuffle the deck (steps 1-3). Seat ``s`` (0, 1, …) receives the block of
   ``hand_size`` consecutive cards starting at position ``s * hand_size``, in that order.
   In the standard game the one card left, the last card of the shuffled deck, is the
   trump card (R-3.1); Seven Followers deals every card and has no trump card (R-7.2).

The same inputs always give the same deal; knowing earlier deals of a game tells nothing
about later ones without the key (HMAC-SHA256 is a pseudorandom function).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from typing import TypeVar

from service.rules.commands import DealRound
from service.rules.config import GameConfig

ALGORITHM = "yokai-shuffle-v1"
"""The name of the algorithm above; it changes whenever the output for given inputs would."""

T = TypeVar("T")

_WORD = 2**32


def random_words(key: bytes, message: bytes) -> Iterator[int]:
    """Step 1, read 4 bytes at a time: the stream as unsigned 32-bit big-endian integers."""
    counter = 0
    while True:
        block = hmac.digest(key, message + counter.to_bytes(8, "big"), hashlib.sha256)
        for k in range(0, len(block), 4):
            yield int.from_bytes(block[k : k + 4], "big")
        counter += 1


def uniform_below(n: int, words: Iterator[int]) -> int:
    """Step 2: a uniform integer in [0, n), drawing from ``words`` until one is accepted."""
    if not 1 <= n <= _WORD:
        raise ValueError(f"cannot draw uniformly below {n}")
    limit = _WORD - _WORD % n
    for x in words:
        if x < limit:
            return x % n
    raise ValueError("the random stream ended")


def shuffle(items: Sequence[T], key: bytes, message: bytes) -> list[T]:
    """Steps 1-3: a new list with ``items`` in the order the inputs decide."""
    out = list(items)
    words = random_words(key, message)
    for i in range(len(out) - 1, 0, -1):
        j = uniform_below(i + 1, words)
        out[i], out[j] = out[j], out[i]
    return out


def deal(config: GameConfig, key: bytes, message: bytes) -> DealRound:
    """Step 4: shuffle ``config.deck`` and deal it to the seats (R-3.1, R-7.2)."""
    deck = shuffle(config.deck, key, message)
    size = config.hand_size
    hands = tuple(tuple(deck[s * size : (s + 1) * size]) for s in range(config.players))
    return DealRound(hands, None if config.seven_followers else deck[-1])


def seed_key(seed: int) -> bytes:
    """The key of a game created with an operator's ``seed``: its deals depend on the seed
    and the round alone, so the operator can reproduce every one."""
    return f"yokai-septet-seed:{seed}".encode()


def round_message(number: int) -> bytes:
    """The message of round ``number``'s deal: each round of a game is its own shuffle."""
    return f"round:{number}".encode()


def fair_message(number: int, client_seeds: Sequence[str]) -> bytes:
    """The message of round ``number``'s deal in a provably fair game (docs/fairness.md):
    ``round:<number>``, then for each seat in order a line feed and its client seed, all
    ASCII. Client seeds are printable ASCII, so no seed holds the separator."""
    return round_message(number) + b"".join(b"\n" + s.encode("ascii") for s in client_seeds)


def fair_deal(
    config: GameConfig, server_seed: bytes, number: int, client_seeds: Sequence[str]
) -> DealRound:
    """Round ``number``'s deal of a provably fair game: the key is the 32-byte server
    seed itself, the message :func:`fair_message`."""
    return deal(config, server_seed, fair_message(number, client_seeds))


__all__ = [
    "ALGORITHM",
    "deal",
    "fair_deal",
    "fair_message",
    "random_words",
    "round_message",
    "seed_key",
    "shuffle",
    "uniform_below",
]
