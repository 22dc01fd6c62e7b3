"""What a block keeps apart, wherever two players would meet: an invitation either way
(403 ``blocked``: service/application/games/invitations.py) and a table of quick play
(service/application/seeks/policy.py ``compatible``). The chat hides a blocked player's
messages from the blocker by ``uow.blocks.blocked_by``."""

from __future__ import annotations

from collections.abc import Collection
from uuid import UUID

from service.application.errors import ForbiddenError
from service.application.ports import UnitOfWork


class BlockedError(ForbiddenError):
    code = "blocked"


def refuse_if_apart(uow: UnitOfWork, player: UUID, others: Collection[UUID]) -> None:
    """403 ``blocked`` when ``player`` blocked one of ``others``, or one of them blocked
    ``player``."""
    if any(player in pair for pair in uow.blocks.apart({player, *others})):
        raise BlockedError("one of these players blocked the other: no invitation")
