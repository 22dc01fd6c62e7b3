"""Sign-in identities and link codes."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.identity.ports import (
    LinkCode,
)
from service.application.write.ports import DuplicateKeyError
from tests.application.fakes.tables import Commit, IntegrityViolation

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeIdentities:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def find(self, issuer: str, subject: str) -> UUID | None:
        return self._uow.read().identities.get((issuer, subject))

    def add(self, issuer: str, subject: str, player_id: UUID, at: datetime) -> None:
        def write(c: Commit) -> None:
            if (issuer, subject) in c.after.identities:
                raise DuplicateKeyError("identities_pkey")
            c.after.identities[(issuer, subject)] = player_id
            c.player(player_id, "identities")

        self._uow.queue(write)


class FakeLinkCodes:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, code: LinkCode) -> None:
        def write(c: Commit) -> None:
            if code.code_sha256 in c.after.link_codes:
                raise IntegrityViolation("link_codes: duplicate code")
            c.after.link_codes[code.code_sha256] = (code, None)
            c.player(code.player_id, "link_codes")

        self._uow.queue(write)

    def take(self, code_sha256: str, now: datetime) -> UUID | None:
        uow = self._uow
        uow.check_writable()
        uow.lock(("link_code", code_sha256))  # FOR UPDATE: held until the unit of work ends
        found = uow.read().link_codes.get(code_sha256)
        if found is None or found[1] is not None or found[0].expires_at <= now:
            return None

        def write(c: Commit) -> None:
            row = c.before.link_codes.get(code_sha256)
            if row is not None:
                c.after.link_codes[code_sha256] = (row[0], now)

        uow.queue(write)
        return found[0].player_id
