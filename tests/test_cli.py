"""The `yokai` command's own help (issue 33 item 14): every subcommand and argument says
what it is for, `serve --help` says where its database and settings come from, and
`--version` names the package's version. No database: nothing here starts a command."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from importlib import metadata

import pytest

from service import cli, cli_args


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(cli_args.parser()))


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as ended:
        cli.main(argv)
    assert ended.value.code == 0
    return capsys.readouterr().out


def test_every_command_and_argument_has_help() -> None:
    assert len(COMMANDS) > 15
    for path, parser in COMMANDS:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                listed = {a.dest: a.help for a in action._choices_actions}
                assert set(listed) == set(action.choices), path
                assert all(listed.values()), (path, listed)
            else:
                assert action.help, (path, action.dest)
        assert parser.description, path


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_each_commands_help_prints(
    path: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help([*path, "--help"], capsys)
    assert text.startswith("usage: yokai")


def test_serve_help_says_where_the_database_and_the_settings_come_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = " ".join(_help(["serve", "--help"], capsys).split())  # however wide the terminal
    assert "Apply the database migrations, then serve" in text  # a description
    assert "(default: 127.0.0.1)" in text and "(default: 8000)" in text
    for named in ("DATABASE_URL", "YOKAI_DATA_DIR", "docs/configuration.md", "Configuration"):
        assert named in text, named
    assert "open http://HOST:PORT/" in text


def test_flags_and_unset_options_show_no_default(capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(_help(["verify", "--help"], capsys).split())
    assert "(default: None)" not in text and "(default: False)" not in text
    assert "(default: 60.0)" in " ".join(_help(["worker", "--help"], capsys).split())


def test_version_prints_the_packages_version(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(["--version"], capsys)
    # The package's version, and the contract's (the OpenAPI document's info.version).
    assert text == f"yokai {metadata.version('yokai-septet-server')} (HTTP API 1.0.0)\n"


def test_the_relay_refuses_to_start_without_redis(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said before any database is touched (unset DATABASE_URL would start the embedded
    server for nothing)."""
    monkeypatch.delenv("YOKAI_REDIS_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert cli.main(["relay"]) == 2
    assert "YOKAI_REDIS_URL must be set" in capsys.readouterr().err
