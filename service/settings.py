"""Settings, read from the environment once into one frozen object."""

from __future__ import annotations

import ipaddress
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

MAX_BODY_BYTES = 64 * 1024


class ConfigurationError(RuntimeError):
    """The settings do not let the service start (the message says what to set)."""


OPERATOR_TOKEN_MIN = 32
"""Characters an operator token needs: it opens every hand and the audit."""


def default_data_dir() -> Path:
    """The embedded PostgreSQL's folder when YOKAI_DATA_DIR is unset: the user's data
    directory (e.g. ~/.local/share/yokai), so `yokai serve` finds the same database from
    any working directory."""
    return Path(platformdirs.user_data_dir("yokai", appauthor=False))


def _int(env: Mapping[str, str], name: str, default: int, minimum: int = 0) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be an integer, not {raw!r}") from None
    if value < minimum:
        raise ConfigurationError(f"{name} must be at least {minimum}")
    return value


def default_heartbeat() -> Path:
    """The file a worker touches while its loop runs (`yokai worker --check-alive`)."""
    return Path(tempfile.gettempdir()) / "yokai-worker.heartbeat"


def _port(env: Mapping[str, str], name: str) -> int | None:
    value = _int(env, name, 0)
    if value > 65535:
        raise ConfigurationError(f"{name} must be a TCP port (1 to 65535), not {value}")
    return value or None


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be a number, not {raw!r}") from None
    if not value > 0:
        raise ConfigurationError(f"{name} must be more than 0")
    return value


def _path(env: Mapping[str, str], name: str) -> Path | None:
    raw = env.get(name)
    return Path(raw) if raw else None


def _subject(env: Mapping[str, str], name: str) -> str:
    """A VAPID subject (RFC 8292 2.1): a mailto: or https: URL."""
    value = env.get(name) or "mailto:operators@localhost"
    parts = urlsplit(value)
    if not (
        (parts.scheme == "mailto" and "@" in parts.path)
        or (parts.scheme == "https" and parts.hostname)
    ):
        raise ConfigurationError(
            f"{name} must be a mailto: address or an https: URL with a host, not {value}"
        )
    return value


def _public_url(env: Mapping[str, str], name: str) -> str:
    """The service's address as people reach it (links in pushes and mail)."""
    value = (env.get(name) or "http://127.0.0.1:8000").rstrip("/")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(f"{name} must be an http: or https: URL, not {value}")
    return value


