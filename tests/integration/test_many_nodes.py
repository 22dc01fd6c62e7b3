"""Two nodes on one database and one Redis (YOKAI_REDIS_URL), with a relay: a command
made on one node wakes the waiters of the other through the bus, and the command's
transaction sends no NOTIFY (neither the events' announcement nor the inbox's trigger);
a node whose Redis is away says `degraded` and, once Redis is back, wakes its waiters to
read what they missed. Each test has a database of its own."""

from __future__ import annotations

import hashlib
import signal
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.adapters.bus import JOBS_CHANNEL, BusSeal
from service.adapters.postgres.engine import libpq_conninfo
from service.application.jobs.source import OUTBOX_NOTE
from service.application.live import recent as recent_module
from service.application.live.hub import (
    LOBBY_KEY,
    Hub,
    chat_key,
    follow_key,
    game_key,
    player_key,
    token_key,
)
from tests.support.api import OPERATOR, Api, Game, bearer
from tests.support.deals import PASSES_4P, ordered_deal, start_playing, version
from tests.support.postgres import AppUnderTest, MakeApp, migrated_database
from tests.support.redis_server import RedisServer, running
from tests.support.relaying import hearing, relaying
from tests.support.sse import SseStream, served
from tests.support.waiting import wait_for


@pytest.fixture
def database(server_url: str) -> str:
    return migrated_database(server_url, "yokai_nodes")


def node(make_app: MakeApp, database: str, redis_url: str) -> AppUnderTest:
    return make_app(database_url=database, redis_url=redis_url)


def hub(app: AppUnderTest) -> Hub:
    changes = app.container.deps.changes
    assert isinstance(changes, Hub)
    return changes


def play_one(api: Api, game: Any) -> None:
    seat = api.public(game.id)["round"]["turn"]
    card = api.view(game, seat)["legal"][0]
    answer = api.play(game, seat, card)
    assert answer.status_code == 200, answer.get_json()


class Notifications:
    """What PostgreSQL announces on the channels ``yokai`` and ``yokai_jobs`` (a LISTEN
    of the test's own)."""

    def __init__(self, database: str) -> None:
        self.conn = psycopg.connect(libpq_conninfo(database), autocommit=True)
        self.conn.execute("LISTEN yokai")
        self.conn.execute("LISTEN yokai_jobs")

    def heard(self) -> list[str]:
        return [n.payload for n in self.conn.notifies(timeout=0.5, stop_after=1000)]


def start_with_a_player(api: Api) -> tuple[Game, UUID]:
    """A game dealt in order and past its passes, seat 0 held by a player (who has an
    inbox entry of it, which every command changes): the game and the player's id."""
    player = api.post("/v1/players", {"name": "Mio"}).get_json()
    game = Game(api.create(4, operator=True, deals=[ordered_deal(4)])["id"], 4)
    joined = api.post(f"/v1/games/{game.id}/seats/0", {}, **bearer(player["token"]))
    assert joined.status_code == 201, joined.get_json()
    game.tokens = [player["token"], *(api.join(game.id, s) for s in range(1, 4))]
    for seat, cards in PASSES_4P.items():
        assert api.pass_cards(game, seat, cards).status_code == 200
    return game, UUID(player["id"])


def test_a_command_on_one_node_wakes_the_other_through_the_bus_without_notify(
    make_app: MakeApp, database: str, redis_server: RedisServer
) -> None:
    one = node(make_app, database, redis_server.url)
    two = node(make_app, database, redis_server.url)
    game, player = start_with_a_player(one.api())
    listen = Notifications(database)
    try:
        with (
            relaying(database, redis_server.url) as relay,
            hub(two).subscribe(game_key(UUID(game.id))) as waiting,
            hub(two).subscribe(player_key(player)) as inbox,
        ):
            wait_for(lambda: relay.holding, "the relay to hold the lock", 10)
            bus = two.container.bus
            assert bus is not None
            wait_for(bus.listening.is_set, "node two to subscribe to the bus", 10)
            waiting.wait(0)  # forget the wake-ups of subscribing
            inbox.wait(0)
            listen.heard()  # and what the game's start announced
            play_one(one.api(), game)
            assert waiting.wait(10), "node two's game waiter was not woken"
            assert hub(two).announced(game_key(UUID(game.id))) == version(one.api(), game)
            assert inbox.wait(10), "node two's inbox waiter was not woken"
        assert listen.heard() == []  # the play sent no NOTIFY, not even the inbox's
    finally:
        listen.conn.close()


