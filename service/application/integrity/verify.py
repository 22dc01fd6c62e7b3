"""Proving a stored history: its hash chain, its numbering, replay under the rules, and
the anchors of its head."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import GameNotFoundError
from service.application.games.codec import decode
from service.application.identity.principals import Principal, require_operator
from service.application.integrity import chain
from service.application.integrity.anchors import Anchor
from service.application.integrity.chain import ChainKeys
from service.application.ports import StoredEvent
from service.application.results import VerifyReport
from service.rules import Event, EventDataError, HistoryError, replay_checked, unfair_deal


def verify_history(
    game_id: UUID,
    rows: list[StoredEvent],
    recorded_version: int,
    keys: ChainKeys,
    anchors: Sequence[Anchor] = (),
    *,
    allow_unkeyed: bool = False,
) -> VerifyReport:
    """The first bad ``seq`` of a game's stored events, or that they are intact.

    ``recorded_version`` is the version the games table recorded with the last command:
    a history shorter than that lost its newest events. ``anchors``: this game's heads
    as anchored (their signatures checked by the caller); each must still be in the
    chain at its version. A chain hashed without a key to its end (v1, from before the
    chain key) is intact only if an anchor vouches for it, or ``allow_unkeyed``.
    """
    count = len(rows)
    checked = chain.check(rows, keys)

    def report(seq: int, why: str) -> VerifyReport:
        return VerifyReport(game_id, count, False, seq, why, checked.unkeyed)

    if checked.broken is not None:
        return report(*checked.broken)
    events: list[Event] = []
    for row in rows:
        try:
            events.append(decode(row))
        except EventDataError as exc:
            return report(row.seq, f"undecodable: {exc}")
    try:
        replay_checked(events)
    except HistoryError as exc:
        # The index may be one past the end: the history stops inside a command's events.
        seq = rows[exc.index].seq if exc.index < count else count + 1
        return report(seq, exc.reason)
    unfair = unfair_deal(events)
    if unfair is not None:  # docs/fairness.md
        return report(rows[unfair[0]].seq, unfair[1])
    for a in sorted(anchors, key=lambda a: a.version):
        when = chain.timestamp(a.at)
        if a.version > count:
            return report(
                count + 1,
                f"anchored at version {a.version} on {when}, but the history has {count} "
                "events: its newest were deleted",
            )
        if rows[a.version - 1].hash != a.head:
            return report(
                a.version,
                f"not the head anchored at version {a.version} on {when}: the chain was "
                "rewritten since",
            )
    vouched = allow_unkeyed or any(a.version >= checked.unkeyed for a in anchors)
    if checked.unkeyed == count and count and not vouched:
        return report(
            1,
            f"hashed without a key to its end (seq 1 to {count}: plain SHA-256, from "
            "before YOKAI_CHAIN_KEY, or recomputed by someone without it): no anchor "
            "vouches for it (yokai verify --anchors), nor --allow-unkeyed",
        )
    if recorded_version != count:
        return report(
            min(count, recorded_version) + 1,
            f"the games table records version {recorded_version}; the history has {count} events",
        )
    return VerifyReport(game_id, count, True, unkeyed=checked.unkeyed)


def verify(
    deps: Deps, game_id: UUID, anchors: Sequence[Anchor] = (), *, allow_unkeyed: bool = False
) -> VerifyReport:
    """Recompute the hash chain and replay every event under the rules; also check the
    history is as long as the games table recorded with the last command, and holds
    each of ``anchors`` (the game's anchored heads, their signatures checked)."""
    with deps.uow(snapshot=True) as uow:
        summary = uow.games.get(game_id)
        rows = uow.events.load(game_id)
    if summary is None:
        raise GameNotFoundError(f"no game {game_id}")
    return verify_history(
        game_id, rows, summary.version, deps.chain, anchors, allow_unkeyed=allow_unkeyed
    )


def verify_for(deps: Deps, principal: Principal, game_id: UUID) -> VerifyReport:
    """`verify` for an operator (GET /v1/games/{id}/verify): the same check as
    `yokai verify`."""
    require_operator(principal)
    return verify(deps, game_id)
