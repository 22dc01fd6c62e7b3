"""Table talk over HTTP (docs/api.md "Table talk"): who writes and reads which channel,
the rules of a message, the rate limit, presets only at a rated four-player table, and
paging with `after` and ETags."""

from __future__ import annotations

import threading
from typing import Any

from tests.e2e.test_notifications import new_player
from tests.e2e.test_reputation import seated
from tests.support.api import OPERATOR, Api, Game, bearer
from tests.support.deals import assert_problem


def say(api: Api, game_id: str, token: str, **body: Any) -> dict[str, Any]:
    r = api.post(f"/v1/games/{game_id}/chat", body, **bearer(token))
    assert r.status_code == 201, r.get_json()
    found: dict[str, Any] = r.get_json()
    return found


def read(api: Api, game_id: str, token: str | None, after: int | None = None) -> dict[str, Any]:
    query = "" if after is None else f"?after={after}"
    headers = {} if token is None else bearer(token)
    r = api.get(f"/v1/games/{game_id}/chat{query}", **headers)
    assert r.status_code == 200, r.get_json()
    found: dict[str, Any] = r.get_json()
    return found


def texts(page: dict[str, Any]) -> list[str | None]:
    return [m["text"] or m["preset"] for m in page["messages"]]


def test_seats_talk_on_the_table_and_players_without_a_seat_among_spectators(api: Api) -> None:
    game = api.start(4)
    said = say(api, game.id, game.tokens[0], text="  Hello, table  ")
    assert said["channel"] == "table" and said["text"] == "Hello, table"
    assert said["from"] == {"seat": 0, "name": "player 0", "player_id": None}
    assert said["preset"] is None and isinstance(said["id"], int) and said["at"]
    watcher = new_player(api, "Kai")
    aside = say(api, game.id, watcher, preset="nice_trick")
    assert aside["channel"] == "spectators" and aside["from"]["seat"] is None
    assert aside["from"]["name"] == "Kai" and aside["from"]["player_id"]
    # Seated players do not see the spectators while the game runs; spectators do not
    # see the table.
    assert texts(read(api, game.id, game.tokens[2])) == ["Hello, table"]
    assert texts(read(api, game.id, watcher)) == ["nice_trick"]
    both = read(api, game.id, OPERATOR["Authorization"].removeprefix("Bearer "))
    assert texts(both) == ["Hello, table", "nice_trick"]


def test_the_chat_needs_a_token_and_a_game(api: Api) -> None:
    game = api.start(3)
    assert_problem(api.get(f"/v1/games/{game.id}/chat"), 401, "missing_token")
    assert_problem(api.post(f"/v1/games/{game.id}/chat", {"text": "hi"}), 401, "missing_token")
    token = new_player(api)
    unknown = "00000000-0000-4000-8000-000000000000"
    assert_problem(api.get(f"/v1/games/{unknown}/chat", **bearer(token)), 404)
    assert_problem(api.post(f"/v1/games/{unknown}/chat", {"text": "hi"}, **bearer(token)), 404)
    r = api.post(f"/v1/games/{game.id}/chat", {"text": "hi"}, **OPERATOR)
    assert_problem(r, 403)


def test_a_message_is_exactly_one_valid_text_or_known_preset(api: Api) -> None:
    game = api.start(3)
    headers = game.seat_headers(1)
    path = f"/v1/games/{game.id}/chat"
    assert_problem(api.post(path, {}, **headers), 422, "text_or_preset")
    assert_problem(api.post(path, {"text": "a", "preset": "hello"}, **headers), 422)
    for bad in ("   ", "x" * 281, "bell\x07", "line\nbreak"):
        assert_problem(api.post(path, {"text": bad}, **headers), 422, "invalid_text")
    assert_problem(api.post(path, {"preset": "shout"}, **headers), 422, "unknown_preset")
    # NFC: a decomposed é is stored composed; 280 characters are allowed.
    assert say(api, game.id, game.tokens[1], text="cafe\u0301")["text"] == "caf\u00e9"
    assert len(say(api, game.id, game.tokens[1], text="y" * 280)["text"]) == 280
    assert read(api, game.id, game.tokens[0])["messages"][0]["text"] == "caf\u00e9"


def test_a_sender_writes_five_messages_in_ten_seconds(api: Api) -> None:
    game = api.start(3)
    for n in range(5):
        say(api, game.id, game.tokens[0], text=f"m{n}")
    r = api.post(f"/v1/games/{game.id}/chat", {"text": "sixth"}, **game.seat_headers(0))
    assert_problem(r, 429, "chat_too_fast")
    assert r.headers.get("Retry-After")
    say(api, game.id, game.tokens[1], text="another sender")  # counted apart
    assert texts(read(api, game.id, game.tokens[2]))[-1] == "another sender"
    assert len(read(api, game.id, game.tokens[2])["messages"]) == 6


