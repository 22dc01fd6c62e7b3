"""Races on one game: many clients send conflicting commands at the same instant.

The events' primary key ``(game_id, seq)`` is the optimistic-concurrency check: exactly
one command wins each race, the others are refused as the rules or ``If-Match`` say
(never a 5xx), and the stored history stays numbered 1..n without gaps, chained and
replayable (``yokai verify``).
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service import cli
from tests.support.api import Api, Game, bearer

THREADS = 8
Sql = Callable[..., list[Any]]
Request = Callable[[FlaskClient], TestResponse]


def race(app: Flask, requests: list[Request]) -> list[TestResponse]:
    """Send every request from its own thread and client, released together by a barrier."""
    barrier = threading.Barrier(len(requests))

    def send(request: Request) -> TestResponse:
        client = app.test_client()
        barrier.wait(timeout=60)
        return request(client)

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(send, requests))


def post(path: str, body: dict[str, Any], headers: dict[str, str]) -> Request:
    def send(client: FlaskClient) -> TestResponse:
        return client.post(path, json=body, headers=headers)

    return send


def status_codes(responses: list[TestResponse]) -> Counter[tuple[int, str | None]]:
    out: Counter[tuple[int, str | None]] = Counter()
    for r in responses:
        body = r.get_json(silent=True) or {}
        out[(r.status_code, body.get("code") if r.status_code >= 400 else None)] += 1
    return out


def seqs(sql: Sql, game_id: str) -> list[int]:
    return [
        row.seq for row in sql("SELECT seq FROM events WHERE game_id = :g ORDER BY seq", g=game_id)
    ]


def event_types(sql: Sql, game_id: str) -> Counter[str]:
    rows = sql("SELECT type FROM events WHERE game_id = :g", g=game_id)
    return Counter(row.type for row in rows)


SoundCheck = Callable[[str, int], None]


@pytest.fixture
def assert_sound(
    sql: Sql,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> SoundCheck:
    """Check a game's stored history: numbered 1..version without gaps or duplicates, the
    games projection at that version, and `yokai verify` finding it intact."""
    monkeypatch.setenv("DATABASE_URL", database_url)

    def check(game_id: str, version: int) -> None:
        assert seqs(sql, game_id) == list(range(1, version + 1))
        rows = sql("SELECT version FROM games WHERE id = :g", g=game_id)
        assert [r.version for r in rows] == [version]
        capsys.readouterr()
        code = cli.main(["verify", game_id])
        out = capsys.readouterr().out
        assert code == 0, out
        assert f"game {game_id}: intact ({version} events)" in out

    return check


def test_concurrent_joins_of_one_seat_seat_it_once(
    api: Api,
    app: Flask,
    sql: Sql,
    assert_sound: SoundCheck,
) -> None:
    game_id = api.create(4)["id"]
    path = f"/v1/games/{game_id}/seats/0"
    responses = race(app, [post(path, {"name": f"racer {i}"}, {}) for i in range(THREADS)])

    assert status_codes(responses) == {(201, None): 1, (409, "seat_taken"): THREADS - 1}
    index, winner = next((i, r) for i, r in enumerate(responses) if r.status_code == 201)
    token = winner.get_json()["token"]
    rows = sql("SELECT seat FROM seat_credentials WHERE game_id = :g", g=game_id)
    assert [r.seat for r in rows] == [0]
    assert event_types(sql, game_id) == {"GameCreated": 1, "SeatJoined": 1}
    view = api.client.get(f"/v1/games/{game_id}/view", headers=bearer(token))
    assert view.status_code == 200
    public = api.public(game_id)
    assert public["seats"][0]["name"] == f"racer {index}"
    assert public["version"] == 2
    assert_sound(game_id, 2)


def test_concurrent_joins_of_every_seat_start_the_game_once(
    api: Api,
    app: Flask,
    sql: Sql,
    assert_sound: SoundCheck,
) -> None:
    """Different seats do not conflict: each is taken once, and the last one deals once."""
    game_id = api.create(4)["id"]
    requests = [
        post(f"/v1/games/{game_id}/seats/{i % 4}", {"name": f"racer {i}"}, {})
        for i in range(THREADS)
    ]
    responses = race(app, requests)

    assert status_codes(responses) == {(201, None): 4, (409, "seat_taken"): THREADS - 4}
    seated = sorted(r.get_json()["seat"] for r in responses if r.status_code == 201)
    assert seated == [0, 1, 2, 3]
    types = event_types(sql, game_id)
    assert types == {"GameCreated": 1, "SeatJoined": 4, "RoundDealt": 1}
    public = api.public(game_id)
    assert public["status"] == "passing"
    assert_sound(game_id, public["version"])


def test_concurrent_passes_of_every_seat_are_all_taken_and_exchanged_once(
    api: Api,
    app: Flask,
    sql: Sql,
    assert_sound: SoundCheck,
) -> None:
    """Four seats pass at once (each one twice, with different cards): each seat's pass is
    taken exactly once, the conflicting writers retry, and the exchange happens once."""
    game = api.start(4, seed=404)
    rng = random.Random(404)
    choices: list[list[str]] = []
    requests = []
    for i in range(THREADS):
        seat = i % 4
        cards = rng.sample(api.view(game, seat)["hand"], 3)
        choices.append(cards)
        requests.append(
            post(f"/v1/games/{game.id}/pass", {"cards": cards}, game.seat_headers(seat))
        )
    responses = race(app, requests)

    codes = status_codes(responses)
    assert codes[(200, None)] == 4
    assert sum(codes.values()) == THREADS
    # The second pass of a seat finds it passed, or finds the round already playing.
    assert set(codes) <= {(200, None), (409, "already_passed"), (409, "wrong_phase")}
    for seat in range(4):
        won = [
            choices[i] for i, r in enumerate(responses) if i % 4 == seat and r.status_code == 200
        ]
        assert len(won) == 1
        assert api.view(game, seat)["pass"]["given"] == won[0]
    assert event_types(sql, game.id) == {
        "GameCreated": 1,
        "SeatJoined": 4,
        "RoundDealt": 1,
        "CardsPassed": 4,
        "PassesExchanged": 1,
    }
    public = api.public(game.id)
    assert public["status"] == "playing"
    assert_sound(game.id, public["version"])


def _pass_all(api: Api, game: Game, rng: random.Random) -> None:
    for seat in range(game.players):
        view = api.view(game, seat)
        r = api.pass_cards(game, seat, rng.sample(view["legal"], 3))
        assert r.status_code == 200, r.get_json()


@pytest.mark.parametrize("players", [4, 3])
def test_conflicting_plays_of_one_seat_have_exactly_one_winner(
    api: Api,
    app: Flask,
    sql: Sql,
    assert_sound: SoundCheck,
    players: int,
) -> None:
    """Repeatedly, eight clients of the seat whose turn it is play different cards at once;
    half of them send If-Match. One play is stored; the others get 409 (no longer legal)
    or, with If-Match, 412."""
    rng = random.Random(players)
    games = [api.start(players, seed=17 + players, scoring="advanced")]
    races = 0
    while races < 12:
        game = games[-1]
        public = api.public(game.id)
        if public["status"] == "passing":
            _pass_all(api, game, rng)
            continue
        if public["status"] == "finished":  # unlikely so soon, but then race on a new one
            games.append(api.start(players, seed=rng.randrange(1000), scoring="advanced"))
            continue
        seat = public["round"]["turn"]
        view = api.view(game, seat)
        legal = view["legal"]
        if len(public["round"]["trick"]) == players - 1:
            # The last card of a trick: its winner may lead next, so a second card could
            # rightly be accepted as the next lead. Play it without a race.
            r = api.play(game, seat, rng.choice(legal))
            assert r.status_code == 200, r.get_json()
            continue
        version = public["version"]
        cards = [legal[i % len(legal)] for i in range(THREADS)]
        requests = [
            post(
                f"/v1/games/{game.id}/play",
                {"card": card},
                {**game.seat_headers(seat), **({"If-Match": f'"{version}"'} if i % 2 else {})},
            )
            for i, card in enumerate(cards)
        ]
        responses = race(app, requests)
        races += 1

        winners = [i for i, r in enumerate(responses) if r.status_code == 200]
        assert len(winners) == 1, status_codes(responses)
        for i, r in enumerate(responses):
            if i in winners:
                continue
            code = r.get_json()["code"]
            if i % 2:
                assert (r.status_code, code) == (412, "stale_version")
            else:
                assert r.status_code == 409
                assert code in {"not_your_turn", "card_not_in_hand"}
        played = cards[winners[0]]
        after = api.public(game.id)
        assert after["version"] == version + 1
        assert after["round"]["trick"][-1] == {"seat": seat, "card": played}
        assert played not in api.view(game, seat)["hand"]
        assert responses[winners[0]].headers["ETag"] == f'"{version + 1}"'
    for game in games:
        final = api.public(game.id)["version"]
        assert_sound(game.id, final)


def test_concurrent_commands_of_different_seats_keep_the_history_gapless(
    api: Api,
    app: Flask,
    sql: Sql,
    assert_sound: SoundCheck,
) -> None:
    """Every seat fires a burst of plays at once, most out of turn: the legal ones are
    stored one at a time, the rest refused, never a 5xx, and the history stays sound."""
    game = api.start(4, seed=99)
    rng = random.Random(99)
    _pass_all(api, game, rng)
    for _ in range(6):
        public = api.public(game.id)
        if public["status"] == "passing":
            _pass_all(api, game, rng)
            public = api.public(game.id)
        assert public["status"] == "playing"
        before = public["version"]
        requests = []
        for i in range(THREADS):
            seat = i % 4
            hand = api.view(game, seat)["hand"]
            requests.append(
                post(
                    f"/v1/games/{game.id}/play", {"card": rng.choice(hand)}, game.seat_headers(seat)
                )
            )
        responses = race(app, requests)
        codes = status_codes(responses)
        assert all(status < 500 for status, _ in codes), codes
        assert set(codes) <= {
            (200, None),
            (409, "not_your_turn"),
            (409, "must_follow_suit"),
            (409, "card_not_in_hand"),
            (409, "wrong_phase"),
        }
        accepted = codes[(200, None)]
        plays = sql(
            "SELECT count(*) AS n FROM events "
            "WHERE game_id = :g AND seq > :v AND type = 'CardPlayed'",
            g=game.id,
            v=before,
        )
        assert plays[0].n == accepted
    final = api.public(game.id)["version"]
    assert_sound(game.id, final)