def test_a_player_invited_on_one_node_hears_of_it_on_the_other_through_the_relay(
    make_app: MakeApp, database: str, redis_server: RedisServer
) -> None:
    """An invitation is no command on a game a player already has: the relay finds the
    invited player by the new game's inbox entries and announces them, no NOTIFY sent."""
    one = node(make_app, database, redis_server.url)
    two = node(make_app, database, redis_server.url)
    api = one.api()
    host = api.post("/v1/players", {"name": "Aiko"}).get_json()
    guest = api.post("/v1/players", {"name": "Ren"}).get_json()
    listen = Notifications(database)
    try:
        with (
            relaying(database, redis_server.url) as relay,
            hub(two).subscribe(player_key(UUID(guest["id"]))) as inbox,
        ):
            wait_for(lambda: relay.holding, "the relay to hold the lock", 10)
            bus = two.container.bus
            assert bus is not None
            wait_for(bus.listening.is_set, "node two to subscribe to the bus", 10)
            inbox.wait(10)  # the wake-up of subscribing
            listen.heard()
            made = api.client.post(
                "/v1/games",
                json={"players": 4, "invite": [{"player_id": guest["id"], "seat": 2}]},
                headers=bearer(host["token"]),
            )
            assert made.status_code == 201, made.get_json()
            assert inbox.wait(10), "node two's inbox waiter of the invited player was not woken"
            entries = api.get("/v1/me/games", **bearer(guest["token"])).get_json()
            assert [e["game_id"] for e in entries["games"]] == [made.get_json()["id"]]
        assert listen.heard() == []
    finally:
        listen.conn.close()


