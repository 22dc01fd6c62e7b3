#!/usr/bin/env python3
"""Check a finished Yokai Septet game's deals yourself: standard library only.

    python3 verify_deals.py https://yokai.example/v1/games/<id>   # the public view
    python3 verify_deals.py view.json                              # saved from that URL
    python3 verify_deals.py view.json --record record.json         # compare with the hands

It reads the game's public view (its ``fairness`` object: the algorithm, the commitment,
the client seeds and the revealed server seed), checks that SHA-256 of the server seed is
the commitment, and deals every round of the game again with ``yokai-shuffle-v1``
exactly as docs/fairness.md specifies it. It prints the deals as JSON: one object per
round with ``number``, ``hands`` (by seat, in dealt order) and ``trump``. With
``--record`` (a JSON file holding ``{"rounds": [{"number", "hands", "trump"}, ...]}``,
e.g. the game's hand record as JSON) it also compares each round and says which differ.

Exit status: 0 when the commitment holds (and every compared round matches), 1 when it
does not, 2 when the input is not a finished provably fair game.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
import urllib.request
from collections.abc import Iterator

ALGORITHM = "yokai-shuffle-v1"
SUITS = ["green", "purple", "pink", "yellow", "black", "red", "blue"]  # order


def deck(seven_followers: bool) -> list[str]:
    """R-1.4: suits in order, ranks ascending, green 1-7, purple 2-8, ... blue 7-13; in
    Seven Followers each suit's second 7 (``-7b``) right after its 7."""
    cards = []
    for i, suit in enumerate(SUITS):
        for rank in range(i + 1, i + 8):
            cards.append(f"{suit}-{rank}")
            if seven_followers and rank == 7:
                cards.append(f"{suit}-7b")
    return cards


def words(key: bytes, message: bytes) -> Iterator[int]:
    """The random stream, 4 bytes at a time: HMAC-SHA256(key, message || uint64_be(i))."""
    counter = 0
    while True:
        block = hmac.new(key, message + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(block[k : k + 4], "big")
        counter += 1


def below(n: int, stream: Iterator[int]) -> int:
    """A uniform integer in [0, n) by rejection sampling."""
    limit = 2**32 - 2**32 % n
    for x in stream:
        if x < limit:
            return x % n
    raise AssertionError("unreachable")


def shuffled(cards: list[str], key: bytes, message: bytes) -> list[str]:
    out = list(cards)
    stream = words(key, message)
    for i in range(len(out) - 1, 0, -1):
        j = below(i + 1, stream)
        out[i], out[j] = out[j], out[i]
    return out


def deal(view: dict, server_seed: bytes, number: int) -> dict:
    fairness = view["fairness"]
    players = view["players"]
    sf = view["variant"] != "standard"
    message = f"round:{number}".encode() + b"".join(
        b"\n" + s.encode("ascii") for s in fairness["client_seeds"]
    )
    cards = shuffled(deck(sf), server_seed, message)
    size = 14 if sf else (12 if players == 4 else 16)
    hands = [cards[s * size : (s + 1) * size] for s in range(players)]
    return {"number": number, "hands": hands, "trump": None if sf else cards[-1]}


def load(source: str) -> dict:
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=30) as response:
            return json.load(response)
    with open(source, encoding="utf-8") as f:
        return json.load(f)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("view", help="the game's public view: a URL or a JSON file")
    parser.add_argument("--record", help="a JSON file with the rounds' hands to compare")
    args = parser.parse_args(argv)
    view = load(args.view)
    fairness = view.get("fairness") or {}
    if fairness.get("algorithm") != ALGORITHM:
        print(f"not a provably fair game: algorithm {fairness.get('algorithm')!r}", file=sys.stderr)
        return 2
    if not fairness.get("server_seed"):
        print("the server seed is revealed when the game is finished", file=sys.stderr)
        return 2
    seed = bytes.fromhex(fairness["server_seed"])
    if hashlib.sha256(seed).hexdigest() != fairness["commitment"]:
        print("FAIL: SHA-256 of the server seed is not the commitment", file=sys.stderr)
        return 1
    rounds = [deal(view, seed, r["number"]) for r in view["rounds"]]
    print(json.dumps({"commitment": "ok", "rounds": rounds}, indent=1))
    if args.record:
        with open(args.record, encoding="utf-8") as f:
            recorded = {r["number"]: r for r in json.load(f)["rounds"]}
        bad = [
            r["number"]
            for r in rounds
            if r["number"] not in recorded
            or (recorded[r["number"]]["hands"], recorded[r["number"]]["trump"])
            != (r["hands"], r["trump"])
        ]
        if bad:
            print(f"FAIL: rounds {bad} differ from the record", file=sys.stderr)
            return 1
        print(f"every one of the {len(rounds)} rounds matches the record", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
