"""The hash chain over a game's events: proof that a stored history was not edited.

Each event's hash covers the previous event's hash and the event's own canonical bytes
(sorted-key compact JSON of every stored field). The first event of a game chains from
:data:`GENESIS`. Two versions, told apart by the event's ``chain_key`` column:

- **v2** (every event since migration 0009): HMAC-SHA256 under a secret chain key kept
  outside the database (``YOKAI_CHAIN_KEY``); ``chain_key`` is the key's id, so a key
  can be rotated and the old ones still verify (``YOKAI_CHAIN_OLD_KEYS``). Whoever
  holds the database but not the key cannot write an event, nor recompute a chain,
  that verifies.
- **v1** (``chain_key`` null: events written before it): plain SHA-256, which anyone
  can recompute. A v1 event followed by a v2 one is pinned by it (the HMAC covers the
  previous hash); a chain that is v1 to its end is only as good as an anchor of its
  head (service/application/integrity/anchors.py), and an unkeyed event after a keyed one is
  refused outright (a chain recomputed without the key).

An event written before personal data was sealed, and sealed since (docs/privacy.md),
keeps its hash and carries an attestation instead (:func:`attest`), which :func:`check`
holds it to. Past 300 lines for that reason: what a hash covers and what an
attestation covers are defined side by side, in the one module that checks both.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from service.application.ports import Actor, ActorKind, StoredEvent

GENESIS = "0" * 64
KEY_BYTES = 32


def timestamp(moment: datetime) -> str:
    """The canonical text of a recording time (UTC, microseconds): what the hash covers."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical(fields: dict[str, Any]) -> bytes:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def key_id(key: bytes) -> str:
    """A key's public name: 8 hex digits of an HMAC under it (says nothing of the key)."""
    return hmac.digest(key, b"yokai chain key id", "sha256").hex()[:8]


class ChainKeys:
    """The keys the chain is an HMAC under: the current one, which hashes new events and
    signs anchors, and old ones rotated out, which still verify what they hashed."""

    def __init__(self, key: bytes, old_keys: Iterable[bytes] = ()) -> None:
        for k in (key, *old_keys):
            if len(k) != KEY_BYTES:
                raise ValueError(f"a chain key is {KEY_BYTES} bytes")
        self.current = key_id(key)
        self._keys: dict[str, bytes] = {key_id(k): k for k in old_keys}
        self._keys[self.current] = key

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(self._keys)

    def mac(self, kid: str, message: bytes) -> str | None:
        """HMAC-SHA256 (hex) of ``message`` under the key ``kid``; None if unknown."""
        key = self._keys.get(kid)
        return None if key is None else hmac.digest(key, message, "sha256").hex()