def test_a_rated_four_player_table_takes_presets_only(api: Api) -> None:
    tokens = [new_player(api, f"P{n}") for n in range(4)]
    game = seated(api, tokens, rated=True)
    r = api.post(f"/v1/games/{game.id}/chat", {"text": "lead hearts"}, **bearer(tokens[0]))
    assert_problem(r, 422, "presets_only")
    assert say(api, game.id, tokens[0], preset="good_luck")["from"]["name"] == "P0"
    # Spectators may still write: they have no partner to signal.
    assert say(api, game.id, new_player(api, "Kai"), text="go team")["channel"] == "spectators"
    casual = seated(api, [new_player(api, f"Q{n}") for n in range(3)], rated=True)
    assert say(api, casual.id, casual.tokens[0], text="three players: free text")["text"]


def test_pages_go_on_after_a_message_and_tags_change_with_them(api: Api) -> None:
    game = api.start(3)
    first = say(api, game.id, game.tokens[0], text="one")
    reader = game.tokens[1]
    page = read(api, game.id, reader)
    assert page["next_after"] == first["id"] and texts(page) == ["one"]
    assert read(api, game.id, reader, after=first["id"]) == {
        "messages": [],
        "next_after": first["id"],
    }
    path = f"/v1/games/{game.id}/chat"
    tagged = api.get(path, **bearer(reader))
    again = api.get(path, **bearer(reader), **{"If-None-Match": tagged.headers["ETag"]})
    assert again.status_code == 304
    say(api, game.id, game.tokens[2], text="two")
    changed = api.get(path, **bearer(reader), **{"If-None-Match": tagged.headers["ETag"]})
    assert changed.status_code == 200 and texts(changed.get_json()) == ["one", "two"]
    r = api.get(f"{path}?limit=1", **bearer(reader))
    assert texts(r.get_json()) == ["one"] and r.get_json()["next_after"] == first["id"]
    assert read(api, game.id, reader)["next_after"] != first["id"]
    empty = read(api, api.start(3).id, reader_of(api))
    assert empty == {"messages": [], "next_after": None}


def reader_of(api: Api) -> str:
    return new_player(api, "Reader")


def test_a_retried_message_is_written_once(api: Api) -> None:
    game = api.start(3)
    path = f"/v1/games/{game.id}/chat"
    key = {"Idempotency-Key": "chat-retry-0001"}
    one = api.post(path, {"text": "once"}, **game.seat_headers(0), **key)
    two = api.post(path, {"text": "once"}, **game.seat_headers(0), **key)
    assert one.status_code == two.status_code == 201
    assert one.get_json() == two.get_json()
    assert texts(read(api, game.id, game.tokens[1])) == ["once"]


