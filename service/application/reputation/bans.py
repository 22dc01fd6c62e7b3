"""Bans: a player who abandoned rated or quick-play games may not seek, nor join a rated
game, until the ban runs out (docs/api.md "Playing fair"); an operator lifts the running
ban, which the player's audit records."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from service.application.commands import LiftBan
from service.application.errors import ForbiddenError
from service.application.identity.players import PlayerNotFoundError, audit
from service.application.identity.principals import Principal, actor_of, require_operator
from service.application.ports import Actor, UnitOfWork
from service.application.reputation import model
from service.application.results import BanLifted
from service.application.write.transaction import Transaction


class PlayerBannedError(ForbiddenError):
    code = "player_banned"

    def __init__(self, ban: model.Ban) -> None:
        super().__init__(
            f"banned from seeks and rated games until {ban.until.isoformat()}: {describe(ban)}"
        )
        self.ban = ban

    def extensions(self) -> dict[str, Any]:
        return {"banned_until": self.ban.until, "ban": shown(self.ban)}


def describe(ban: model.Ban) -> str:
    """Why, in words (the players' audit keeps it when a ban is lifted)."""
    return (
        f"a rated or quick-play game abandoned ({ban.cause.how.value}) at "
        f"{ban.cause.at.isoformat()}, abandonment {ban.count} in 24 hours"
    )


def shown(ban: model.Ban | None) -> dict[str, Any] | None:
    """A ban as the API shows it (the profile, the problem document)."""
    if ban is None:
        return None
    return {
        "until": ban.until,
        "reason": ban.cause.how.value,
        "at": ban.cause.at,
        "count": ban.count,
    }


def running(uow: UnitOfWork, player_id: UUID, now: datetime) -> model.Ban | None:
    """The player's ban running at ``now``, if any (a read of its own)."""
    kept = uow.reputations.of(player_id, now - model.BAN_LOOKBACK)
    return model.ban(kept.recent, kept.lifted, now)


def refuse_if_banned(uow: UnitOfWork, player_id: UUID, now: datetime) -> None:
    """:class:`PlayerBannedError` while the player is banned."""
    found = running(uow, player_id, now)
    if found is not None:
        raise PlayerBannedError(found)


def authorize_lift(cmd: LiftBan, principal: Principal) -> Actor:
    """Operators only."""
    require_operator(principal)
    return actor_of(principal)


def lift(cmd: LiftBan, actor: Actor, tx: Transaction) -> BanLifted:
    """Lift the player's running ban (the abandonments still count for later ones); the
    player's audit says which. Without a running ban, nothing is done."""
    player = tx.uow.players.get(cmd.player_id)
    if player is None:
        raise PlayerNotFoundError("no such player")
    found = running(tx.uow, cmd.player_id, tx.now)
    if found is not None:
        tx.uow.reputations.lift(cmd.player_id, tx.now)
        reason = f"ban until {found.until.isoformat()} lifted; {describe(found)}"
        audit(tx, cmd.player_id, model.LIFTED, actor, reason=reason)
    return BanLifted(player.id, player.name, found is not None)