@dataclass(frozen=True, slots=True)
class Unchained:
    """An event ready to be stored, before its place in the chain is known."""

    type: str
    schema_version: int
    data: dict[str, Any]
    actor: Actor


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a command came from, as each of its events records it."""

    request_id: str | None = None  # made by the server
    idempotency_key: str | None = None  # SHA-256 (hex) of the client's key
    client_request_id: str | None = None  # the client's X-Request-ID
    client_address: str | None = None


def _v1_content(game_id: str, seq: int, event: Unchained, stamp: str, origin: Origin) -> bytes:
    return canonical(
        {
            "game_id": game_id,
            "seq": seq,
            "type": event.type,
            "schema_version": event.schema_version,
            "data": event.data,
            "recorded_at": stamp,
            "actor": {"kind": event.actor.kind.value, "seat": event.actor.seat},
            "request_id": origin.request_id,
            "idempotency_key": origin.idempotency_key,
        }
    )


def _v2_content(
    kid: str, game_id: str, seq: int, event: Unchained, stamp: str, origin: Origin
) -> bytes:
    actor = event.actor
    return canonical(
        {
            "v": 2,
            "key": kid,
            "game_id": game_id,
            "seq": seq,
            "type": event.type,
            "schema_version": event.schema_version,
            "data": event.data,
            "recorded_at": stamp,
            "actor": {"kind": actor.kind.value, "seat": actor.seat, "id": actor.id},
            "request_id": origin.request_id,
            "client_request_id": origin.client_request_id,
            "client_address": origin.client_address,
            "idempotency_key": origin.idempotency_key,
        }
    )


def event_hash(
    prev_hash: str,
    game_id: UUID,
    seq: int,
    event: Unchained,
    recorded_at: datetime,
    origin: Origin,
    keys: ChainKeys | None,
    kid: str | None = None,
) -> str | None:
    """The event's hash: v2 under the key ``kid`` (default: the current key) of
    ``keys``, None if ``keys`` lacks it; v1 (plain SHA-256) when ``keys`` is None."""
    gid, stamp = str(game_id), timestamp(recorded_at)
    return _hash(prev_hash, gid, seq, event, stamp, origin, keys, kid)


def _hash(
    prev_hash: str,
    game_id: str,
    seq: int,
    event: Unchained,
    stamp: str,
    origin: Origin,
    keys: ChainKeys | None,
    kid: str | None = None,
) -> str | None:
    if keys is None:
        content = _v1_content(game_id, seq, event, stamp, origin)
        return hashlib.sha256(prev_hash.encode() + b"\n" + content).hexdigest()
    kid = kid or keys.current
    content = _v2_content(kid, game_id, seq, event, stamp, origin)
    return keys.mac(kid, prev_hash.encode() + b"\n" + content)


def link(
    game_id: UUID,
    version: int,
    prev_hash: str,
    events: list[Unchained],
    recorded_at: datetime,
    origin: Origin,
    keys: ChainKeys | None,
) -> list[StoredEvent]:
    """Number events from ``version + 1`` and chain them after ``prev_hash``: under the
    current key of ``keys`` (None: the unkeyed v1 chain, which only tests write, to
    stand for histories from before the key)."""
    out: list[StoredEvent] = []
    kid = None if keys is None else keys.current
    gid, stamp = str(game_id), timestamp(recorded_at)  # the same for every event
    for offset, e in enumerate(events, start=1):
        seq = version + offset
        h = _hash(prev_hash, gid, seq, e, stamp, origin, keys)
        assert h is not None  # the current key is always known
        out.append(
            StoredEvent(
                game_id=game_id,
                seq=seq,
                type=e.type,
                schema_version=e.schema_version,
                data=e.data,
                recorded_at=recorded_at,
                actor=e.actor,
                request_id=origin.request_id,
                idempotency_key=origin.idempotency_key,
                prev_hash=prev_hash,
                hash=h,
                chain_key=kid,
                client_request_id=origin.client_request_id,
                client_address=origin.client_address,
            )
        )
        prev_hash = h
    return out


def origin_of(e: StoredEvent) -> Origin:
    return Origin(e.request_id, e.idempotency_key, e.client_request_id, e.client_address)


def _beyond_v1(e: StoredEvent) -> bool:
    """Whether an event holds something a v1 hash does not cover (fields that came with
    the keyed chain): then its v1 hash proves nothing of them."""
    return (
        e.actor.id is not None
        or e.actor.kind not in _V1_ACTORS
        or e.client_request_id is not None
        or e.client_address is not None
    )


_V1_ACTORS = frozenset(
    {ActorKind.SEAT, ActorKind.OPERATOR, ActorKind.SYSTEM, ActorKind.BOT, ActorKind.PLAYER}
)


@dataclass(frozen=True, slots=True)
class ChainCheck:
    """What recomputing a game's chain found: the first bad ``seq`` and why (None: every
    link holds), and how many events at its start are hashed without a key (v1)."""

    broken: tuple[int, str] | None
    unkeyed: int
    keyed: int


def check(events: list[StoredEvent], keys: ChainKeys) -> ChainCheck:
    """Recompute the chain of a game's events (all of them, oldest first). A resealed
    event (:func:`attest`) is held to its attestation instead of its hash: its hash is
    still the one the next event's covers."""
    prev = GENESIS
    unkeyed = keyed = 0

    def bad(seq: int, why: str) -> ChainCheck:
        return ChainCheck((seq, why), unkeyed, keyed)

    for expected_seq, e in enumerate(events, start=1):
        if e.seq != expected_seq:
            return bad(expected_seq, f"sequence gap: expected seq {expected_seq}, found {e.seq}")
        if e.prev_hash != prev:
            return bad(e.seq, "prev_hash does not match the previous event's hash")
        if e.chain_key is None:
            if keyed:
                return bad(
                    e.seq,
                    "hashed without a key after keyed events: a chain recomputed by someone "
                    "without the chain key",
                )
            if _beyond_v1(e) and e.resealed is None:
                return bad(e.seq, "hashed without a key, yet holds fields only keyed events have")
            unkeyed += 1
        else:
            if e.chain_key not in keys.ids:
                return bad(
                    e.seq,
                    f"hashed under chain key {e.chain_key}, which this service does not have "
                    "(YOKAI_CHAIN_KEY, YOKAI_CHAIN_OLD_KEYS)",
                )
            keyed += 1
        if e.resealed is not None:
            holds = attested(keys, e)
            if holds is None:
                return bad(e.seq, "resealed under a chain key this service does not have")
            if not holds:
                return bad(e.seq, "content does not match its attestation (resealed)")
        else:
            unchained = Unchained(e.type, e.schema_version, e.data, e.actor)
            kid = e.chain_key
            recomputed = event_hash(
                prev,
                e.game_id,
                e.seq,
                unchained,
                e.recorded_at,
                origin_of(e),
                None if kid is None else keys,
                kid,
            )
            if recomputed is None or not hmac.compare_digest(recomputed, e.hash):
                return bad(e.seq, "content does not match its hash")
        prev = e.hash
    return ChainCheck(None, unkeyed, keyed)


