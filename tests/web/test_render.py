"""Views are rendered by a plain walk over their dataclasses (service.web.render.json_ready),
not by marshmallow, for speed; the schemas stay the OpenAPI document. The two must agree
on every view: public, each seat's and the operator's, at every step of random games of
every configuration. Answers are written by orjson in the very bytes Flask's jsonify
wrote for them (service.web.render.json_body), the inbox in its schemas' shape."""

from __future__ import annotations

import dataclasses
import json
import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import marshmallow as ma
import pytest
from flask import Flask, jsonify

from service.application.games.ports import InboxEntry
from service.application.ports import ActorKind
from service.application.results import Feed, FeedActor, FeedEvent, InboxPage, Versioned
from service.bots.selfplay import play_game
from service.rules import (
    OPERATOR,
    PUBLIC,
    Scoring,
    SeatViewer,
    Variant,
    observe,
    redact,
    to_data,
)
from service.web.games.feed_schemas import FeedSchema
from service.web.games.view_schemas import GameViewSchema, OperatorStateSchema, SeatViewSchema
from service.web.players import routes as players  # its module gives the inbox its shape
from service.web.players.schemas import InboxSchema
from service.web.render import json_body, json_ready, rendered, shaped_by, view_response

CONFIGS = [
    (4, Scoring.BASIC, Variant.STANDARD),
    (3, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.ADVANCED, Variant.SEVEN_FOLLOWERS_SHORT),
]


def view_body(versioned: Versioned[Any]) -> dict[str, Any]:
    """A view as the mapping its schema dumps (nested dataclasses stay objects)."""
    view = versioned.view
    fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(view)}
    return {"id": versioned.game_id, "version": versioned.version, **fields}


def as_json(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


@pytest.fixture(autouse=True)
def app_context() -> Iterator[None]:
    """jsonify, as the answers were written before orjson, asks the app for its JSON."""
    with Flask(__name__).app_context():
        yield


def written_as_before(value: Any) -> bytes:
    return jsonify(json_ready(value)).get_data()


def agree(schema: ma.Schema, versioned: Versioned[Any]) -> None:
    assert as_json(rendered(versioned)) == as_json(schema.dump(view_body(versioned)))
    answer = view_response(versioned)
    assert answer.get_data() == jsonify(rendered(versioned)).get_data()
    assert answer.headers["Content-Type"] == "application/json"


@pytest.mark.parametrize(("players", "scoring", "variant"), CONFIGS)
def test_every_view_renders_as_its_schema_dumps_it(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    game_id = uuid.uuid4()
    public, seat, operator = GameViewSchema(), SeatViewSchema(), OperatorStateSchema()
    steps = 0
    for version, step in enumerate(play_game(players, scoring, variant, rng=random.Random(7))):
        state = step.after
        agree(public, Versioned(game_id, version, observe(state, PUBLIC)))
        agree(operator, Versioned(game_id, version, observe(state, OPERATOR)))
        for viewer in range(players):
            agree(seat, Versioned(game_id, version, observe(state, SeatViewer(viewer))))
        steps += 1
    assert steps > 50  # a whole game, through passes, tricks, rounds and its end


def test_a_renamed_field_keeps_its_schema_name() -> None:
    """``pass_`` in the dataclass is ``pass`` on the wire, as SeatViewSchema names it."""
    game = next(
        step.after
        for step in play_game(4, Scoring.BASIC, rng=random.Random(3))
        if observe(step.after, SeatViewer(0)).pass_ is not None
    )
    body = rendered(Versioned(uuid.uuid4(), 1, observe(game, SeatViewer(0))))
    assert "pass" in body
    assert "pass_" not in body
    assert body["pass"]["given"]


def test_every_feed_renders_as_its_schema_dumps_it() -> None:
    """A seat's redacted feed and the operator's, page by page, as FeedSchema dumps them
    (times, actors and event data included)."""
    game_id = uuid.uuid4()
    schema = FeedSchema()
    when = datetime(2026, 11, 23, 12, 30, 5, 123456, tzinfo=UTC)
    events = [
        e for step in play_game(4, Scoring.ADVANCED, rng=random.Random(11)) for e in step.events
    ]
    actors = [
        FeedActor(ActorKind.SYSTEM),
        FeedActor(ActorKind.SEAT, 2),
        FeedActor(ActorKind.BOT, 1),
    ]
    for viewer in (None, 0, 3):
        feed_events = [
            FeedEvent(
                seq,
                type(e).TYPE,
                to_data(e if viewer is None else redact(e, SeatViewer(viewer))),
                when,
                actors[seq % len(actors)],
            )
            for seq, e in enumerate(events, start=1)
        ]
        for start in range(0, len(feed_events), 100):
            page = feed_events[start : start + 100]
            after = start + len(page)
            feed = Feed(game_id, len(events), page, after if after < len(events) else None)
            assert as_json(json_ready(feed)) == as_json(schema.dump(feed))
            assert json_body(feed) == written_as_before(feed)


def inbox_entry(action: str | None, when: datetime | None, winner: tuple[int, ...] | None) -> Any:
    return InboxEntry(
        player_id=uuid.uuid4(),
        game_id=uuid.uuid4(),
        seat=2,
        status="finished" if winner else "playing",
        version=17,
        players=4,
        scoring="basic",
        variant="standard",
        scores=(3, -1, 0, 12),
        winner=winner,
        my_turn=action is not None,
        action=action,
        due_since=when,
        deadline=when,
        updated_at=datetime(2026, 11, 23, 12, 30, 5, tzinfo=UTC),
    )


def test_the_inbox_is_written_as_its_schema_dumps_it() -> None:
    assert players.blp  # the shapes of InboxPage and InboxEntry are registered
    moments = [None, datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=UTC), datetime(2026, 1, 2)]
    entries = [
        inbox_entry(action, when, winner)
        for action in (None, "play", "pass", "join")
        for when in moments
        for winner in (None, (0, 2))
    ]
    for cursor in (None, "bmV4dA"):
        page = InboxPage(entries, cursor, "0123456789abcdef")
        dumped = jsonify(InboxSchema().dump(page)).get_data()
        assert json_body(page) == dumped
        assert (
            json_body(InboxPage([], cursor, "tag"))
            == jsonify(InboxSchema().dump(InboxPage([], cursor, "tag"))).get_data()
        )
    assert b'"invited":true' in json_body(InboxPage(entries, None, "tag"))


@pytest.mark.parametrize("name", ["Zoë", "名前", "del\x7f", "tab\t", 'quote"', "\u2028"])
def test_what_orjson_would_write_otherwise_is_written_by_the_standard_library(
    name: str,
) -> None:
    """Beyond ASCII, and DEL, json escapes what orjson writes as it is: the answer is
    the standard library's, byte for byte, as before."""
    game = next(step.after for step in play_game(4, Scoring.BASIC, rng=random.Random(3)))
    view = observe(game, SeatViewer(0))
    seats = tuple(dataclasses.replace(s, name=name) for s in view.seats)
    versioned = Versioned(uuid.uuid4(), 3, dataclasses.replace(view, seats=seats))
    assert view_response(versioned).get_data() == jsonify(rendered(versioned)).get_data()
    assert json.loads(view_response(versioned).get_data())["seats"][0]["name"] == name


def test_a_shape_takes_only_fields_answered_as_they_are() -> None:
    class Odd(ma.Schema):
        when = ma.fields.Date()

    with pytest.raises(TypeError, match="not a field answered as it is"):
        shaped_by(InboxEntry, Odd())
