"""The `yokai` command: serve the API, run the worker, verify stored histories, write the
OpenAPI file."""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from types import FrameType
from uuid import UUID, uuid4

from service import logs, metrics
from service.adapters import migrate
from service.adapters.embedded import EmbeddedPostgres
from service.adapters.integrity import anchor_files, chain_keys
from service.adapters.integrity.anchor_files import AnchorDirectory
from service.adapters.postgres import operators as pg_operators
from service.adapters.postgres import roles
from service.adapters.webhook_delivery import HttpSender
from service.application.commands import Context, ImportRecord
from service.application.errors import GameNotFoundError, InvalidInputError
from service.application.games.queries import listing
from service.application.handrecords import queries
from service.application.identity.principals import (
    CLI_OPERATOR,
    DEFAULT_OPERATOR,
    Operator,
    new_operator_token,
    token_digest,
)
from service.application.integrity import anchors
from service.application.integrity.verify import verify as verify_game
from service.application.jobs.anchoring import Anchoring
from service.application.write.registry import execute
from service.bootstrap import (
    OPERATOR_NAMES,
    Container,
    build,
    check,
    operator_tokens,
    valid_operator_name,
)
from service.metrics import MULTIPROC_ENV, WORKER_METRICS_PORT_ENV
from service.settings import ConfigurationError, Settings
from service.web.app import openapi_yaml
from service.worker import ALIVE_SECONDS, Worker, heartbeat_age, run_until_signalled


def _gunicorn_conf() -> Path:
    """deploy/gunicorn.conf.py: inside the installed package (``service.deploy``), else
    beside the source tree's service/."""
    try:
        return Path(str(resources.files("service.deploy") / "gunicorn.conf.py"))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[1] / "deploy" / "gunicorn.conf.py"


GUNICORN_CONF = _gunicorn_conf()


log = logging.getLogger("yokai.cli")

EMBEDDED_APP_ROLE = "yokai_app"


def _database(settings: Settings) -> tuple[Settings, EmbeddedPostgres | None]:
    """The settings with the service's DATABASE_URL; or, when it is unset, with an
    embedded server started in the data folder, migrated, with the service's own role
    (least privilege) set up, and the chain key and anchors kept in the data folder."""
    if settings.database_url:
        return settings, None
    embedded = EmbeddedPostgres(settings.data_dir.resolve())
    log.info("DATABASE_URL unset: embedded PostgreSQL in %s", embedded.data_dir)
    owner = embedded.start()
    try:
        migrate.upgrade(owner)
        # Local socket, trust authentication: the role needs no password.
        url = roles.grant_app_role(owner, EMBEDDED_APP_ROLE)
    except BaseException:
        embedded.stop()
        raise
    return (
        replace(
            settings,
            database_url=url,
            migration_database_url=settings.migration_database_url or owner,
            chain_key_file=settings.chain_key_file
            or settings.data_dir.resolve() / chain_keys.KEY_FILE,
            anchor_dir=settings.anchor_dir or settings.data_dir.resolve() / ANCHORS,
        ),
        embedded,
    )


ANCHORS = "anchors"
"""The embedded default's folder of anchors, in the data folder."""


def _children_env(settings: Settings) -> dict[str, str]:
    """The environment of the processes `serve` starts: the same database, chain key
    and anchors as this one."""
    assert settings.database_url is not None
    env = {**os.environ, "DATABASE_URL": settings.database_url}
    if settings.chain_key_file is not None and not settings.chain_key:
        env["YOKAI_CHAIN_KEY_FILE"] = str(settings.chain_key_file)
    if settings.anchor_dir is not None:
        env["YOKAI_ANCHOR_DIR"] = str(settings.anchor_dir)
    return env


def _migrate(settings: Settings, url: str, *, grant: bool) -> None:
    """Migrate as the tables' owner; with ``grant`` (`yokai migrate`), then grant the
    service's role (YOKAI_APP_ROLE) what it needs of any new table. (`serve` run as the
    service's role finds the schema at its head and changes nothing.)"""
    owner = settings.migration_database_url or url
    migrate.upgrade(owner)
    if grant and settings.app_role:  # made if need be, its password set when given
        password = os.environ.get("YOKAI_APP_ROLE_PASSWORD") or None
        roles.grant_app_role(owner, settings.app_role, password)


