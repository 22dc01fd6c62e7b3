"""What the write path seals: a player's names under the player's key, and a request's
client address and client request id under the day's key (retention) and, when the
request is a player's, the player's key too (erasure)."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from uuid import UUID

from service.application.privacy import sealing
from service.application.privacy.ports import KeyVault

_CACHED = 4096


class Sealer:
    """Seals values under keys taken from the vault, keeping the last few thousand keys.

    A kept key may outlive its destruction by another process; what it seals then is
    unreadable at once (the vault no longer has the key), which is what erasure asks:
    so sealing may cache where revealing never does.
    """

    def __init__(self, vault: KeyVault) -> None:
        self.vault = vault
        self._keys: OrderedDict[str, bytes] = OrderedDict()

    def _key(self, subject: str) -> bytes:
        key = self._keys.get(subject)
        if key is None:
            key = self._keys[subject] = self.vault.key(subject)
            if len(self._keys) > _CACHED:
                self._keys.popitem(last=False)
        return key

    def name(self, player_id: UUID | str, name: str) -> str:
        """A name a player goes by, sealed under the player's key (as it is if sealed
        under it already: a name copied from the player's record)."""
        subject = sealing.player_subject(player_id)
        if sealing.sealed_under(name, subject):
            return name
        return sealing.seal(self._key(subject), subject, name, sealing.NAME)

    def personal(self, player_id: UUID | str, value: str) -> str:
        """Personal data of a player (an address, a push subscription), sealed under the
        player's key: unreadable (null) once they are erased."""
        subject = sealing.player_subject(player_id)
        return sealing.seal(self._key(subject), subject, value)

    def text(self, player_id: UUID | str, value: str) -> str:
        """A text a player wrote (a chat message), sealed under the player's key: it
        reads ERASED_TEXT once they are erased."""
        subject = sealing.player_subject(player_id)
        return sealing.seal(self._key(subject), subject, value, sealing.TEXT)

    def request(self, value: str | None, now: datetime, player_id: UUID | None) -> str | None:
        """A client address or request id: under the day's key, then the player's."""
        if value is None:
            return None
        day = sealing.day_subject(now)
        sealed = sealing.seal(self._key(day), day, value)
        if player_id is not None:
            subject = sealing.player_subject(player_id)
            sealed = sealing.seal(self._key(subject), subject, sealed)
        return sealed
