"""Stored events <-> engine events, with upcasting of older schema versions.

Old events are never rewritten. When an event's data changes shape, bump
``service.rules.SCHEMA_VERSION`` and register an upcaster here from the old version to
the next; golden fixtures of every stored version keep replaying (tests/integration).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.application.integrity.chain import Unchained
from service.application.ports import Actor, StoredEvent
from service.rules import SCHEMA_VERSION, Event, EventDataError, from_data, to_data

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

# (event type, stored schema version) -> function giving the data of version + 1.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcast(event_type: str, version: int, data: dict[str, Any]) -> dict[str, Any]:
    while version < SCHEMA_VERSION:
        step = UPCASTERS.get((event_type, version))
        if step is None:
            raise EventDataError(f"no upcaster for {event_type} v{version}")
        data = step(data)
        version += 1
    if version > SCHEMA_VERSION:
        raise EventDataError(f"{event_type} v{version} is newer than this server")
    return data


def decode(stored: StoredEvent) -> Event:
    return from_data(stored.type, upcast(stored.type, stored.schema_version, stored.data))


def encode(event: Event, actor: Actor) -> Unchained:
    return Unchained(type(event).TYPE, SCHEMA_VERSION, to_data(event), actor)
