"""The relay's announcements on the bus (service/adapters/bus.py ``BusSeal``): a command's
events travel sealed under a key derived from the chain key, so a node opens exactly the
events the store holds while Redis sees the head alone; what does not open, or was sealed
under a key the node lacks, gives no events (the node reads the store)."""

from __future__ import annotations

import base64
import os
from uuid import uuid4

from service.adapters.bus import SEAL_LIMIT, BusSeal
from service.adapters.postgres.listener import parse
from service.application.integrity.chain import ChainKeys
from tests.adapters.test_notifications import _event

KEY, OTHER = os.urandom(32), os.urandom(32)


def test_a_sealed_commit_opens_to_its_events_and_shows_only_its_head() -> None:
    game_id = uuid4()
    rows = [
        _event(7, {"seat": 2, "cards": ["green-5", "red-11", "blue-1"]}, game_id),
        _event(8, {"hand": ["black-3"]}, game_id),
    ]
    payload = BusSeal(ChainKeys(KEY)).describe(rows)
    assert payload.startswith(f"g {game_id} 8 6 ~")
    assert parse(payload) == (f"g {game_id}", 8)
    for hidden in ("green-5", "red-11", "black-3", "cards", "hand", "CardPlayed"):
        assert hidden not in payload
    assert BusSeal(ChainKeys(KEY)).events(payload) == (game_id, rows)


def test_a_node_with_the_old_key_among_its_keys_still_opens_it() -> None:
    game_id = uuid4()
    rows = [_event(1, {"card": "green-5"}, game_id)]
    payload = BusSeal(ChainKeys(KEY)).describe(rows)
    rotated = BusSeal(ChainKeys(OTHER, old_keys=[KEY]))
    assert rotated.events(payload) == (game_id, rows)


def test_what_does_not_open_gives_no_events() -> None:
    game_id = uuid4()
    rows = [_event(1, {"card": "green-5"}, game_id)]
    seal = BusSeal(ChainKeys(KEY))
    payload = seal.describe(rows)
    assert BusSeal(ChainKeys(OTHER)).events(payload) is None  # another deployment's key
    head, _, box = payload.partition(" ~")
    kid, _, sealed = box.partition(":")
    raw = bytearray(base64.b64decode(sealed))
    raw[-1] ^= 1
    assert seal.events(f"{head} ~{kid}:{base64.b64encode(raw).decode()}") is None
    moved = payload.replace(f"g {game_id} 1 0", f"g {uuid4()} 1 0")  # another game's head
    assert seal.events(moved) is None
    assert seal.events(f"{head} ~{kid}:not base64!") is None


def test_a_commit_too_large_to_seal_goes_as_its_head() -> None:
    game_id = uuid4()
    rows = [_event(s, {"pad": "x" * 1000}, game_id) for s in range(1, 300)]
    payload = BusSeal(ChainKeys(KEY)).describe(rows)
    assert payload == f"g {game_id} 299 0"
    assert BusSeal(ChainKeys(KEY)).events(payload) is None
    assert SEAL_LIMIT < 299 * 1000
