"""The pushes a command makes (API.md Part 4 "Turn notifications"): a turn that begins
for a seat a person holds (the moment their inbox entry says ``my_turn``), a seat kept
for an invited player, a seek matched into the game (told by the pairing's transaction);
queued in the command's own statement, one per subscription, for the worker to send."""

from __future__ import annotations

from service.application.games import turnclocks
from service.application.notify.ports import PushNotice
from service.application.ports import UnitOfWork
from service.application.write.projectors import Change, Known


def notices(change: Change, known: Known) -> list[PushNotice]:
    """What a change tells the players of its seats, by push."""
    state = change.after.state
    urgent = state.config is not None and state.config.clock is not None
    out: list[PushNotice] = []
    for row in change.rows:
        if row.type == "GameCreated" and row.data.get("reserved"):
            for seat, player in enumerate(row.data["reserved"]):
                if player is not None:
                    out.append(PushNotice("invited", seat, False))
    out += [
        PushNotice("matched", e.seat, urgent)
        for e in known.told
        if e.type == "matched" and e.seat is not None
    ]
    out += [
        PushNotice("turn", seat, urgent)
        for seat in turnclocks.people_begun(change.before, change.after)
    ]
    return out


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    found = notices(change, known)
    if found:
        uow.notifications.fan_out(
            change.game_id, change.after.version, found, known.bound, known.now
        )