def serve(host: str, port: int) -> int:
    """Migrate, then run gunicorn and (unless YOKAI_EMBEDDED_WORKER=0) one `yokai worker`
    beside it; signals are passed on to both, and the worker is stopped when gunicorn
    ends."""
    settings = Settings.from_env()
    logs.configure(settings.log_level, settings.log_format)
    settings, embedded = _database(settings)
    url = _url(settings)
    worker: subprocess.Popen[bytes] | None = None
    # One folder of metrics for this instance's processes (service/metrics.py), fresh:
    # files of processes of an earlier run would count again.
    own_metrics = not os.environ.get(MULTIPROC_ENV)
    metrics_dir = tempfile.mkdtemp(prefix="yokai-metrics-") if own_metrics else None
    try:
        check(settings)  # a clear error now, not a worker that fails to boot
        _migrate(settings, url, grant=False)
        env = _children_env(settings)
        if metrics_dir is not None:
            env[MULTIPROC_ENV] = metrics_dir
        command = [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}"]
        if GUNICORN_CONF.exists():
            command += ["--config", str(GUNICORN_CONF)]
        command.append("service.web.wsgi:app")
        child = subprocess.Popen(command, env=env)
        if settings.embedded_worker:
            # Its metrics are in this instance's folder: gunicorn's /metrics has them.
            worker_env = {k: v for k, v in env.items() if k != WORKER_METRICS_PORT_ENV}
            worker = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker"], env=worker_env
            )

        def forward(signum: int, _: FrameType | None) -> None:
            child.send_signal(signum)
            if worker is not None and signum != signal.SIGHUP:
                worker.send_signal(signum)

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, forward)
        return child.wait()
    finally:
        if worker is not None:
            _stop(worker)
        if embedded is not None:
            embedded.stop()
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _url(settings: Settings) -> str:
    assert settings.database_url is not None  # set by _database
    return settings.database_url


def _anchoring(settings: Settings) -> Anchoring | None:
    """The worker's anchoring of chain heads, when YOKAI_ANCHOR_DIR says where."""
    if settings.anchor_dir is None:
        log.warning(
            "YOKAI_ANCHOR_DIR is not set: chain heads are not anchored, so a deleted tail "
            "or a chain rewritten with the key goes unseen (docs/security.md)"
        )
        return None
    return Anchoring(
        AnchorDirectory(settings.anchor_dir, f"{socket.gethostname()}-{os.getpid()}"),
        every=timedelta(seconds=settings.anchor_seconds),
    )


