"""The command registry: one entry per command, each handler taking its command.

mypy checks that each handler gives the result its command declares
(``commands.Returns``); what it cannot check, that the handler and its authorization
take that command, is checked here.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

import pytest

from service.application.commands import Command
from service.application.write.registry import HANDLERS

COMMANDS = typing.get_args(Command)


def test_every_command_has_one_handler() -> None:
    assert set(HANDLERS) == set(COMMANDS)
    assert len(COMMANDS) == len(set(COMMANDS))


def _takes(function: Callable[..., Any]) -> tuple[type, ...]:
    """The types the function's first parameter admits."""
    first = next(iter(inspect.signature(function).parameters))
    hint = typing.get_type_hints(function)[first]
    return typing.get_args(hint) or (hint,)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.__name__)
def test_each_handler_and_its_authorization_take_their_command(command: type) -> None:
    registered = HANDLERS[command]
    assert command in _takes(registered.handle)
    assert command in _takes(registered.authorize)
