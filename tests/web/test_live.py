"""Live delivery's web parts on their own: how many streams each token and address may
hold open, and each stream message as Server-Sent Events bytes."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

import pytest

from service.application.games.ports import InboxEntry
from service.application.identity.principals import (
    Anonymous,
    BadToken,
    Operator,
    PlayerHolder,
    Principal,
    SeatHolder,
)
from service.application.live.streams import (
    EndMessage,
    EventMessage,
    GameMessage,
    InboxMessage,
    KeepAlive,
    ViewMessage,
)
from service.application.ports import ActorKind
from service.application.results import Feed, FeedActor, FeedEvent, Versioned
from service.bots.selfplay import play_game
from service.rules import OPERATOR, PUBLIC, Scoring, SeatViewer, observe
from service.web.errors import RateLimitedError
from service.web.live.holding import RETRY_AFTER_SECONDS, OpenStreams
from service.web.live.routes import encode
from service.web.players.schemas import InboxSchema
from service.web.render import json_ready, rendered

# --- places among the open streams ----------------------------------------------------


def seat(n: int = 0) -> SeatHolder:
    return SeatHolder(uuid4(), n, token_sha256=f"digest {n}")


def refused(streams: OpenStreams, who: Principal, address: str) -> RateLimitedError:
    with pytest.raises(RateLimitedError) as caught:
        streams.acquire(who, address)
    return caught.value


@pytest.mark.parametrize(
    "who",
    [seat(), PlayerHolder(uuid4(), "digest"), Operator()],
    ids=["seat", "player", "operator"],
)
def test_a_token_holds_at_most_its_limit_from_any_address(who: Principal) -> None:
    streams = OpenStreams(per_token=2, per_address=100, keepalive=15)
    first = streams.acquire(who, "10.0.0.1")
    streams.acquire(who, "10.0.0.2")

    error = refused(streams, who, "10.0.0.3")
    assert (error.code, error.retry_after) == ("too_many_streams", RETRY_AFTER_SECONDS)
    assert "token" in error.detail
    assert streams.held() == 2  # the refused one took no place
    streams.acquire(seat(1), "10.0.0.3")  # another token has places of its own

    first()
    streams.acquire(who, "10.0.0.3")
    refused(streams, who, "10.0.0.4")


def test_an_address_holds_at_most_its_limit_whatever_the_tokens() -> None:
    streams = OpenStreams(per_token=100, per_address=3, keepalive=15)
    releases = [streams.acquire(who, "10.0.0.1") for who in (seat(0), seat(1), Anonymous())]

    for who in (seat(2), Anonymous(), Operator()):
        error = refused(streams, who, "10.0.0.1")
        assert error.code == "too_many_streams"
        assert "address" in error.detail
    assert streams.held() == 3
    streams.acquire(seat(2), "10.0.0.2")  # another address has places of its own

    releases[0]()
    streams.acquire(Anonymous(), "10.0.0.1")
    refused(streams, Anonymous(), "10.0.0.1")


@pytest.mark.parametrize("who", [Anonymous(), BadToken()], ids=["anonymous", "bad token"])
def test_without_a_token_only_the_address_counts(who: Principal) -> None:
    streams = OpenStreams(per_token=1, per_address=3, keepalive=15)
    for _ in range(3):
        streams.acquire(who, "10.0.0.1")
    refused(streams, who, "10.0.0.1")
    for _ in range(3):
        streams.acquire(who, "10.0.0.2")
    assert streams.held() == 6


def test_a_place_given_back_twice_is_given_back_once() -> None:
    streams = OpenStreams(per_token=2, per_address=2, keepalive=15)
    who = seat()
    release = streams.acquire(who, "10.0.0.1")
    streams.acquire(who, "10.0.0.1")

    release()
    release()

    assert streams.held() == 1
    streams.acquire(who, "10.0.0.1")
    refused(streams, who, "10.0.0.1")


def test_every_place_given_back_leaves_nothing_held() -> None:
    streams = OpenStreams(per_token=3, per_address=3, keepalive=15)
    who = seat()
    releases: list[Callable[[], None]] = []
    holders: tuple[Principal, ...] = (who, Anonymous())
    for address, holder in itertools.product(("10.0.0.1", "10.0.0.2"), holders):
        releases.append(streams.acquire(holder, address))
    for release in releases:
        release()
    assert streams.held() == 0
    for _ in range(3):
        streams.acquire(who, "10.0.0.1")  # the token's count went back to nothing too


# --- messages as Server-Sent Events -----------------------------------------------------


def parse(raw: bytes) -> tuple[dict[str, list[str]], Any]:
    """One SSE message: its fields by name (each line ``name: value``) and its data's
    JSON; checks it ends with a blank line and has exactly one ``data`` line."""
    text = raw.decode("utf-8")
    assert text.endswith("\n\n") and not text.endswith("\n\n\n"), text
    lines = text[:-2].split("\n")
    fields: dict[str, list[str]] = {}
    for line in lines:
        name, sep, value = line.partition(": ")
        assert sep and name in {"event", "id", "data"}, line
        fields.setdefault(name, []).append(value)
    assert len(fields.get("event", [])) == 1, text
    assert len(fields.get("data", [])) == 1, text
    assert lines[-1].startswith("data: "), text
    return fields, json.loads(fields["data"][0])


def a_state_in_play() -> Any:
    """A random four-player game some commands in: round 1, cards passed and played."""
    steps = itertools.islice(play_game(4, Scoring.BASIC, rng=random.Random(3)), 20)
    return list(steps)[-1].after


def entry(game_id: UUID | None = None) -> InboxEntry:
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    return InboxEntry(
        player_id=uuid4(),
        game_id=game_id or uuid4(),
        seat=1,
        status="playing",
        version=17,
        players=4,
        scoring="basic",
        variant="standard",
        scores=(0, 1),
        winner=None,
        my_turn=True,
        action="play",
        due_since=when,
        deadline=None,
        updated_at=when,
    )


@pytest.mark.parametrize(
    "viewer", [PUBLIC, SeatViewer(2), OPERATOR], ids=["public", "seat", "operator"]
)
def test_a_view_is_an_sse_view_with_its_version_as_id(viewer: Any) -> None:
    versioned = Versioned(uuid4(), 42, observe(a_state_in_play(), viewer))
    fields, data = parse(encode(ViewMessage(versioned)))
    assert fields["event"] == ["view"]
    assert fields["id"] == ["42"]
    assert data == json.loads(json.dumps(rendered(versioned)))  # as the view's GET gives it
    assert (data["id"], data["version"]) == (str(versioned.game_id), 42)


def test_an_event_is_an_sse_game_event_with_its_seq_as_id() -> None:
    event = FeedEvent(
        seq=9,
        type="SeatJoined",
        data={"seat": 3, "name": "two\nlines: and \u00e9"},
        recorded_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        actor=FeedActor(ActorKind.SEAT, 3),
    )
    fields, data = parse(encode(EventMessage(event)))
    assert fields["event"] == ["game_event"]
    assert fields["id"] == ["9"]
    feed = Feed(uuid4(), 9, [event], None)
    assert data == json.loads(json.dumps(json_ready(feed)))["events"][0]  # as /events gives it
    assert data["data"]["name"] == "two\nlines: and \u00e9"
    assert data["actor"] == {"kind": "seat", "seat": 3}


def test_end_is_an_sse_end_without_an_id() -> None:
    fields, data = parse(encode(EndMessage(77)))
    assert fields["event"] == ["end"]
    assert "id" not in fields
    assert data == {"version": 77}


def test_the_inbox_and_a_game_are_sse_messages_of_inbox_entries() -> None:
    entries = [entry(), entry()]
    dumped = InboxSchema().dump({"games": entries, "next_cursor": None})["games"]

    fields, data = parse(encode(InboxMessage(entries)))
    assert (fields["event"], "id" in fields) == (["inbox"], False)
    assert data == {"games": dumped}  # as GET /v1/me/games gives the entries

    fields, data = parse(encode(GameMessage(entries[1])))
    assert (fields["event"], "id" in fields) == (["game"], False)
    assert data == dumped[1]
    assert data["game_id"] == str(entries[1].game_id)
    assert "player_id" not in data

    fields, data = parse(encode(InboxMessage([])))
    assert data == {"games": []}


def test_a_keep_alive_is_a_comment() -> None:
    raw = encode(KeepAlive())
    text = raw.decode()
    assert text.endswith("\n\n")
    lines = text[:-2].split("\n")
    assert lines and all(line.startswith(":") for line in lines)