def test_presets_come_in_four_languages_with_a_tag(api: Api) -> None:
    r = api.get("/v1/chat/presets")
    assert r.status_code == 200
    presets = r.get_json()["presets"]
    assert {"hello", "good_game", "well_played"} <= {p["id"] for p in presets}
    assert all(set(p["text"]) == {"en", "fr", "de", "zh"} for p in presets)
    assert all(all(p["text"].values()) for p in presets)
    again = api.get("/v1/chat/presets", **{"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304


def test_seated_players_read_the_spectators_once_the_game_is_over(api: Api) -> None:
    game: Game = api.start(3)
    watcher = new_player(api, "Kai")
    say(api, game.id, watcher, text="what a game")
    assert texts(read(api, game.id, game.tokens[0])) == []
    r = api.post(f"/v1/games/{game.id}/resign", None, **game.seat_headers(0))
    assert r.status_code == 200, r.get_json()
    assert texts(read(api, game.id, game.tokens[1])) == ["what a game"]


def test_a_revoked_token_writes_nothing(api: Api) -> None:
    """The token's check runs in the message's own statement: revoked, nothing is
    written (with or without an Idempotency-Key)."""
    game = api.start(3)
    token = new_player(api, "Kai")
    (made,) = api.get("/v1/me/tokens", **bearer(token)).get_json()["tokens"]
    gone = api.client.delete(f"/v1/me/tokens/{made['id']}", headers=bearer(token))
    assert gone.status_code == 204
    path = f"/v1/games/{game.id}/chat"
    assert_problem(api.post(path, {"text": "still here?"}, **bearer(token)), 401)
    keyed = {"Idempotency-Key": "revoked-chat-0001"}
    assert_problem(api.post(path, {"text": "still here?"}, **bearer(token), **keyed), 401)
    assert read(api, game.id, game.tokens[0])["messages"] == []
    assert read(api, game.id, OPERATOR["Authorization"].removeprefix("Bearer "))["messages"] == []


def test_a_player_an_operator_muted_cannot_chat_until_it_ends(api: Api) -> None:
    game = api.start(3)
    loud, other = new_player(api, "Loud"), new_player(api, "Calm")
    say(api, game.id, loud, text="first")
    me = api.get("/v1/me", **bearer(loud)).get_json()["id"]
    r = api.post("/v1/reports", {"player_id": me, "reason": "spam"}, **bearer(other))
    assert r.status_code == 201, r.get_json()
    done = api.post(
        f"/v1/reports/{r.get_json()['id']}/resolve",
        {"action": "mute", "minutes": 30, "note": "spam in the stands"},
        **OPERATOR,
    )
    assert done.status_code == 200, done.get_json()
    path = f"/v1/games/{game.id}/chat"
    refused = assert_problem(
        api.post(path, {"preset": "hello"}, **bearer(loud)), 403, "player_muted"
    )
    assert refused["muted_until"]
    keyed = {"Idempotency-Key": "muted-chat-0001"}
    assert_problem(api.post(path, {"text": "hi"}, **bearer(loud), **keyed), 403, "player_muted")
    say(api, game.id, other, text="the others still talk")
    assert texts(read(api, game.id, other)) == ["first", "the others still talk"]


def test_a_blocked_players_messages_never_reach_the_blocker(api: Api) -> None:
    game = api.start(3)
    watcher, rude, other = new_player(api, "Kai"), new_player(api, "Rude"), new_player(api, "Rin")
    rude_id = api.get("/v1/me", **bearer(rude)).get_json()["id"]
    say(api, game.id, rude, text="before the block")
    r = api.client.put(f"/v1/me/blocks/{rude_id}", headers=bearer(watcher))
    assert r.status_code == 204, r.get_json()
    say(api, game.id, rude, text="after the block")
    say(api, game.id, other, text="still heard")
    assert texts(read(api, game.id, watcher)) == ["still heard"]
    page = read(api, game.id, watcher)
    assert page["next_after"] == read(api, game.id, other)["next_after"]  # skipped, not stuck
    assert texts(read(api, game.id, other)) == [
        "before the block",
        "after the block",
        "still heard",
    ]


def test_another_games_seat_token_reads_nothing_of_this_game(api: Api) -> None:
    mine, other = api.start(3), api.start(3)
    say(api, other.id, other.tokens[0], text="secret of the other table")
    r = api.get(f"/v1/games/{other.id}/chat", **mine.seat_headers(0))
    assert_problem(r, 403)
    r = api.post(f"/v1/games/{other.id}/chat", {"text": "hi"}, **mine.seat_headers(0))
    assert_problem(r, 403)


def test_the_texts_and_presets_refusals_are_the_chats_own_whatever_their_length(
    api: Api,
) -> None:
    game = api.start(3)
    path = f"/v1/games/{game.id}/chat"
    headers = game.seat_headers(0)
    assert_problem(api.post(path, {"text": "x" * 5000}, **headers), 422, "invalid_text")
    assert_problem(api.post(path, {"preset": ""}, **headers), 422, "unknown_preset")
    assert_problem(api.post(path, {"preset": "p" * 500}, **headers), 422, "unknown_preset")
    # A text in the form of a sealed value would be opened on its way out: refused.
    token_like = "pd1.x.p" + "0" * 32 + "." + "A" * 30
    assert_problem(api.post(path, {"text": f"look {token_like}"}, **headers), 422, "invalid_text")


def test_a_sender_racing_with_themself_still_writes_five_in_ten_seconds(api: Api) -> None:
    """Twelve messages of one player at once: five written, the rest refused (the sender's
    lock makes each count see the others' rows)."""
    game = api.start(3)
    token = new_player(api, "Quick")
    app = api.client.application
    statuses: list[int] = []
    lock = threading.Lock()

    def send(n: int) -> None:
        client = app.test_client()
        r = client.post(f"/v1/games/{game.id}/chat", json={"text": f"m{n}"}, headers=bearer(token))
        with lock:
            statuses.append(r.status_code)

    threads = [threading.Thread(target=send, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(statuses) == [201] * 5 + [429] * 7, statuses
    assert len(read(api, game.id, token)["messages"]) == 5