def test_a_relayed_commit_reaches_the_other_nodes_stream_sealed_without_a_read_of_the_store(
    make_app: MakeApp, database: str, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The relay seals each command's events (BusSeal): node two hands them to its
    stream as they came, reading nothing from the store, and Redis sees no card."""
    one = node(make_app, database, redis_server.url)
    two = node(make_app, database, redis_server.url)
    game, other = start_playing(one.api()), start_playing(one.api())
    reads: list[object] = []
    read = recent_module._read

    def counted(uow: Any, game_id: UUID, loaded: Any) -> Any:
        reads.append(game_id)
        return read(uow, game_id, loaded)

    monkeypatch.setattr(recent_module, "_read", counted)
    seal = BusSeal(two.container.deps.chain)
    with (
        relaying(database, redis_server.url, seal.describe) as relay,
        hearing(redis_server.url) as heard,
        served(two.flask) as host,
    ):
        wait_for(lambda: relay.holding, "the relay to hold the lock", 10)
        first = SseStream(host, f"/v1/games/{other.id}/stream")  # node two subscribes
        bus = two.container.bus
        assert bus is not None
        wait_for(bus.listening.is_set, "node two to subscribe to the bus", 10)
        stream = SseStream(host, f"/v1/games/{game.id}/stream")
        try:
            assert stream.until("view", version(one.api(), game), seconds=10)
            reads.clear()
            play_one(one.api(), game)
            now = version(one.api(), game)
            got = stream.until("view", now, seconds=10)
            assert got[-1].data == one.api().public(game.id)
            assert [m.id for m in got[:-1]] == [now]  # the play's event
            assert reads == []  # node two read no event from the store
        finally:
            stream.close()
            first.close()
        published = [p for p in heard.take() if p.startswith(f"g {game.id} {now} ")]
        assert len(published) == 1 and " ~" in published[0]
        played = got[0].data["data"]["card"]
        assert played not in published[0]


def metric(app: AppUnderTest, name: str, **labels: str) -> float | None:
    """A sample of the node's /metrics (None: not there)."""
    text = app.api().client.get("/metrics").get_data(as_text=True)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return None


def relay_lag(app: AppUnderTest) -> float | None:
    """``yokai_relay_lag_seconds`` as the node's /metrics gives it (None: not there)."""
    return metric(app, "yokai_relay_lag_seconds")


def test_metrics_say_how_long_the_oldest_unannounced_command_has_waited(
    make_app: MakeApp, database: str, redis_server: RedisServer
) -> None:
    one = node(make_app, database, redis_server.url)
    game = start_playing(one.api())
    assert relay_lag(one) is None  # no relay has run on this database
    with relaying(database, redis_server.url) as relay:
        wait_for(lambda: relay.position is not None, "the relay to start", 10)
        play_one(one.api(), game)
        wait_for(lambda: relay_lag(one) == 0, "the relay to announce the play", 10)
    play_one(one.api(), game)  # no relay runs: it waits
    wait_for(lambda: (relay_lag(one) or 0) > 0, "the unannounced play to show as a lag", 10)


def test_with_redis_no_command_notifies_and_the_worker_hears_its_jobs_on_the_bus(
    make_app: MakeApp, database: str, redis_server: RedisServer
) -> None:
    """A game with a turn clock and an operator's webhook: a play makes the game due
    sooner and writes a delivery, and neither is announced by PostgreSQL; both are
    published on the worker's channel of the bus once committed."""
    one = node(make_app, database, redis_server.url)
    api = one.api()
    hook = {"url": "https://93.184.216.34/h", "events": ["turn"]}
    assert api.client.post("/v1/webhooks", json=hook, headers=OPERATOR).status_code == 201
    game = Game(
        api.create(4, operator=True, deals=[ordered_deal(4)], clock={"turn_seconds": 60})["id"],
        4,
    )
    game.tokens = [api.join(game.id, s) for s in range(4)]
    for seat, cards in PASSES_4P.items():
        assert api.pass_cards(game, seat, cards).status_code == 200
    listen = Notifications(database)
    try:
        with hearing(redis_server.url, JOBS_CHANNEL) as jobs:
            listen.heard()  # what the game's start announced, if anything
            play_one(api, game)
            heard = wait_for(lambda: len(jobs.take()) >= 2 and jobs.payloads, "the jobs", 10)
        due = [p for p in heard if p != OUTBOX_NOTE]
        assert heard.count(OUTBOX_NOTE) == 1  # once for the commit, not once per delivery
        assert len(due) == 1 and datetime.fromisoformat(due[0]) > datetime.now(UTC)
        assert listen.heard() == []  # PostgreSQL announced nothing
        assert one.container.notices is not None and one.container.notices.lost == 0
    finally:
        listen.conn.close()


def test_with_redis_the_lobby_and_a_revoked_token_reach_the_other_node(
    make_app: MakeApp, database: str, redis_server: RedisServer
) -> None:
    """What the relay does not announce (a public table's change, a token revoked) goes
    on the bus too, from the node whose command it was."""
    one = node(make_app, database, redis_server.url)
    two = node(make_app, database, redis_server.url)
    api = one.api()
    player = api.post("/v1/players", {"name": "Mio"}).get_json()
    (token,) = api.get("/v1/me/tokens", **bearer(player["token"])).get_json()["tokens"]
    digest = hashlib.sha256(player["token"].encode()).hexdigest()
    listen = Notifications(database)
    try:
        with (
            hub(two).subscribe(LOBBY_KEY) as lobby,
            hub(two).subscribe(token_key(digest)) as revoked,
        ):
            bus = two.container.bus
            assert bus is not None
            wait_for(bus.listening.is_set, "node two to subscribe to the bus", 10)
            # Subscribed, it wakes every waiter once (to read what it may have missed).
            assert lobby.wait(10) and revoked.wait(10)
            listen.heard()
            api.create(3, visibility="public")
            assert lobby.wait(10), "node two's lobby was not woken"
            assert not revoked.wait(0)
            gone = api.client.delete(
                f"/v1/me/tokens/{token['id']}", headers=bearer(player["token"])
            )
            assert gone.status_code == 204
            assert revoked.wait(10), "node two did not hear of the revoked token"
        assert listen.heard() == []
    finally:
        listen.conn.close()


def test_with_redis_a_followed_players_seat_at_a_public_table_reaches_the_other_node(
    make_app: MakeApp, database: str, redis_server: RedisServer
) -> None:
    """The announcement a follower's stream waits for (service/application/social/
    projections.py) goes on the bus like the lobby's, and no NOTIFY is sent."""
    one = node(make_app, database, redis_server.url)
    two = node(make_app, database, redis_server.url)
    api = one.api()
    player = api.post("/v1/players", {"name": "Ren"}).get_json()
    listen = Notifications(database)
    try:
        with hub(two).subscribe(
            player_key(UUID(player["id"])), (), (follow_key(UUID(player["id"])),)
        ) as followed:
            bus = two.container.bus
            assert bus is not None
            wait_for(bus.listening.is_set, "node two to subscribe to the bus", 10)
            assert followed.wait(10)  # subscribed: every waiter is woken once
            followed.heard = False
            listen.heard()
            game_id = api.create(3, visibility="public")["id"]
            joined = api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(player["token"]))
            assert joined.status_code == 201, joined.get_json()
            wait_for(lambda: followed.heard, "node two to hear of the seat", 10)
            assert not followed.ended
        assert listen.heard() == []
    finally:
        listen.conn.close()


