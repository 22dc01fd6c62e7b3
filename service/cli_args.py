"""The `yokai` command's arguments: every subcommand and argument with its help, the
defaults shown, and `--version` (docs/cli.md). service/cli.py runs what they ask for."""

from __future__ import annotations

import argparse
from importlib import metadata

from service import API_VERSION
from service.rules import PUBLIC_STATUSES, BotLevel, Scoring, Variant
from service.settings import default_data_dir
from service.worker import ALIVE_SECONDS

DISTRIBUTION = "yokai-septet-server"


def version() -> str:
    """The installed package's version (pyproject.toml's), or why there is none."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (the package is not installed)"


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Each argument's default after its help (none for flags and unset options); the
    description and epilog as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or isinstance(action.default, list):
            return action.help
        return super()._get_help_string(action)


def _serve_epilog() -> str:
    return f"""\
The database: DATABASE_URL (a postgresql:// URL). Unset, an embedded PostgreSQL runs
in YOKAI_DATA_DIR (default: {default_data_dir()}) and stops with serve.
Every setting is an environment variable: docs/configuration.md lists each with its
default (README.md, "Configuration"); YOKAI_WORKERS sets gunicorn's workers (default:
one per core).

Once it answers, serve prints "open http://HOST:PORT/" on standard error: the web
client is there. Ctrl-C (or SIGTERM) stops it: requests in hand finish first."""


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="yokai",
        description="Yokai Septet game server: the HTTP API, its worker and their tools.",
        epilog="`yokai COMMAND --help` describes each command; docs/cli.md all of them.",
        formatter_class=_Formatter,
    )
    main.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {version()} (HTTP API {API_VERSION})",
        help="print the version (the package's, and the HTTP contract's)",
    )
    sub = main.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(
        name: str, help: str, parent: argparse._SubParsersAction[argparse.ArgumentParser] = sub
    ) -> argparse.ArgumentParser:
        return parent.add_parser(name, help=help, description=help, formatter_class=_Formatter)

    p_serve = command("serve", "apply the migrations, then serve the API with gunicorn")
    p_serve.description = """\
Apply the database migrations, then serve the API and the web client with gunicorn
(deploy/gunicorn.conf.py), with one `yokai worker` beside it (bots, turn clocks,
webhooks) unless YOKAI_EMBEDDED_WORKER=0."""
    p_serve.epilog = _serve_epilog()
    p_serve.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (0.0.0.0: every one)"
    )
    p_serve.add_argument("--port", type=int, default=8000, help="the TCP port to listen on")

    p_worker = command("worker", "run the worker: bots, clocks, webhooks (until SIGTERM)")
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
        help="with --check-alive: the oldest heartbeat still alive",
    )
    p_relay = command(
        "relay", "announce committed commands on Redis (YOKAI_REDIS_URL) until SIGTERM"
    )
    p_relay.description = """\
Announce each committed command on the message bus (Redis pub/sub, YOKAI_REDIS_URL), in
commit order, for the nodes of a deployment. Run one or more: one holds the relay's lock
and announces, the others wait to take over (docs/operations.md, "The relay")."""
    command("migrate", "apply the database migrations, then exit")

    p_verify = command("verify", "check hash chains and replay stored games")
    p_verify.add_argument(
        "game_ids", nargs="*", metavar="GAME_ID", help="the games to check (or --all)"
    )
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

    p_export = command("export", "write every game's record as NDJSON")
    p_export.add_argument(
        "--since", metavar="TIME", help="games that changed at or after this ISO 8601 time"
    )
    p_export.add_argument("--status", choices=PUBLIC_STATUSES, help="games of this status only")
    p_export.add_argument("--output", "-o", metavar="FILE", help="a file (else standard output)")

    p_review = command("review", "print a finished game's hand review as JSON")
    p_review.add_argument("game_id", metavar="GAME_ID", help="the game's id")

    p_import = command("import", "import a finished game's hand record")
    p_import.add_argument("file", help="a record as text (docs/record-format.md)")

    p_db = command("db", "database administration")
    db_sub = p_db.add_subparsers(dest="db_command", required=True, metavar="COMMAND")
    p_role = command(
        "create-app-role",
        "create the service's least-privilege role; print its DATABASE_URL",
        db_sub,
    )
    p_role.add_argument("role", nargs="?", default="yokai_app", help="the role's name")
    p_role.add_argument(
        "--password-env",
        metavar="VAR",
        help="take the password from this variable (else a random one)",
    )

    p_operator = command("operator", "operator tokens kept in the database")
    op_sub = p_operator.add_subparsers(dest="operator_command", required=True, metavar="COMMAND")
    p_create = command("create", "make a named operator token; print it once", op_sub)
    p_create.add_argument("name", help="the operator's name, as the audit shows it")
    p_revoke = command("revoke", "revoke a named operator token", op_sub)
    p_revoke.add_argument("name", help="the operator's name")
    command("list", "the operators kept in the database", op_sub)

    p_bots = command("bots", "bot levels")
    bots_sub = p_bots.add_subparsers(dest="bots_command", required=True, metavar="COMMAND")
    p_match = command(
        "match", "two levels against each other on duplicate deals; prints JSON", bots_sub
    )
    levels = [b.value for b in BotLevel]
    p_match.add_argument("--a", required=True, choices=levels, help="the first level")
    p_match.add_argument("--b", required=True, choices=levels, help="the level it plays against")
    p_match.add_argument("--players", type=int, choices=(3, 4), default=4, help="players a game")
    p_match.add_argument(
        "--variant", choices=[v.value for v in Variant], default="standard", help="the deck"
    )
    p_match.add_argument(
        "--scoring", choices=[s.value for s in Scoring], default="basic", help="the scoring"
    )
    p_match.add_argument("--games", type=int, default=100, help="how many games")
    p_match.add_argument("--seed", type=int, default=2026, help="the deals' seed")

    p_ratings = command("ratings", "players' ratings")
    ratings_sub = p_ratings.add_subparsers(dest="ratings_command", required=True, metavar="COMMAND")
    command("rebuild", "recompute every ladder from the rated games", ratings_sub)

    p_reputation = command("reputation", "players' reputations and bans")
    reputation_sub = p_reputation.add_subparsers(
        dest="reputation_command", required=True, metavar="COMMAND"
    )
    command("rebuild", "derive every reputation again from the games' events", reputation_sub)

    p_privacy = command("privacy", "personal data (docs/privacy.md)")
    privacy_sub = p_privacy.add_subparsers(dest="privacy_command", required=True, metavar="COMMAND")
    command(
        "reseal",
        "seal the personal data written before it was sealed (run once after upgrading "
        "past migration 0014, as the tables' owner)",
        privacy_sub,
    )
    p_openapi = command("openapi", "print the OpenAPI document (YAML)")
    p_openapi.add_argument("--output", "-o", metavar="FILE", help="a file (else standard output)")
    return main
