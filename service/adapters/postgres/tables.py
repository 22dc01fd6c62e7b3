"""The database schema as SQLAlchemy Core tables. Alembic migrations own the real schema;
these mirror it for queries (a test checks the two agree). Past 400 lines: a catalogue
of every table, kept in one place so that it reads as the schema does."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Double,
    ForeignKey,
    Identity,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    Uuid,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

metadata = MetaData()

games = Table(
    "games",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("players", SmallInteger, nullable=False),
    Column("scoring", Text, nullable=False),
    Column("variant", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Index("games_newest", "created_at", "id"),
    Index("games_status_newest", "status", "created_at", "id"),
    Index("games_by_change", "updated_at", "id"),
)

events = Table(
    "events",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", Text, nullable=False),
    Column("schema_version", SmallInteger, nullable=False),
    Column("data", JSONB, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    Column("actor_kind", Text, nullable=False),
    Column("actor_seat", SmallInteger, nullable=True),
    Column("request_id", Text, nullable=True),
    Column("idempotency_key", String(64), nullable=True),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    # Migration 0009: the chain key's id (null: a plain SHA-256 chain, from before), who
    # exactly acted (an operator token's name, a player's id), the client's request id
    # and address.
    Column("chain_key", Text, nullable=True),
    Column("actor_id", Text, nullable=True),
    Column("client_request_id", Text, nullable=True),
    Column("client_address", Text, nullable=True),
    Column("resealed", Text, nullable=True),  # migration 0014 (docs/privacy.md)
    # The global order: the appending transaction's id (pg_current_xact_id()), then the
    # append order. Not covered by the hash chain: the database assigns both.
    Column("position", BigInteger, Identity(always=True), nullable=False),
    Column(
        "transaction_id",
        BigInteger,
        nullable=False,
        server_default=text("pg_current_xact_id()::text::bigint"),
    ),
    PrimaryKeyConstraint("game_id", "seq", name="events_pkey"),
    CheckConstraint("seq >= 1", name="events_seq_positive"),
    CheckConstraint(
        "actor_kind IN ('seat', 'operator', 'system', 'bot', 'player', 'anonymous')",
        name="events_actor_kind",
    ),
    Index("events_global_order", "transaction_id", "position", unique=True),
)

seat_credentials = Table(
    "seat_credentials",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("seat", SmallInteger, nullable=False),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("game_id", "seat", name="seat_credentials_pkey"),
)

idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("scope", Text, nullable=False),
    Column("key_sha256", String(64), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    # Only on records from before outcomes were stored: the rendered response's status.
    Column("status", SmallInteger, nullable=True),
    Column("body", LargeBinary, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("scope", "key_sha256", name="idempotency_keys_pkey"),
)

snapshots = Table(
    "snapshots",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("last_hash", String(64), nullable=False),
    Column("schema_version", SmallInteger, nullable=False),
    Column("data", JSONB, nullable=False),
)

outbox = Table(
    "outbox",
    metadata,
    Column("id", BigInteger, Identity(always=True), primary_key=True),
    Column("kind", Text, nullable=False),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=True),
    Column("payload", JSONB, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("available_at", DateTime(timezone=True), nullable=False),
    Column("attempts", Integer, nullable=False, server_default=text("0")),
    Column("last_error", Text, nullable=True),
    Column("done_at", DateTime(timezone=True), nullable=True),
    Column("webhook_id", Uuid, ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=True),
    Column("message_id", Text, nullable=True),
    Index("outbox_due", "kind", "available_at", postgresql_where=text("done_at IS NULL")),
    # At most one push per subscription, game and version, a reminder apart (0019).
    Index(
        "outbox_push_once",
        text("(payload ->> 'subscription_id')"),
        "game_id",
        text("(payload ->> 'version')"),
        text("((payload ->> 'type') = 'reminder')"),
        unique=True,
        postgresql_where=text("kind = 'push'"),
    ),
)

webhooks = Table(
    "webhooks",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=True),
    Column("url", Text, nullable=False),
    Column("events", ARRAY(Text), nullable=False),
    Column("secret", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("failing_since", DateTime(timezone=True), nullable=True),
    Column("disabled_at", DateTime(timezone=True), nullable=True),
    Column("disabled_reason", Text, nullable=True),
    Index("webhooks_by_player", "player_id"),
    Index("webhooks_of_operators", "created_at", postgresql_where=text("player_id IS NULL")),
)

webhook_attempts = Table(
    "webhook_attempts",
    metadata,
    Column("id", BigInteger, Identity(always=True), primary_key=True),
    Column("webhook_id", Uuid, ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
    Column("message_id", Text, nullable=False),
    Column("event_type", Text, nullable=False),
    Column("attempted_at", DateTime(timezone=True), nullable=False),
    Column("status", Integer, nullable=True),
    Column("error", Text, nullable=True),
    Column("next_attempt_at", DateTime(timezone=True), nullable=True),
    Index("webhook_attempts_by_webhook", "webhook_id", "id"),
)

wakeups = Table(
    "wakeups",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), primary_key=True),
    Column("due_at", DateTime(timezone=True), nullable=False),
    Column("version", Integer, nullable=False),
    Column("claims", Integer, nullable=False, server_default=text("0")),
    Index("wakeups_due", "due_at"),
)

players = Table(
    "players",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("name", Text, nullable=False),
    # No longer read or written (migration 0010): player_tokens holds every token.
    Column("token_sha256", String(64), nullable=True, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("suspended_at", DateTime(timezone=True), nullable=True),
    Column("suspended_reason", Text, nullable=True),
    Column("erased_at", DateTime(timezone=True), nullable=True),  # migration 0014
)

privacy_keys = Table(
    "privacy_keys",
    metadata,
    Column("subject", Text, primary_key=True),
    Column("key", LargeBinary, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("destroyed_at", DateTime(timezone=True), nullable=True),
    CheckConstraint("(key IS NULL) = (destroyed_at IS NOT NULL)", name="privacy_keys_destroyed"),
)

player_tokens = Table(
    "player_tokens",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("via", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_used_at", DateTime(timezone=True), nullable=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    CheckConstraint("via IN ('created', 'oidc', 'link')", name="player_tokens_via"),
    Index("player_tokens_by_player", "player_id", "created_at"),
)

identities = Table(
    "identities",
    metadata,
    Column("issuer", Text, nullable=False),
    Column("subject", Text, nullable=False),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("issuer", "subject", name="identities_pkey"),
    Index("identities_by_player", "player_id"),
)

link_codes = Table(
    "link_codes",
    metadata,
    Column("code_sha256", String(64), primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True), nullable=True),
    Index("link_codes_by_player", "player_id", "created_at"),
)

player_audit = Table(
    "player_audit",
    metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("action", Text, nullable=False),
    Column("actor_kind", Text, nullable=False),
    Column("actor_id", Text, nullable=True),
    Column("reason", Text, nullable=True),
    Column("request_id", Text, nullable=True),
    Index("player_audit_by_player", "player_id", "id"),
)

seat_players = Table(
    "seat_players",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("seat", SmallInteger, nullable=False),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    PrimaryKeyConstraint("game_id", "seat", name="seat_players_pkey"),
    UniqueConstraint("game_id", "player_id", name="seat_players_one_seat"),
    Index("seat_players_by_player", "player_id"),
)

inbox = Table(
    "inbox",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("seat", SmallInteger, nullable=False),
    Column("status", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("players", SmallInteger, nullable=False),
    Column("scoring", Text, nullable=False),
    Column("variant", Text, nullable=False),
    Column("scores", JSONB, nullable=False),
    Column("winner", JSONB, nullable=True),
    Column("my_turn", Boolean, nullable=False),
    Column("action", Text, nullable=True),
    Column("due_since", DateTime(timezone=True), nullable=True),
    Column("deadline", DateTime(timezone=True), nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("invited_by", Uuid, nullable=True),  # migration 0025: the inviting player
    Column("rematch_of", Uuid, nullable=True),  # migration 0025: the game played again
    PrimaryKeyConstraint("player_id", "game_id", name="inbox_pkey"),
    Index("inbox_by_game", "game_id", "seat"),
)

operators = Table(
    "operators",
    metadata,
    Column("name", Text, primary_key=True),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)

lobby = Table(
    "lobby",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), primary_key=True),
    Column("players", SmallInteger, nullable=False),
    Column("scoring", Text, nullable=False),
    Column("variant", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("clock", JSONB, nullable=True),
    Column("seats", JSONB, nullable=False),
    Column("open_seats", SmallInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("lobby_open", "created_at", "game_id", postgresql_where=text("open_seats > 0")),
    Index("lobby_by_change", "updated_at"),
)

seeks = Table(
    "seeks",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("pool", Text, nullable=False),
    Column("players", SmallInteger, nullable=False),
    Column("scoring", Text, nullable=False),
    Column("variant", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("clock", JSONB, nullable=True),
    Column("rating_low", Double, nullable=True),
    Column("rating_high", Double, nullable=True),
    Column("bots_after", SmallInteger, nullable=True),
    Column("bots_at", DateTime(timezone=True), nullable=True),
    Column("status", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True), nullable=True),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=True),
    Column("seat", SmallInteger, nullable=True),
    Column("min_reputation", SmallInteger, nullable=True),
    CheckConstraint("status IN ('open', 'matched', 'cancelled', 'expired')", name="seeks_status"),
    Index("seeks_one_open", "player_id", unique=True, postgresql_where=text("status = 'open'")),
    Index(
        "seeks_open_by_pool", "pool", "created_at", "id", postgresql_where=text("status = 'open'")
    ),
    Index("seeks_open_by_expiry", "expires_at", postgresql_where=text("status = 'open'")),
    Index(
        "seeks_open_by_bots",
        "bots_at",
        postgresql_where=text("status = 'open' AND bots_at IS NOT NULL"),
    ),
    Index(
        "seeks_matched_by_player",
        "player_id",
        "ended_at",
        postgresql_where=text("status = 'matched'"),
    ),
    Index("seeks_by_game", "game_id", postgresql_where=text("game_id IS NOT NULL")),
)

ratings = Table(
    "ratings",
    metadata,
    Column("player_id", Uuid, nullable=False),
    Column("ladder", Text, nullable=False),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("player_id", "ladder", name="ratings_pkey"),
    Index("ratings_by_ladder", "ladder"),
)

rating_history = Table(
    "rating_history",
    metadata,
    Column("id", BigInteger, Identity(always=True), primary_key=True),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("player_id", Uuid, nullable=False),
    Column("ladder", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("before_mu", Double, nullable=False),
    Column("before_sigma", Double, nullable=False),
    Column("after_mu", Double, nullable=False),
    Column("after_sigma", Double, nullable=False),
    UniqueConstraint("game_id", "player_id", name="rating_history_once"),
    Index("rating_history_by_player", "player_id", "ladder", "id"),
)

rated_games = Table(
    "rated_games",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), primary_key=True),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("rated_at", DateTime(timezone=True), nullable=True),
    Column("rated_seq", BigInteger, nullable=True, unique=True),
    Index("rated_games_due", "finished_at", "game_id", postgresql_where=text("rated_at IS NULL")),
)

player_results = Table(
    "player_results",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("seat", SmallInteger, nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("abandoned", Boolean, nullable=False),
    PrimaryKeyConstraint("player_id", "game_id", name="player_results_pkey"),
    Index("player_results_recent", "player_id", "finished_at", "game_id"),
)

reputations = Table(
    "reputations",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), primary_key=True),
    Column("score", SmallInteger, nullable=False),
    Column("finished", Integer, nullable=False),
    Column("abandoned", Integer, nullable=False),
    Column("timeouts", Integer, nullable=False),
    Column("lifted_at", DateTime(timezone=True), nullable=True),
    CheckConstraint("score BETWEEN 0 AND 100", name="reputations_score"),
)

reputation_marks = Table(
    "reputation_marks",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("how", Text, nullable=False),
    Column("banning", Boolean, nullable=False),
    PrimaryKeyConstraint("player_id", "game_id", "seq", name="reputation_marks_pkey"),
    CheckConstraint(
        "how IN ('finished', 'left', 'resigned', 'forfeited', 'timeout')",
        name="reputation_marks_how",
    ),
    Index("reputation_marks_banning", "player_id", "at", postgresql_where=text("banning")),
)

reviews = Table(
    "reviews",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), primary_key=True),
    Column("status", Text, nullable=False),
    Column("level", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("players", SmallInteger, nullable=False),
    Column("decisions", JSONB, nullable=False),
    Column("requested_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="reviews_status"),
    Index(
        "reviews_waiting",
        "requested_at",
        postgresql_where=text("status IN ('queued', 'running')"),
    ),
)

relay_positions = Table(
    "relay_positions",
    metadata,
    Column("name", Text, primary_key=True),
    Column("transaction_id", BigInteger, nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

# Turn notifications (migration 0019).
notification_settings = Table(
    "notification_settings",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), primary_key=True),
    Column("push", Boolean, nullable=False, server_default=text("true")),
    Column("mail", Boolean, nullable=False, server_default=text("true")),
    Column("email", Text, nullable=True),
    Column("email_verified", Boolean, nullable=False, server_default=text("false")),
    Column("digest", Text, nullable=False, server_default="off"),
    Column("reminder_minutes", SmallInteger, nullable=True),
    Column("unsubscribe_token", Text, nullable=False, unique=True),
    Column("digest_sent_at", DateTime(timezone=True), nullable=True),
    Column("lang", Text, nullable=False, server_default="en"),
    CheckConstraint("digest IN ('off', 'hourly', 'daily')", name="notification_digest"),
    CheckConstraint("reminder_minutes BETWEEN 1 AND 1440", name="notification_reminder_minutes"),
)

push_subscriptions = Table(
    "push_subscriptions",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("endpoint_hash", Text, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("keys", Text, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("player_id", "endpoint_hash", name="push_subscriptions_endpoint"),
)

email_codes = Table(
    "email_codes",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("sent_at", DateTime(timezone=True), nullable=False),
    Column("address", Text, nullable=False),
    Column("code_hash", Text, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("tries", SmallInteger, nullable=False, server_default="0"),
    PrimaryKeyConstraint("player_id", "sent_at", name="email_codes_pkey"),
)

watchers = Table(
    "watchers",
    metadata,
    Column("stream_id", Uuid, primary_key=True),
    Column("player_id", Uuid, nullable=False),
    Column("game_id", Uuid, nullable=True),
    Column("seen_at", DateTime(timezone=True), nullable=False),
    Index("watchers_by_player", "player_id"),
)

reminded = Table(
    "reminded",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("deadline", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("player_id", "game_id", "deadline", name="reminded_pkey"),
)

chat_messages = Table(
    "chat_messages",
    metadata,
    Column("id", BigInteger, Identity(always=True), primary_key=True),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("channel", Text, nullable=False),
    Column("seat", SmallInteger, nullable=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=True),
    Column("name", Text, nullable=False),
    Column("text", Text, nullable=True),
    Column("preset", Text, nullable=True),
    Column("sender", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    CheckConstraint("channel IN ('table', 'spectators')", name="chat_messages_channel"),
    CheckConstraint("(text IS NULL) <> (preset IS NULL)", name="chat_messages_one_of"),
    Index("chat_by_game", "game_id", "id"),
    Index("chat_by_sender", "sender", "at"),
    Index("chat_by_player", "player_id", postgresql_where=text("player_id IS NOT NULL")),
)

reports = Table(
    "reports",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("reporter_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=True),
    Column("message_id", BigInteger, ForeignKey("chat_messages.id"), nullable=True),
    Column("reason", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("resolved_at", DateTime(timezone=True), nullable=True),
    Column("resolved_by", Text, nullable=True),
    Column("action", Text, nullable=True),
    Column("minutes", Integer, nullable=True),
    Column("until", DateTime(timezone=True), nullable=True),
    Column("note", Text, nullable=True),
    CheckConstraint("action IN ('none', 'warn', 'mute', 'suspend')", name="reports_action"),
    CheckConstraint("(resolved_at IS NULL) = (action IS NULL)", name="reports_closed"),
    Index("reports_open", "created_at", "id", postgresql_where=text("resolved_at IS NULL")),
    Index("reports_resolved", "created_at", "id", postgresql_where=text("resolved_at IS NOT NULL")),
    Index("reports_by_reporter", "reporter_id", "created_at"),
    Index("reports_about", "player_id"),
    Index("reports_mutes", "player_id", "until", postgresql_where=text("action = 'mute'")),
)


def _choices_between_players(name: str) -> Table:
    """A player's choice about another player (migration 0023): ``blocks`` and ``follows``."""
    return Table(
        name,
        metadata,
        Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
        Column("other_id", Uuid, ForeignKey("players.id"), nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
        PrimaryKeyConstraint("player_id", "other_id", name=f"{name}_pkey"),
        CheckConstraint("player_id <> other_id", name=f"{name}_not_oneself"),
        Index(f"{name}_by_other", "other_id"),
    )


blocks = _choices_between_players("blocks")
follows = _choices_between_players("follows")

public_games = Table(
    "public_games",
    metadata,
    Column("game_id", Uuid, ForeignKey("games.id"), primary_key=True),
)

chat_senders = Table(
    "chat_senders",
    metadata,
    Column("sender", Text, primary_key=True),
    Column("recent", ARRAY(DateTime(timezone=True)), nullable=False),
)
