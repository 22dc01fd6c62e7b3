"""What a commit tells webhooks: payloads are thin (docs/api.md "Webhooks"): type, time,
game id, version, and the seat for turn; never a card. A receiver reads its view with
its own token."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from service.application.games import turnclocks
from service.application.games.cache import Loaded
from service.application.ports import StoredEvent
from service.application.webhooks.ports import (
    WebhookEvent,
)

EVENT_TYPES = ("turn", "game_started", "round_finished", "game_finished", "invited", "matched")
"""``matched``: a seek of the player was paired into a game (service/application/seeks/),
with its ``seek_id`` and ``seat``; told by the pairing's own transaction."""


def events_of(
    game_id: UUID, before: Loaded, after: Loaded, rows: Sequence[StoredEvent]
) -> list[WebhookEvent]:
    """The webhook events of one commit of a game: its new turns (each seat a person
    holds that must now act, when a turn began), the first deal, each round's end and
    the game's; and, to each invited player, their invitation (with the seat kept
    for them)."""
    base = {"game_id": str(game_id), "version": after.version}
    out: list[WebhookEvent] = []
    for row in rows:
        if row.type == "RoundDealt" and row.data.get("number") == 1:
            out.append(WebhookEvent("game_started", base))
        elif row.type == "RoundEnded":
            out.append(WebhookEvent("round_finished", {**base, "round": row.data["number"]}))
        elif row.type == "GameEnded":
            out.append(WebhookEvent("game_finished", {**base, "winner": row.data["winners"]}))
        elif row.type == "GameExpired":  # never filled: over, without a winner
            out.append(WebhookEvent("game_finished", {**base, "winner": None, "expired": True}))
        elif row.type == "GameCreated" and row.data.get("reserved"):
            for seat, player in enumerate(row.data["reserved"]):
                if player is not None:
                    out.append(WebhookEvent("invited", {**base, "seat": seat}, seat))
    for seat in turnclocks.people_begun(before, after):
        out.append(WebhookEvent("turn", {**base, "seat": seat}, seat))
    return out
