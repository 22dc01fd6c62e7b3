"""Why the engine refuses a command or an event."""

from __future__ import annotations

from enum import StrEnum


class Violation(StrEnum):
    """Stable codes of rule violations; clients switch on them."""

    WRONG_PHASE = "wrong_phase"
    NOT_YOUR_TURN = "not_your_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    ALREADY_PASSED = "already_passed"
    INVALID_PASS = "invalid_pass"
    SEAT_TAKEN = "seat_taken"
    UNKNOWN_SEAT = "unknown_seat"
    INVALID_OPTIONS = "invalid_options"
    INVALID_DEAL = "invalid_deal"
    GAME_OVER = "game_over"
    NOT_STARTED = "game_not_started"
    SEAT_EMPTY = "seat_empty"
    BOT_SEAT = "bot_seat"
    INVALID_CLIENT_SEED = "invalid_client_seed"
    SEAT_RESERVED = "seat_reserved"  # the seat waits for the player it was reserved for
    NOT_RESERVED = "seat_not_reserved"  # declining a seat nobody reserved for the player
    NOT_FINISHED = "game_not_finished"  # a rematch of a game still to be played out
    REMATCHED = "rematch_exists"  # a finished game has its rematch already
    PLAYERS_ONLY = "players_only"  # a rated game's seat is joined by a player (or a bot)


class RuleViolationError(Exception):
    """A command the rules do not allow now. ``detail`` never names a card the actor
    cannot see: only cards the actor named or holds."""

    def __init__(self, code: Violation, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


class InvalidEventError(Exception):
    """An event that cannot follow the state it is applied to (a corrupt history)."""