def _stop(process: subprocess.Popen[bytes], grace: float = 30.0) -> None:
    """SIGTERM (the job in hand finishes), then SIGKILL if it is not over by ``grace``."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def migrate_only() -> int:
    """Apply the migrations and exit (a deployment's one-shot job); needs DATABASE_URL
    or the embedded server, as `serve` does."""
    settings, embedded = _database(Settings.from_env())
    url = _url(settings)
    try:
        _migrate(settings, url, grant=True)
        print(f"yokai migrate: at {migrate.head_revision(url)}", flush=True)
        return 0
    finally:
        if embedded is not None:
            embedded.stop()


def worker() -> int:
    """Run the worker until SIGTERM/SIGINT (see service/worker.py); with
    YOKAI_WORKER_METRICS_PORT, serve its metrics there meanwhile."""
    settings = Settings.from_env()
    logs.configure(settings.log_level, settings.log_format)
    with _built(settings) as (settings, container):
        return _work(settings, container)


def _work(settings: Settings, container: Container) -> int:
    """The worker loop on ``container`` until a signal; its metrics served meanwhile."""
    url = _url(settings)
    exposition = None
    try:
        if settings.worker_metrics_port is not None:
            host, port = settings.worker_metrics_host, settings.worker_metrics_port
            exposition = metrics.serve(host, port, container.stats.read)
            log.info("worker metrics on %s:%d", host, port)
        lease = timedelta(seconds=settings.worker_lease_seconds)
        sender = HttpSender(allow_private=settings.webhook_allow_private)
        runner = Worker(
            container.deps,
            settings.listen_database_url or url,  # LISTEN: a direct connection
            lease=lease,
            sender=sender,
            webhook_lease=timedelta(seconds=settings.webhook_lease_seconds),
            first_retry=settings.webhook_first_retry_seconds,
            keep_keys=timedelta(hours=settings.idempotency_keep_hours),
            waiting=timedelta(hours=settings.waiting_game_hours),
            webhook_keep=timedelta(days=settings.webhook_keep_days),
            heartbeat=settings.worker_heartbeat,
            anchoring=_anchoring(settings),
        )
        try:
            run_until_signalled(runner)
        finally:
            sender.close()  # after the worker: its attempts have ended and been recorded
        return 0
    finally:
        if exposition is not None:
            exposition.shutdown()


def check_alive(max_age: float) -> int:
    """Exit 0 while the worker's heartbeat (YOKAI_WORKER_HEARTBEAT) is at most
    ``max_age`` seconds old, 1 otherwise: the containers' health check and liveness
    probe. Reads one file: no database, no embedded server."""
    path = Settings.from_env().worker_heartbeat
    age = heartbeat_age(path)
    if age is None:
        print(f"yokai worker: no heartbeat at {path}", file=sys.stderr)
        return 1
    if age > max_age:
        print(f"yokai worker: last heartbeat {age:.0f} s ago (over {max_age:g} s)", file=sys.stderr)
        return 1
    print(f"yokai worker: alive (last heartbeat {age:.1f} s ago)")
    return 0


class _NotReadyError(Exception):
    """The database does not answer or is not migrated (exit status 2)."""


@contextmanager
def _built(settings: Settings) -> Iterator[tuple[Settings, Container]]:
    """The settings on ``DATABASE_URL`` (or the embedded server, started here) and the
    service's container on them; closed, and the embedded server stopped, at the end."""
    settings, embedded = _database(settings)
    try:
        container = build(settings)
        try:
            yield settings, container
        finally:
            container.close()
    finally:
        if embedded is not None:
            embedded.stop()


@contextmanager
def _opened(command: str) -> Iterator[Container]:
    """The service's container on ``DATABASE_URL`` (or the embedded server), migrated;
    :class:`_NotReadyError` when the database is not ready."""
    with _built(Settings.from_env()) as (_, container):
        ready, why = container.health.ready()
        if not ready:
            print(f"yokai {command}: {why}", file=sys.stderr)
            raise _NotReadyError(why)
        yield container


def verify(
    game_ids: list[str], every: bool, anchor_path: str | None = None, allow_unkeyed: bool = False
) -> int:
    """Exit 0 when every game is intact, 1 when one is broken (or an anchor line cannot
    be trusted), 2 when one is not found."""
    wanted = [_uuid(i) for i in game_ids]
    with _opened("verify") as container:
        keys = container.deps.chain
        anchored: dict[UUID, list[anchors.Anchor]] = {}
        untrusted = 0
        if anchor_path is not None:
            try:
                lines = list(anchor_files.read(Path(anchor_path)))
            except OSError as exc:
                print(f"yokai verify: {exc}", file=sys.stderr)
                return 2
            for where, found in lines:
                problem = (
                    found if isinstance(found, str) else anchors.signature_problem(keys, found)
                )
                if problem is not None:
                    untrusted += 1
                    print(f"anchor {where}: UNTRUSTED: {problem}")
                elif isinstance(found, anchors.Anchor):
                    anchored.setdefault(found.game_id, []).append(found)
            print(f"{sum(map(len, anchored.values()))} anchors of {len(anchored)} games read")
        ids = listing.game_ids(container.deps) if every else wanted
        if every:  # an anchored game gone from the database is a broken history too
            known = set(ids)
            ids += sorted(g for g in anchored if g not in known)
        broken = missing = 0
        for game_id in ids:
            mine = anchored.get(game_id, [])
            try:
                report = verify_game(container.deps, game_id, mine, allow_unkeyed=allow_unkeyed)
            except GameNotFoundError:
                if mine:
                    broken += 1
                    top = max(a.version for a in mine)
                    print(f"game {game_id}: BROKEN: anchored at version {top}, not in the database")
                    continue
                missing += 1
                print(f"game {game_id}: not found")
                continue
            if report.intact:
                notes = [f"{report.events} events"]
                if report.unkeyed:
                    notes.append(f"the first {report.unkeyed} unkeyed, from before the chain key")
                if mine:
                    notes.append(f"anchored at version {max(a.version for a in mine)}")
                print(f"game {game_id}: intact ({'; '.join(notes)})")
            else:
                broken += 1
                print(f"game {game_id}: BROKEN at seq {report.bad_seq}: {report.reason}")
        if every:
            print(f"{len(ids) - broken} of {len(ids)} games intact")
        return 1 if broken or untrusted else 2 if missing else 0


def export(since: str | None, status: str | None, output: str | None) -> int:
    """Every game's record as NDJSON (as GET /v1/export), to ``output`` or stdout."""
    start = None
    if since is not None:
        try:
            start = datetime.fromisoformat(since)
        except ValueError:
            raise SystemExit(f"yokai export: --since {since!r} is not an ISO 8601 time") from None
        if start.tzinfo is None:
            raise SystemExit("yokai export: --since needs a time zone (e.g. 2026-11-24T00:00Z)")
    with _opened("export") as container:
        out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
        try:
            count = 0
            for item in queries.export(container.deps, Operator(), status, start):
                out.write(queries.export_line(*item).decode())
                count += 1
        finally:
            if output:
                out.close()
        print(f"yokai export: {count} games", file=sys.stderr)
        return 0


def import_record(path: str) -> int:
    """Import one record file (text, as GET /record gives it): exit 0 with the new game's
    id, 1 when it is refused (the reason names the line)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemExit(f"yokai import: {exc}") from None
    with _opened("import") as container:
        try:
            ctx = Context(Operator(CLI_OPERATOR), request_id=uuid4().hex)
            done = execute(container.deps, ImportRecord(text), ctx)
        except InvalidInputError as exc:
            print(f"yokai import: {path}: {exc} ({exc.code})", file=sys.stderr)
            return 1
        print(f"game {done.result.game_id}: imported ({done.result.version} events)")
        return 0


def create_app_role(role: str, password_env: str | None) -> int:
    """Create (or update) the service's role as the tables' owner and print the
    DATABASE_URL the service should use."""
    settings = Settings.from_env()
    owner = settings.migration_database_url or settings.database_url
    if not owner:
        print(
            "yokai db create-app-role: set YOKAI_MIGRATION_DATABASE_URL (or DATABASE_URL) "
            "to the tables' owner",
            file=sys.stderr,
        )
        return 2
    password = os.environ.get(password_env) if password_env else roles.new_password()
    if not password:
        print(f"yokai db create-app-role: {password_env} is empty", file=sys.stderr)
        return 2
    try:
        url = roles.grant_app_role(owner, role, password)
    except ValueError as exc:
        print(f"yokai db create-app-role: {exc}", file=sys.stderr)
        return 2
    print(url)
    return 0


def operator_command(action: str, name: str | None) -> int:
    """`yokai operator create NAME` (prints the new token, once), `revoke NAME`, `list`:
    operator tokens kept in the database, by name, as the tables' owner."""
    settings, embedded = _database(Settings.from_env())
    owner = settings.migration_database_url or _url(settings)
    try:
        if action == "list":
            for found, created, revoked in pg_operators.listing(owner):
                state = f"revoked {revoked.isoformat()}" if revoked else "active"
                print(f"{found}\tcreated {created.isoformat()}\t{state}")
            return 0
        assert name is not None
        if action == "revoke":
            if not pg_operators.revoke(owner, name):
                print(f"yokai operator revoke: no active operator {name!r}", file=sys.stderr)
                return 2
            print(f"operator {name}: revoked")
            return 0
        taken = {DEFAULT_OPERATOR, *operator_tokens(settings)}  # named by the settings
        if not valid_operator_name(name) or name in taken:
            print(
                f"yokai operator create: {name!r}: a name {OPERATOR_NAMES}, not one of "
                "YOKAI_OPERATOR_TOKEN(S) ('operator' is YOKAI_OPERATOR_TOKEN's)",
                file=sys.stderr,
            )
            return 2
        token = new_operator_token()
        try:
            pg_operators.create(owner, name, token_digest(token))
        except pg_operators.OperatorExistsError:
            print(
                f"yokai operator create: {name!r} exists (names are never reused)", file=sys.stderr
            )
            return 2
        print(token)  # shown once: only its SHA-256 is kept
        return 0
    finally:
        if embedded is not None:
            embedded.stop()


def _uuid(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise SystemExit(f"yokai verify: {text!r} is not a game id") from None


def openapi(output: str | None) -> int:
    text = openapi_yaml()
    if output:
        Path(output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="yokai", description="Yokai Septet game server")
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="apply migrations, then serve the API with gunicorn")
    p_serve.add_argument("--host", default="127.0.0.1")
    p_serve.add_argument("--port", type=int, default=8000)
    p_worker = sub.add_parser(
        "worker", help="run the worker: bots, clocks, webhooks (until SIGTERM)"
    )
    p_worker.add_argument(
        "--check-alive",
        action="store_true",
        help="do not run: exit 0 if the worker's heartbeat is recent, else 1 (a probe)",
    )
    p_worker.add_argument(
        "--max-age",
        type=float,
        default=ALIVE_SECONDS,
        metavar="SECONDS",
        help=f"with --check-alive: the oldest heartbeat still alive (default {ALIVE_SECONDS:g})",
    )
    sub.add_parser("migrate", help="apply the database migrations, then exit")
    p_verify = sub.add_parser("verify", help="check hash chains and replay stored games")
    p_verify.add_argument("game_ids", nargs="*", metavar="GAME_ID")
    p_verify.add_argument("--all", action="store_true", help="every game in the database")
    p_verify.add_argument(
        "--anchors",
        metavar="PATH",
        help="a folder (YOKAI_ANCHOR_DIR) or file of anchors: each anchored head must hold",
    )
    p_verify.add_argument(
        "--allow-unkeyed",
        action="store_true",
        help="accept chains hashed without a key to their end (from before the chain key)",
    )
    p_export = sub.add_parser("export", help="write every game's record as NDJSON")
    p_export.add_argument("--since", help="games that changed at or after this ISO 8601 time")
    p_export.add_argument("--status", choices=["waiting", "passing", "playing", "finished"])
    p_export.add_argument("--output", "-o", help="a file (default: standard output)")
    p_import = sub.add_parser("import", help="import a finished game's hand record")
    p_import.add_argument("file", help="a record as text (docs/record-format.md)")
    p_db = sub.add_parser("db", help="database administration")
    db_sub = p_db.add_subparsers(dest="db_command", required=True)
    p_role = db_sub.add_parser(
        "create-app-role",
        help="create the service's least-privilege role; print its DATABASE_URL",
    )
    p_role.add_argument("role", nargs="?", default="yokai_app")
    p_role.add_argument(
        "--password-env", metavar="VAR", help="take the password from this variable"
    )
    p_operator = sub.add_parser("operator", help="operator tokens kept in the database")
    op_sub = p_operator.add_subparsers(dest="operator_command", required=True)
    p_create = op_sub.add_parser("create", help="make a named operator token; print it once")
    p_create.add_argument("name")
    p_revoke = op_sub.add_parser("revoke", help="revoke a named operator token")
    p_revoke.add_argument("name")
    op_sub.add_parser("list", help="the operators kept in the database")
    p_openapi = sub.add_parser("openapi", help="print the OpenAPI document (YAML)")
    p_openapi.add_argument("--output", "-o")
    args = parser.parse_args(argv)
    try:
        return _run(parser, args)
    except _NotReadyError:
        return 2
    except ConfigurationError as exc:
        print(f"yokai {args.command}: {exc}", file=sys.stderr)
        return 2


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "serve":
        return serve(args.host, args.port)
    if args.command == "worker":
        return check_alive(args.max_age) if args.check_alive else worker()
    if args.command == "migrate":
        return migrate_only()
    if args.command == "verify":
        if bool(args.game_ids) == args.all:
            parser.error("give GAME_ID(s) or --all")
        return verify(args.game_ids, args.all, args.anchors, args.allow_unkeyed)
    if args.command == "export":
        return export(args.since, args.status, args.output)
    if args.command == "import":
        return import_record(args.file)
    if args.command == "operator":
        return operator_command(args.operator_command, getattr(args, "name", None))
    if args.command == "db":
        return create_app_role(args.role, args.password_env)
    return openapi(args.output)


if __name__ == "__main__":
    sys.exit(main())