def test_without_redis_a_node_still_notifies(make_app: MakeApp, database: str) -> None:
    """The embedded default: no relay, PostgreSQL's NOTIFY as before."""
    alone = make_app(database_url=database)
    assert alone.container.bus is None
    game = start_playing(alone.api())
    listen = Notifications(database)
    try:
        play_one(alone.api(), game)
        assert [p.split(" ")[:3] for p in listen.heard()] == [
            ["g", game.id, str(version(alone.api(), game))]
        ]
    finally:
        listen.conn.close()


def test_without_redis_a_new_delivery_is_notified_once_by_the_commit(
    make_app: MakeApp, database: str
) -> None:
    """The outbox's note rides the commit's statement only when it wrote a delivery
    (migration 0017)."""
    alone = make_app(database_url=database)
    api = alone.api()
    game = start_playing(api)
    listen = Notifications(database)
    try:
        play_one(api, game)  # nobody listens to webhooks: no delivery, no note
        assert [p.split(" ")[0] for p in listen.heard()] == ["g"]
        hook = {"url": "https://93.184.216.34/a", "events": ["turn"]}
        assert api.client.post("/v1/webhooks", json=hook, headers=OPERATOR).status_code == 201
        listen.heard()
        play_one(api, game)  # a delivery
        assert sorted(p.split(" ")[0] for p in listen.heard()) == ["g", OUTBOX_NOTE]
    finally:
        listen.conn.close()


def test_what_a_node_could_not_publish_while_redis_was_away_is_published_once_it_is_back(
    make_app: MakeApp, database: str
) -> None:
    """A clocked play made while Redis is away succeeds; its due time waits in the node
    and reaches Redis once Redis is back: nothing lost."""
    with running() as bus_server:
        one = node(make_app, database, bus_server.url)
        api = one.api()
        game = Game(api.create(4, clock={"turn_seconds": 60})["id"], 4)
        game.tokens = [api.join(game.id, s) for s in range(4)]
        notices = one.container.notices
        assert notices is not None
        wait_for(lambda: notices.pending() == 0, "the game's start to be published", 10)
        published = notices.published
        counted = metric(one, "yokai_bus_notices_total", outcome="published") or 0
        failed = metric(one, "yokai_bus_publish_failures_total") or 0
        bus_server.stop()
        for seat in range(4):  # the passes move the game's due time: announced
            legal = api.view(game, seat)["legal"][:3]
            assert api.pass_cards(game, seat, legal).status_code == 200
        wait_for(lambda: notices.failures >= 1, "a publication to fail", 10)
        assert notices.pending() >= 1
        bus_server.start()
        wait_for(lambda: notices.pending() == 0, "the waiting notes to be published", 20)
        assert notices.published > published and notices.lost == 0
        # /metrics says so: the failed attempts, then what was published once Redis was back
        assert (metric(one, "yokai_bus_publish_failures_total") or 0) >= failed + 1
        assert (metric(one, "yokai_bus_notices_total", outcome="published") or 0) >= counted + (
            notices.published - published
        )
        assert metric(one, "yokai_bus_notices_total", outcome="dropped") is not None


