"""The Yokai Septet rules engine: pure, deterministic, standard library only.

The public surface: ``decide`` (command -> events or a rule violation), ``evolve``
(state + event -> state), ``legal_cards``/``expected_action`` (what a seat may do now),
``observe``/``redact`` (what a viewer may see), the event codec, and the shuffle
(``shuffle``/``deal_shuffled``, algorithm ``SHUFFLE_ALGORITHM``) that turns given bytes
into a deal.
"""

from service.rules.cards import (
    SEVEN_FOLLOWERS_DECK,
    STANDARD_DECK,
    Card,
    Suit,
    UnknownCardError,
    card,
    sort_cards,
)
from service.rules.commands import (
    Command,
    CreateGame,
    DealRound,
    Expire,
    JoinSeat,
    Leave,
    PassCards,
    PlayCard,
    Resign,
    RevealSeed,
    TimeOut,
)
from service.rules.config import (
    CLIENT_SEED_MAX,
    MAX_TURN_SECONDS,
    BotLevel,
    FairShuffle,
    GameConfig,
    OnTimeout,
    Scoring,
    TurnClock,
    Variant,
    client_seed_problem,
)
from service.rules.engine import (
    Action,
    deal_due,
    deal_problem,
    decide,
    evolve,
    expected_action,
    fold,
    legal_cards,
    preset_deal,
    trick_winner,
)
from service.rules.errors import InvalidEventError, RuleViolationError, Violation
from service.rules.events import (
    SCHEMA_VERSION,
    Event,
    EventDataError,
    PresetDeal,
    RoundEndReason,
    from_data,
    to_data,
)
from service.rules.fairness import unfair_deal
from service.rules.observe import (
    OPERATOR,
    PUBLIC,
    PUBLIC_STATUSES,
    OperatorView,
    OperatorViewer,
    PublicView,
    PublicViewer,
    SeatView,
    SeatViewer,
    Viewer,
    observe,
    public_status,
    redact,
)
from service.rules.replay import HistoryError, replay_checked
from service.rules.shuffle import ALGORITHM as SHUFFLE_ALGORITHM
from service.rules.shuffle import deal as deal_shuffled
from service.rules.shuffle import fair_deal, fair_message, round_message, seed_key, shuffle
from service.rules.snapshot import SNAPSHOT_VERSION
from service.rules.snapshot import from_data as state_from_snapshot
from service.rules.snapshot import to_data as snapshot_of
from service.rules.state import INITIAL, GameState, Phase

__all__ = [
    "CLIENT_SEED_MAX",
    "INITIAL",
    "MAX_TURN_SECONDS",
    "OPERATOR",
    "PUBLIC",
    "PUBLIC_STATUSES",
    "SCHEMA_VERSION",
    "SEVEN_FOLLOWERS_DECK",
    "SHUFFLE_ALGORITHM",
    "SNAPSHOT_VERSION",
    "STANDARD_DECK",
    "Action",
    "BotLevel",
    "Card",
    "Command",
    "CreateGame",
    "DealRound",
    "Event",
    "EventDataError",
    "Expire",
    "FairShuffle",
    "GameConfig",
    "GameState",
    "HistoryError",
    "InvalidEventError",
    "JoinSeat",
    "Leave",
    "OnTimeout",
    "OperatorView",
    "OperatorViewer",
    "PassCards",
    "Phase",
    "PlayCard",
    "PresetDeal",
    "PublicView",
    "PublicViewer",
    "Resign",
    "RevealSeed",
    "RoundEndReason",
    "RuleViolationError",
    "Scoring",
    "SeatView",
    "SeatViewer",
    "Suit",
    "TimeOut",
    "TurnClock",
    "UnknownCardError",
    "Variant",
    "Viewer",
    "Violation",
    "card",
    "client_seed_problem",
    "deal_due",
    "deal_problem",
    "deal_shuffled",
    "decide",
    "evolve",
    "expected_action",
    "fair_deal",
    "fair_message",
    "fold",
    "from_data",
    "legal_cards",
    "observe",
    "preset_deal",
    "public_status",
    "redact",
    "replay_checked",
    "round_message",
    "seed_key",
    "shuffle",
    "snapshot_of",
    "sort_cards",
    "state_from_snapshot",
    "to_data",
    "trick_winner",
    "unfair_deal",
]
