"""Views are rendered by a plain walk over their dataclasses (service.web.render.json_ready),
not by marshmallow, for speed; the schemas stay the OpenAPI document. The two must agree
on every view: public, each seat's and the operator's, at every step of random games of
every configuration."""

from __future__ import annotations

import dataclasses
import json
import random
import uuid
from datetime import UTC, datetime
from typing import Any

import marshmallow as ma
import pytest

from service.application.ports import ActorKind
from service.application.results import Feed, FeedActor, FeedEvent, Versioned
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
from service.web.render import json_ready, rendered

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


def agree(schema: ma.Schema, versioned: Versioned[Any]) -> None:
    assert as_json(rendered(versioned)) == as_json(schema.dump(view_body(versioned)))


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