def test_a_node_whose_redis_goes_silent_notices_and_subscribes_again(
    make_app: MakeApp, database: str
) -> None:
    """Redis stopped (SIGSTOP: its connections stay open, nothing answers): the node
    notices without waiting for TCP, says degraded, and subscribes again once Redis
    answers (SIGCONT)."""
    with running() as bus_server:
        two = node(make_app, database, bus_server.url)
        game = start_playing(two.api())
        with hub(two).subscribe(game_key(UUID(game.id))) as waiting:
            bus = two.container.bus
            assert bus is not None
            wait_for(bus.listening.is_set, "node two to subscribe to the bus", 10)
            assert bus_server.started is not None
            process = bus_server.started.process
            process.send_signal(signal.SIGSTOP)
            try:
                waiting.wait(0)
                wait_for(lambda: not bus.listening.is_set(), "the silence to be noticed", 30)
                assert waiting.wait(10), "the waiter was not woken to look at the store"
                assert hub(two).deaf
            finally:
                process.send_signal(signal.SIGCONT)
            wait_for(bus.listening.is_set, "node two to subscribe again", 30)
            assert not hub(two).deaf


def test_a_node_whose_redis_is_away_says_degraded_and_catches_up_when_it_is_back(
    make_app: MakeApp, database: str
) -> None:
    with running() as bus_server:
        one = node(make_app, database, bus_server.url)
        two = node(make_app, database, bus_server.url)
        game = start_playing(one.api())
        assert one.api().client.get("/readyz").get_json()["status"] == "ok"
        with (
            relaying(database, bus_server.url) as relay,
            hub(two).subscribe(game_key(UUID(game.id))) as waiting,
        ):
            bus = two.container.bus
            assert bus is not None
            wait_for(bus.listening.is_set, "node two to subscribe to the bus", 10)
            waiting.wait(0)
            bus_server.stop()
            # Losing the bus wakes the waiters, to look at the store on a timer from now.
            assert waiting.wait(10), "node two's waiter was not woken as the bus was lost"
            assert not bus.listening.is_set() and hub(two).deaf
            play_one(one.api(), game)  # commands go on
            ready = wait_for(
                lambda: (
                    (r := two.api().client.get("/readyz")).get_json()["status"] == "degraded" and r
                ),
                "readyz to say degraded",
                10,
            )
            assert ready.status_code == 200

            bus_server.start()
            # Subscribed again, node two wakes its waiters (they read the store), and the
            # relay announces what it could not.
            assert waiting.wait(15), "node two's waiter was not woken once Redis was back"
            wait_for(lambda: bus.connections >= 2, "node two to subscribe again", 10)
            wait_for(
                lambda: relay.position is not None and relay.announced >= 1,
                "the relay to announce the play made while Redis was away",
                15,
            )
            wait_for(
                lambda: two.api().client.get("/readyz").get_json()["status"] == "ok",
                "readyz to say ok again",
                10,
            )


def test_with_redis_a_chat_message_reaches_the_other_nodes_stream_without_notify(
    make_app: MakeApp, database: str, redis_server: RedisServer
) -> None:
    """A chat message written on one node goes on the bus (its announcement carries its
    id) and reaches a stream of the game on the other (docs/api.md "Table talk")."""
    one = node(make_app, database, redis_server.url)
    two = node(make_app, database, redis_server.url)
    api = one.api()
    game = api.start(3)
    listen = Notifications(database)
    try:
        bus = two.container.bus
        assert bus is not None
        with (
            served(two.flask) as host,
            SseStream(host, f"/v1/games/{game.id}/stream", game.seat_headers(1)) as stream,
        ):
            assert stream.status == 200
            assert stream.until("view")
            wait_for(bus.listening.is_set, "node two to subscribe to the bus", 10)
            listen.heard()
            r = api.post(
                f"/v1/games/{game.id}/chat", {"text": "over the bus"}, **game.seat_headers(0)
            )
            assert r.status_code == 201, r.get_json()
            got = stream.until("chat", seconds=10)[-1]
            assert got.data["text"] == "over the bus" and got.data["id"] == r.get_json()["id"]
            assert hub(two).announced(chat_key(UUID(game.id))) == r.get_json()["id"]
        assert listen.heard() == []  # announced on the bus, not by NOTIFY
    finally:
        listen.conn.close()