def _issuers(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Space-separated issuer URLs: https, or http on a loopback host (a test's provider)."""
    issuers = tuple((env.get(name) or "").split())
    for issuer in issuers:
        parts = urlsplit(issuer)
        if not (parts.scheme == "https" and parts.hostname) and not (
            parts.scheme == "http" and _loopback(parts.hostname)
        ):
            raise ConfigurationError(f"{name}: {issuer!r} is not an https URL")
    if issuers and not (env.get("YOKAI_OIDC_AUDIENCE") or "").split():
        raise ConfigurationError(f"{name} is set: YOKAI_OIDC_AUDIENCE must name the audiences")
    return issuers


def _web_clients(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """YOKAI_OIDC_WEB_CLIENTS: comma-separated `issuer client_id` pairs."""
    name = "YOKAI_OIDC_WEB_CLIENTS"
    issuers = set((env.get("YOKAI_OIDC_ISSUERS") or "").split())
    audiences = set((env.get("YOKAI_OIDC_AUDIENCE") or "").split())
    pairs: list[tuple[str, str]] = []
    for item in (env.get(name) or "").split(","):
        if not item.strip():
            continue
        parts = item.split()
        if len(parts) != 2 or parts[0] not in issuers or parts[1] not in audiences:
            raise ConfigurationError(
                f"{name}: {item.strip()!r} is not `issuer client_id` of an issuer of "
                "YOKAI_OIDC_ISSUERS and a client id of YOKAI_OIDC_AUDIENCE"
            )
        pairs.append((parts[0], parts[1]))
    return tuple(pairs)


def _loopback(host: str | None) -> bool:
    if host == "localhost":
        return True
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _redis_url(env: Mapping[str, str]) -> str | None:
    raw = env.get("YOKAI_REDIS_URL") or None
    if raw is not None and not raw.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigurationError(
            f"YOKAI_REDIS_URL must be a redis://, rediss:// or unix:// URL, not {raw!r}"
        )
    return raw


def _choice(env: Mapping[str, str], name: str, options: tuple[str, ...]) -> str:
    raw = env.get(name) or options[0]
    if raw not in options:
        raise ConfigurationError(f"{name} must be one of {', '.join(options)}, not {raw!r}")
    return raw


@dataclass(frozen=True)
class Settings:
    database_url: str | None = None
    # The tables' owner, for migrations (default: DATABASE_URL); the service itself runs
    # as DATABASE_URL's role, which should be YOKAI_APP_ROLE (docs/security.md).
    migration_database_url: str | None = None
    app_role: str | None = None
    # Behind PgBouncer in transaction mode (docs/operations.md): LISTEN needs a direct
    # connection, and prepared statements must be off (PgBouncer before 1.21).
    listen_database_url: str | None = None
    db_prepared_statements: bool = True
    operator_token: str | None = None
    operator_tokens: str | None = None  # more, named: "name:token,name:token"
    data_dir: Path = field(default_factory=default_data_dir)
    rate_limit: str = "600 per minute"
    # A `limits` storage URI (redis://host:6379/0) that every worker and instance share;
    # unset: each worker counts alone, allowed rate_limit divided by `workers`.
    rate_limit_storage: str | None = None
    # The message bus of a deployment of many nodes (redis://host:6379/0): `yokai relay`
    # announces each committed command there (docs/operations.md, "The relay").
    redis_url: str | None = None
    relay_poll_ms: float = 10.0  # how often the relay looks for new commits
    workers: int = 1  # YOKAI_WORKERS: gunicorn's worker processes (its config exports it)
    trusted_proxies: int = 0  # reverse proxies in front whose X-Forwarded-For to trust
    db_pool_size: int = 5
    state_cache_size: int = 2048
    log_level: str = "INFO"
    log_format: str = "auto"  # json, or text; auto: text on a terminal (service/logs.py)
    metrics_allow: str = "127.0.0.1/32,::1/128"  # who may read /metrics without a token
    streams_per_token: int = 16  # open streams and waiting long-polls, per process
    streams_per_address: int = 512
    keepalive_seconds: float = 15.0
    embedded_worker: bool = True  # `yokai serve` starts a `yokai worker` beside gunicorn
    worker_lease_seconds: int = 30  # a claimed job left this long goes to another worker
    worker_metrics_port: int | None = None  # a stand-alone worker's /metrics (unset: none)
    worker_metrics_host: str = "0.0.0.0"  # a container or pod of its own
    worker_heartbeat: Path = field(default_factory=default_heartbeat)
    webhook_allow_private: bool = False  # tests and private networks only (SSRF guard off)
    webhook_first_retry_seconds: float = 5.0  # doubles with each failed attempt
    webhook_lease_seconds: int = 60  # a delivery claimed by a worker that died waits this long
    idempotency_keep_hours: int = 24  # outcomes under Idempotency-Keys are kept this long
    waiting_game_hours: int = 168  # a game waiting for players this long, unchanged, expires
    seek_hours: int = 24  # a seek (quick play) still open this long expires
    bot_move_ms: float = 250.0  # the expert bot's time per move; the strong bot's a third
    takeover_level: str = "basic"  # the bot that plays on for a player who leaves
    review_seed: int = 46  # the hand review's seed: with a seat's view, all its values hang on
    webhook_keep_days: int = 7  # finished deliveries and logged attempts are kept this long
    # Turn notifications (docs/api.md "Turn notifications"): the VAPID key pushes are
    # signed with (PEM, or the private scalar in base64url; else one made and kept in
    # vapid_key_file, the data folder's by default), the subject it names, the base of
    # every link the service sends, loopback http: push endpoints (tests), and the mail.
    vapid_private_key: str | None = None
    vapid_key_file: Path | None = None
    vapid_subject: str = "mailto:operators@localhost"
    public_url: str = "http://127.0.0.1:8000"
    push_allow_http: bool = False
    smtp_url: str | None = None  # smtp://[user:pass@]host:port[?starttls=1]; unset: no mail
    mail_from: str = "Yokai Septet <noreply@localhost>"
    fairness_key: str | None = None  # seals fair games' server seeds (else a data-dir file)
    fairness_old_keys: str | None = None  # comma-separated: keys rotated out, still opened
    # The events' hash chain is an HMAC under this key (docs/security.md); or the key is
    # kept in chain_key_file (made when missing: the embedded default's is in data_dir).
    chain_key: str | None = None
    chain_old_keys: str | None = None  # comma-separated: keys rotated out, still verified
    chain_key_file: Path | None = None
    # Refuse to start without an explicit chain key, or with an operator token under
    # OPERATOR_TOKEN_MIN characters (deployments set it); else both are warned about.
    strict_secrets: bool = False
    # Where the worker anchors every game's chain head, outside the database, each period.
    anchor_dir: Path | None = None
    erasure_list: Path | None = None  # docs/privacy.md (default: data folder's erasures.list)
    audit_address_days: int = 30  # client addresses and request ids readable this long
    anchor_seconds: int = 300
    # Sign-in with OpenID Connect (docs/api.md "Accounts"): the issuers whose ID tokens
    # are accepted, and the `aud` values accepted in them (none: sign-in is off).
    oidc_issuers: tuple[str, ...] = ()
    oidc_audiences: tuple[str, ...] = ()
    # The web client's sign-in: (issuer, client id) pairs, each issuer configured above and
    # each client id one of the audiences.
    oidc_web_clients: tuple[tuple[str, str], ...] = ()
    # Stricter limits than rate_limit, always on ("" turns one off): sign-ins (with an ID
    # token or a link code) per client address, link codes made per player.
    sign_in_limit: str = "30 per 10 minutes"
    link_code_limit: str = "10 per hour"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        return cls(
            database_url=env.get("DATABASE_URL") or None,
            migration_database_url=env.get("YOKAI_MIGRATION_DATABASE_URL") or None,
            app_role=env.get("YOKAI_APP_ROLE") or None,
            listen_database_url=env.get("YOKAI_LISTEN_DATABASE_URL") or None,
            db_prepared_statements=_int(env, "YOKAI_DB_PREPARED_STATEMENTS", 1) != 0,
            operator_token=env.get("YOKAI_OPERATOR_TOKEN") or None,
            operator_tokens=env.get("YOKAI_OPERATOR_TOKENS") or None,
            data_dir=Path(env["YOKAI_DATA_DIR"])
            if env.get("YOKAI_DATA_DIR")
            else default_data_dir(),
            rate_limit=env.get("YOKAI_RATE_LIMIT", "600 per minute"),
            rate_limit_storage=env.get("YOKAI_RATE_LIMIT_STORAGE") or None,
            redis_url=_redis_url(env),
            relay_poll_ms=_float(env, "YOKAI_RELAY_POLL_MS", 10.0),
            workers=_int(env, "YOKAI_WORKERS", 1, minimum=1),
            trusted_proxies=_int(env, "YOKAI_TRUSTED_PROXIES", 0),
            db_pool_size=_int(env, "YOKAI_DB_POOL_SIZE", 5, minimum=1),
            state_cache_size=_int(env, "YOKAI_STATE_CACHE_SIZE", 2048),
            log_level=env.get("YOKAI_LOG_LEVEL", "INFO").upper(),
            log_format=_choice(env, "YOKAI_LOG_FORMAT", ("auto", "json", "text")),
            metrics_allow=env.get("YOKAI_METRICS_ALLOW", "127.0.0.1/32,::1/128"),
            streams_per_token=_int(env, "YOKAI_STREAMS_PER_TOKEN", 16, minimum=1),
            streams_per_address=_int(env, "YOKAI_STREAMS_PER_ADDRESS", 512, minimum=1),
            keepalive_seconds=_float(env, "YOKAI_KEEPALIVE_SECONDS", 15.0),
            embedded_worker=_int(env, "YOKAI_EMBEDDED_WORKER", 1) != 0,
            worker_lease_seconds=_int(env, "YOKAI_WORKER_LEASE_SECONDS", 30, minimum=1),
            worker_metrics_port=_port(env, "YOKAI_WORKER_METRICS_PORT"),
            worker_metrics_host=env.get("YOKAI_WORKER_METRICS_HOST") or "0.0.0.0",
            worker_heartbeat=Path(env["YOKAI_WORKER_HEARTBEAT"])
            if env.get("YOKAI_WORKER_HEARTBEAT")
            else default_heartbeat(),
            webhook_allow_private=_int(env, "YOKAI_WEBHOOK_ALLOW_PRIVATE", 0) != 0,
            webhook_first_retry_seconds=_float(env, "YOKAI_WEBHOOK_FIRST_RETRY_SECONDS", 5.0),
            webhook_lease_seconds=_int(env, "YOKAI_WEBHOOK_LEASE_SECONDS", 60, minimum=15),
            idempotency_keep_hours=_int(env, "YOKAI_IDEMPOTENCY_KEEP_HOURS", 24, minimum=1),
            waiting_game_hours=_int(env, "YOKAI_WAITING_GAME_HOURS", 168, minimum=1),
            seek_hours=_int(env, "YOKAI_SEEK_HOURS", 24, minimum=1),
            bot_move_ms=_float(env, "YOKAI_BOT_MOVE_MS", 250.0),
            takeover_level=_choice(
                env, "YOKAI_TAKEOVER_LEVEL", ("basic", "random", "strong", "expert")
            ),
            webhook_keep_days=_int(env, "YOKAI_WEBHOOK_KEEP_DAYS", 7, minimum=1),
            vapid_private_key=env.get("YOKAI_VAPID_PRIVATE_KEY") or None,
            vapid_key_file=_path(env, "YOKAI_VAPID_KEY_FILE"),
            vapid_subject=_subject(env, "YOKAI_VAPID_SUBJECT"),
            public_url=_public_url(env, "YOKAI_PUBLIC_URL"),
            push_allow_http=_int(env, "YOKAI_PUSH_ALLOW_HTTP", 0) != 0,
            smtp_url=env.get("YOKAI_SMTP_URL") or None,
            mail_from=env.get("YOKAI_MAIL_FROM") or "Yokai Septet <noreply@localhost>",
            review_seed=_int(env, "YOKAI_REVIEW_SEED", 46),
            fairness_key=env.get("YOKAI_FAIRNESS_KEY") or None,
            fairness_old_keys=env.get("YOKAI_FAIRNESS_OLD_KEYS") or None,
            chain_key=env.get("YOKAI_CHAIN_KEY") or None,
            chain_old_keys=env.get("YOKAI_CHAIN_OLD_KEYS") or None,
            chain_key_file=_path(env, "YOKAI_CHAIN_KEY_FILE"),
            strict_secrets=env.get("YOKAI_STRICT_SECRETS", "0") == "1",
            anchor_dir=_path(env, "YOKAI_ANCHOR_DIR"),
            erasure_list=_path(env, "YOKAI_ERASURE_LIST"),
            audit_address_days=_int(env, "YOKAI_AUDIT_ADDRESS_DAYS", 30, minimum=1),
            anchor_seconds=_int(env, "YOKAI_ANCHOR_SECONDS", 300, minimum=1),
            oidc_issuers=_issuers(env, "YOKAI_OIDC_ISSUERS"),
            oidc_audiences=tuple((env.get("YOKAI_OIDC_AUDIENCE") or "").split()),
            oidc_web_clients=_web_clients(env),
            sign_in_limit=env.get("YOKAI_SIGN_IN_LIMIT", "30 per 10 minutes"),
            link_code_limit=env.get("YOKAI_LINK_CODE_LIMIT", "10 per hour"),
        )