def _resealed_content(e: StoredEvent) -> bytes:
    actor = e.actor
    return b"yokai resealed\n" + canonical(
        {
            "game_id": str(e.game_id),
            "seq": e.seq,
            "prev_hash": e.prev_hash,
            "hash": e.hash,
            "chain_key": e.chain_key,
            "type": e.type,
            "schema_version": e.schema_version,
            "data": e.data,
            "recorded_at": timestamp(e.recorded_at),
            "actor": {"kind": actor.kind.value, "seat": actor.seat, "id": actor.id},
            "request_id": e.request_id,
            "client_request_id": e.client_request_id,
            "client_address": e.client_address,
            "idempotency_key": e.idempotency_key,
        }
    )


def attest(keys: ChainKeys, e: StoredEvent) -> str:
    """The attestation of an event whose personal data was sealed after it was written
    (docs/privacy.md): the event's hash stays (the next event covers it), and an HMAC
    under the current key covers that hash with the event's new content. Given only for
    an event whose old content matched its hash (the caller checks the chain first)."""
    mac = keys.mac(keys.current, _resealed_content(e))
    assert mac is not None
    return f"{keys.current}:{mac}"


def attested(keys: ChainKeys, e: StoredEvent) -> bool | None:
    """Whether the event's attestation holds (None: under a key this service lacks)."""
    kid, _, mac = (e.resealed or "").partition(":")
    expected = keys.mac(kid, _resealed_content(e))
    if expected is None:
        return None
    return hmac.compare_digest(expected, mac)


def first_broken_link(events: list[StoredEvent], keys: ChainKeys) -> tuple[int, str] | None:
    """The first ``seq`` whose numbering, link or hash does not hold, and why; else None."""
    return check(events, keys).broken


def sign(keys: ChainKeys, message: Mapping[str, Any]) -> tuple[str, str]:
    """A signature of ``message`` (canonical JSON) under the current key: (key id, MAC)."""
    mac = keys.mac(keys.current, b"yokai signed\n" + canonical(dict(message)))
    assert mac is not None
    return keys.current, mac


def signature_holds(keys: ChainKeys, message: Mapping[str, Any], kid: str, mac: str) -> bool | None:
    """Whether ``mac`` signs ``message`` under the key ``kid`` (None: an unknown key)."""
    expected = keys.mac(kid, b"yokai signed\n" + canonical(dict(message)))
    if expected is None:
        return None
    return hmac.compare_digest(expected, mac)
