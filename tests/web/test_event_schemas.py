"""One schema per event type in the contract: what each viewer's feed sends is what the
committed OpenAPI document says, and nothing else is.

The schemas are derived from the events' declarations (service/web/games/
event_schemas.py), the feed sends ``to_data`` of each event as the viewer may see it
(service/application/games/queries/feeds.py): these tests hold the two together, over
every golden history as every viewer sees it and over a feed read through HTTP.
"""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from service.rules import OPERATOR, PUBLIC, SeatViewer, Viewer, redact, to_data
from service.rules.events import EVENT_CLASSES, EVENT_TYPES
from service.rules.fieldcodec import record
from tests.integration.test_golden_events import FILES, decoded, fixture
from tests.support.api import Api

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"


@cache
def _document() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMMITTED.read_text())
    return loaded


def _schemas() -> dict[str, Any]:
    schemas: dict[str, Any] = _document()["components"]["schemas"]
    return schemas


@cache
def _validator(component: str) -> Draft202012Validator:
    """A validator of the component, its references resolved in the document."""
    return Draft202012Validator(
        {"$ref": f"#/components/schemas/{component}", "components": _document()["components"]}
    )


def _by_type(item: dict[str, Any]) -> Draft202012Validator:
    """The schema the discriminator picks for a feed item, as a generated client would."""
    ref = _schemas()["FeedEvent"]["discriminator"]["mapping"][item["type"]]
    return _validator(ref.rsplit("/", 1)[1])


def _item(seq: int, event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "seq": seq,
        "type": event_type,
        "data": data,
        "recorded_at": "2026-01-01T00:00:00+00:00",
        "actor": {"kind": "seat", "seat": 0},
    }


def test_the_feed_event_is_one_schema_per_event_type_chosen_by_its_type() -> None:
    feed_event = _schemas()["FeedEvent"]
    mapping = feed_event["discriminator"]["mapping"]
    assert feed_event["discriminator"]["propertyName"] == "type"
    assert set(mapping) == EVENT_TYPES
    assert [r["$ref"] for r in feed_event["oneOf"]] == list(mapping.values())
    for event_type, ref in mapping.items():
        member = _schemas()[ref.rsplit("/", 1)[1]]
        assert member["properties"]["type"]["enum"] == [event_type]
        assert set(member["required"]) == {"seq", "type", "data", "recorded_at", "actor"}


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.TYPE)
def test_each_data_schema_has_the_keys_the_event_is_stored_with(cls: type) -> None:
    data = _schemas()[f"{cls.__name__}Data"]
    slots = record(cls).slots
    assert list(data["properties"]) == [s.key for s in slots]
    assert set(data.get("required", [])) == {s.key for s in slots if s.always_written}
    assert data["additionalProperties"] is False


def _viewers(players: int) -> list[Viewer]:
    return [OPERATOR, PUBLIC, *(SeatViewer(s) for s in range(players))]


@pytest.mark.parametrize("name", FILES)
def test_every_golden_event_as_each_viewer_sees_it_is_what_the_contract_says(name: str) -> None:
    fx = fixture(name)
    for seq, event in enumerate(decoded(fx["events"]), start=1):
        for viewer in _viewers(fx["players"]):
            item = _item(seq, event.TYPE, to_data(redact(event, viewer)))
            errors = [e.message for e in _by_type(item).iter_errors(item)]
            assert errors == [], (name, seq, viewer, item)


def test_a_feed_read_over_http_is_what_the_contract_says(api: Api) -> None:
    game = api.start(4)
    rng = random.Random(41)
    for _ in range(12):
        views = [api.view(game, s) for s in range(4)]
        if api.random_move(game, views, rng) is None:
            break
    feeds = [api.feed(game, seat) for seat in (None, 0, 1, 2, 3)]
    types = {item["type"] for item in feeds[0]}
    assert {"GameCreated", "SeatJoined", "RoundDealt", "CardsPassed", "CardPlayed"} <= types
    whole = _validator("FeedEvent")  # oneOf: exactly one member admits each item
    for feed in feeds:
        for item in feed:
            assert [e.message for e in whole.iter_errors(item)] == [], item


def _valid(item: dict[str, Any]) -> bool:
    return bool(_validator("FeedEvent").is_valid(item))


def test_what_no_event_is_stored_as_is_refused() -> None:
    assert _valid(_item(9, "CardPlayed", {"seat": 1, "card": "green-1"}))
    assert _valid(_item(1, "SeatJoined", {"seat": 1, "name": "Mio", "bot": "basic"}))
    refused = [
        _item(9, "CardPlayed", {"number": 1, "winner": 2}),  # a TrickTaken's data
        _item(9, "CardPlayed", {"seat": 1, "card": None}),  # no viewer has it hidden
        _item(9, "CardPlayed", {"seat": 1, "card": "green-9"}),  # no such card
        _item(9, "CardPlayed", {"seat": 1, "card": "green-1", "extra": 1}),
        _item(1, "SeatJoined", {"seat": 1, "name": "Mio", "bot": None}),  # left out, not null
        _item(1, "GameCreated", {"players": 4, "scoring": "basic", "variant": "standard"}),
        _item(9, "CardDrawn", {"seat": 1, "card": "green-1"}),
    ]
    assert [item for item in refused if _valid(item)] == []


def test_docs_api_md_lists_every_event_type_with_its_keys() -> None:
    """docs/api.md's table of events: every type, each key of its data, and which are
    left out when not set (those after "when set"), as the declarations say."""
    text = (COMMITTED.parents[1] / "docs" / "api.md").read_text()
    section = text[text.index("### The events feed") : text.index("### Operator reads")]
    table = section.split("| `type` | `data` | who sees what |")[1]
    rows = {
        cells[1].strip("` "): cells[2]
        for line in table.splitlines()
        if line.strip().startswith("| `") and len(cells := line.strip().split("|")) == 5
    }
    assert set(rows) == EVENT_TYPES
    for cls in EVENT_CLASSES:
        always, _, when_set = rows[cls.TYPE].partition("when set:")
        slots = record(cls).slots
        assert {s.key for s in slots if s.always_written} <= set(re.findall(r"`(\w+)`", always))
        assert {s.key for s in slots if not s.always_written} <= set(
            re.findall(r"`(\w+)`", when_set)
        ), cls.TYPE
        assert not {s.key for s in slots if s.always_written} & set(
            re.findall(r"`(\w+)`", when_set)
        ), cls.TYPE
