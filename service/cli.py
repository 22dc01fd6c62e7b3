"""The `yokai` command: serve the API, run the worker, verify stored histories, write the
OpenAPI file."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from uuid import UUID, uuid4

from service import bootstrap, cli_args, supervisor
from service.adapters import migrate
from service.adapters.integrity import anchor_files
from service.adapters.postgres import operators as pg_operators
from service.adapters.postgres import roles
from service.application.commands import Context, ImportRecord
from service.application.errors import GameNotFoundError, InvalidInputError
from service.application.handrecords import queries
from service.application.identity.bearer import new_operator_token, token_digest
from service.application.identity.principals import CLI_OPERATOR, DEFAULT_OPERATOR, Operator
from service.application.integrity import audit
from service.application.privacy import reveal
from service.application.ratings import update as rating_updates
from service.application.reputation import rebuild as reputation_rebuild
from service.application.review import jobs as review_jobs
from service.application.review.handlers import GameNotFinishedError
from service.application.write.registry import execute
from service.bootstrap import (
    OPERATOR_NAMES,
    Container,
    operator_tokens,
    valid_operator_name,
)
from service.bots.match import match
from service.rules import Scoring, Variant
from service.settings import ConfigurationError, Settings
from service.web.app import openapi_yaml
from service.worker import heartbeat_age

log = logging.getLogger("yokai.cli")


def migrate_only() -> int:
    """Apply the migrations and exit (a deployment's one-shot job); needs DATABASE_URL
    or the embedded server, as `serve` does."""
    settings, embedded = bootstrap.database(Settings.from_env())
    try:
        bootstrap.migrated(settings, grant=True)
        print(
            f"yokai migrate: at {migrate.head_revision(bootstrap.database_url(settings))}",
            flush=True,
        )
        return 0
    finally:
        if embedded is not None:
            embedded.stop()


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
def _opened(command: str) -> Iterator[Container]:
    """The service's container on ``DATABASE_URL`` (or the embedded server), migrated;
    :class:`_NotReadyError` when the database is not ready."""
    with bootstrap.built(Settings.from_env()) as (_, container):
        ready, why = container.health.ready()
        if not ready:
            print(f"yokai {command}: {why}", file=sys.stderr)
            raise _NotReadyError(why)
        yield container


def verify(
    game_ids: list[str], every: bool, anchor_path: str | None = None, allow_unkeyed: bool = False
) -> int:
    """Exit 0 when every game is intact, 1 when one is broken (or an anchor line cannot
    be trusted), 2 when one is not found (integrity/audit.py decides; this prints)."""
    wanted = [_uuid(i) for i in game_ids]
    with _opened("verify") as container:
        book = audit.AnchorBook()
        if anchor_path is not None:
            try:
                lines = list(anchor_files.read(Path(anchor_path)))
            except OSError as exc:
                print(f"yokai verify: {exc}", file=sys.stderr)
                return 2
            book = audit.trusted(container.deps.chain, lines)
            for where, problem in book.untrusted:
                print(f"anchor {where}: UNTRUSTED: {problem}")
            print(f"{book.count} anchors of {len(book.by_game)} games read")
        ids = audit.games(container.deps, wanted, every, book)
        verdicts = []
        for verdict in audit.verdicts(container.deps, ids, book, allow_unkeyed=allow_unkeyed):
            verdicts.append(verdict)
            print(_verdict_line(verdict))
        if every:
            broken = sum(v.outcome is audit.Outcome.BROKEN for v in verdicts)
            print(f"{len(ids) - broken} of {len(ids)} games intact")
        return audit.exit_status(verdicts, book)


def _verdict_line(verdict: audit.Verdict) -> str:
    game, report, top = verdict.game_id, verdict.report, verdict.anchored_at
    if report is None:
        if verdict.outcome is audit.Outcome.MISSING:
            return f"game {game}: not found"
        return f"game {game}: BROKEN: anchored at version {top}, not in the database"
    if not report.intact:
        return f"game {game}: BROKEN at seq {report.bad_seq}: {report.reason}"
    notes = [f"{report.events} events"]
    if report.unkeyed:
        notes.append(f"the first {report.unkeyed} unkeyed, from before the chain key")
    if top is not None:
        notes.append(f"anchored at version {top}")
    return f"game {game}: intact ({'; '.join(notes)})"


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
                line = reveal.json_bytes(container.deps.vault, queries.export_line(*item))
                out.write(line.decode())
                count += 1
        finally:
            if output:
                out.close()
        print(f"yokai export: {count} games", file=sys.stderr)
        return 0


def review(game_id: str) -> int:
    """`yokai review GAME_ID`: the game's hand review as one JSON object (docs/cli.md):
    the stored one once the worker has done it, else computed here (not stored). Exit 2
    when there is no such game, 1 when it is not over."""
    try:
        game = UUID(game_id)
    except ValueError:
        print(f"yokai review: {game_id!r} is not a game id", file=sys.stderr)
        return 2
    with _opened("review") as container:
        try:
            found = review_jobs.computed(container.deps, game)
        except GameNotFoundError as exc:
            print(f"yokai review: {exc.detail}", file=sys.stderr)
            return 2
        except GameNotFinishedError as exc:
            print(f"yokai review: {exc.detail}", file=sys.stderr)
            return 1
    print(json.dumps(found))
    return 0


def bots_match(args: argparse.Namespace) -> int:
    """`yokai bots match`: one JSON object (docs/cli.md); the search levels are bound by
    their worlds, not a clock: a run is repeatable from its seed."""
    variant = Variant(args.variant)
    if variant is not Variant.STANDARD and args.players != 4:
        print("yokai bots match: the Seven Followers variants are for 4 players", file=sys.stderr)
        return 2
    found = match(
        args.a, args.b, args.players, variant, Scoring(args.scoring), args.games, args.seed
    )
    print(json.dumps(found))
    return 0


def ratings_rebuild() -> int:
    """Every ladder recomputed from the finished rated games, in the order their updates
    were made (docs/cli.md): it ends with the ratings the workers produced."""
    with _opened("ratings") as container:
        count = rating_updates.rebuild(container.deps)
        print(f"yokai ratings rebuild: {count} games applied")
        return 0


def reputation_rebuilt() -> int:
    """Every reputation derived again from the games' events (docs/cli.md): it ends with
    what the commands kept."""
    with _opened("reputation") as container:
        done = reputation_rebuild.rebuild(container.deps)
        print(
            f"yokai reputation rebuild: {done.marks} marks of {done.games} games, "
            f"{done.players} players"
        )
        return 0


def privacy_reseal() -> int:
    """Seal the names, client addresses and client request ids written before they were
    sealed (docs/privacy.md); exit 1 when a game's chain did not verify (left as it is)."""
    with bootstrap.built(Settings.from_env()) as (settings, container):
        ready, why = container.health.ready()
        if not ready:
            print(f"yokai privacy: {why}", file=sys.stderr)
            return 2
        report = bootstrap.reseal(settings, container)
    for game_id, why in report.skipped:
        print(f"game {game_id}: not resealed, its chain is broken: {why}", file=sys.stderr)
    print(
        f"yokai privacy reseal: {report.players} player names, {report.events} events "
        f"of {report.games} games sealed"
    )
    return 1 if report.skipped else 0


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
    settings, embedded = bootstrap.database(Settings.from_env())
    owner = settings.migration_database_url or bootstrap.database_url(settings)
    try:
        if action == "list":
            found_any = False
            for found, created, revoked in pg_operators.listing(owner):
                state = f"revoked {revoked.isoformat()}" if revoked else "active"
                print(f"{found}\tcreated {created.isoformat()}\t{state}")
                found_any = True
            if not found_any:  # on stderr: the listing itself stays empty for scripts
                print(
                    "yokai operator list: no operators in the database (yokai operator "
                    "create NAME makes one; those of YOKAI_OPERATOR_TOKEN(S) are not listed)",
                    file=sys.stderr,
                )
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
    parser = cli_args.parser()
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
        return supervisor.serve(Settings.from_env(), args.host, args.port)
    if args.command == "worker":
        return (
            check_alive(args.max_age) if args.check_alive else supervisor.work(Settings.from_env())
        )
    if args.command == "relay":
        return supervisor.relay(Settings.from_env())
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
    if args.command == "review":
        return review(args.game_id)
    if args.command == "operator":
        return operator_command(args.operator_command, getattr(args, "name", None))
    if args.command == "bots":
        return bots_match(args)
    if args.command == "ratings":
        return ratings_rebuild()
    if args.command == "reputation":
        return reputation_rebuilt()
    if args.command == "privacy":
        return privacy_reseal()
    if args.command == "db":
        return create_app_role(args.role, args.password_env)
    return openapi(args.output)


if __name__ == "__main__":
    sys.exit(main())
