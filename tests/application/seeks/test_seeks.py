"""Quick play through the handlers, on the fakes (docs/api.md "Quick play"): a player's
seek (one open at a time, expiring), its cancel, and the worker's pairing: a full set
seated as the drawn order says, every seat joined as its player, the game dealt, the
seeks matched, the inbox and webhooks told, all in one commit; bots for a seek whose
delay passed; rated seeks taking only players in their range."""

from __future__ import annotations

import itertools
from datetime import timedelta
from uuid import UUID, uuid4

import pytest

from service.application.commands import CancelSeek, CreateSeek, PairSeeks
from service.application.errors import (
    ForbiddenError,
    InvalidInputError,
    UnauthenticatedError,
)
from service.application.games.queries.inbox import inbox
from service.application.identity.principals import Anonymous, Operator, PlayerHolder
from service.application.live import player_stream
from service.application.live.streams import (
    GameMessage,
    InboxMessage,
    KeepAlive,
    MatchedMessage,
    PlayerStreamMessage,
    Stream,
)
from service.application.ports import ActorKind
from service.application.results import InboxPage, Paired, SeekCancelled, SeekCreated
from service.application.seeks import queries
from service.application.seeks.handlers import SeekMatchedError, SeekNotFoundError
from service.application.seeks.ports import AlreadySeekingError, Pool, SeekStatus
from service.rules import Scoring, Variant
from tests.application.identity.test_players import player
from tests.application.table import Table, ordered_deal

FOURS = Pool(4, Scoring.BASIC, Variant.STANDARD, False)
THREES = Pool(3, Scoring.BASIC, Variant.STANDARD, True)
WORKER = Operator()


def seek(table: Table, who: PlayerHolder, pool: Pool = FOURS, **options: object) -> UUID:
    made = table.run(CreateSeek(pool, **options), who)  # type: ignore[arg-type]
    assert isinstance(made, SeekCreated)
    return made.seek_id


def pair(table: Table, pool: Pool = FOURS, order: tuple[int, ...] = (0, 1, 2, 3)) -> Paired:
    table.dealer.script.append(ordered_deal(pool.players))
    done = table.run(PairSeeks(pool, order[: pool.players]), WORKER)
    assert isinstance(done, Paired)
    return done


def test_a_player_seeks_a_game_until_the_seek_expires(table: Table) -> None:
    mio = player(table)
    made = table.run(CreateSeek(FOURS, bots_after=30), mio)
    assert isinstance(made, SeekCreated)
    assert made.expires_at == table.clock.now() + timedelta(hours=24)
    assert table.db.seek_notes == 1  # the workers hear of it with the commit
    found = queries.seek(table.deps, mio, made.seek_id)
    assert (found.status, found.pool, found.bots_after) == (SeekStatus.OPEN, FOURS, 30)
    table.clock.advance(timedelta(hours=24))
    found = queries.seek(table.deps, mio, made.seek_id)
    assert (found.status, found.ended_at) == (SeekStatus.EXPIRED, made.expires_at)


def test_only_players_seek(table: Table) -> None:
    with pytest.raises(UnauthenticatedError) as missing:
        table.run(CreateSeek(FOURS), Anonymous())
    assert missing.value.code == "missing_token"
    with pytest.raises(ForbiddenError):
        table.run(CreateSeek(FOURS), WORKER)


def test_one_open_seek_at_a_time_and_an_expired_one_makes_way(table: Table) -> None:
    mio = player(table)
    first = seek(table, mio)
    with pytest.raises(AlreadySeekingError):
        seek(table, mio, THREES)
    table.clock.advance(timedelta(hours=25))
    second = seek(table, mio, THREES)
    assert queries.seek(table.deps, mio, first).status is SeekStatus.EXPIRED
    assert queries.seek(table.deps, mio, second).status is SeekStatus.OPEN


def test_what_no_pool_can_pair_is_refused(table: Table) -> None:
    mio = player(table)
    seven_of_three = Pool(3, Scoring.BASIC, Variant.SEVEN_FOLLOWERS, False)
    with pytest.raises(InvalidInputError) as refused:
        seek(table, mio, seven_of_three)
    assert refused.value.code == "invalid_options"
    with pytest.raises(InvalidInputError) as refused:
        seek(table, mio, THREES, rating_range=(2.0, 1.0))
    assert refused.value.code == "invalid_rating_range"


def test_a_player_cancels_their_open_seek_once(table: Table) -> None:
    mio, rin = player(table), player(table, "Rin")
    made = seek(table, mio)
    with pytest.raises(SeekNotFoundError):
        table.run(CancelSeek(made), rin)
    with pytest.raises(SeekNotFoundError):
        table.run(CancelSeek(uuid4()), mio)
    assert table.run(CancelSeek(made), mio) == SeekCancelled(made)
    assert table.run(CancelSeek(made), mio) == SeekCancelled(made)  # stays cancelled
    assert queries.seek(table.deps, mio, made).status is SeekStatus.CANCELLED
    with pytest.raises(SeekNotFoundError):
        queries.seek(table.deps, rin, made)
    seek(table, mio)  # a new one may be made


def test_four_seeks_make_a_started_game_seated_by_the_drawn_order(table: Table) -> None:
    players = [player(table, f"P{n}") for n in range(4)]
    seeks = []
    for who in players:
        seeks.append(seek(table, who))
        table.clock.advance()
    done = pair(table, order=(2, 0, 3, 1))
    assert done.game_id is not None and done.matched == 4
    game_id = done.game_id
    view = table.public(game_id)
    assert view.status == "passing"  # dealt in the same commit
    assert [s.name for s in view.seats] == ["P1", "P3", "P0", "P2"]
    joins = [e for e in table.stream(game_id) if e.type == "SeatJoined"]
    # The draw, recorded: the seats in the order drawn, each joined by its player.
    assert [e.data["seat"] for e in joins] == [2, 0, 3, 1]
    assert [(e.actor.kind, e.actor.id) for e in joins] == [
        (ActorKind.PLAYER, str(p.player_id)) for p in players
    ]
    assert {e.actor.kind for e in table.stream(game_id)} == {ActorKind.SYSTEM, ActorKind.PLAYER}
    for who, seek_id, seat in zip(players, seeks, (2, 0, 3, 1), strict=True):
        found = queries.seek(table.deps, who, seek_id)
        assert (found.status, found.game_id, found.seat) == (SeekStatus.MATCHED, game_id, seat)
        page = inbox(table.deps, who, "active", None, 10)
        assert isinstance(page, InboxPage)
        (entry,) = page.games
        assert (entry.game_id, entry.seat, entry.my_turn, entry.action) == (
            game_id,
            seat,
            True,
            "pass",
        )
        holder = table.deps.identity.in_game(who, game_id)  # the player's token acts for it
        assert (holder.game_id, holder.seat) == (game_id, seat)  # type: ignore[union-attr]
    assert table.db.commits == 4 + 4 + 1  # players, seeks, and one commit for it all


def test_the_match_is_told_to_each_seat_s_player_with_the_game(table: Table) -> None:
    players = [player(table, f"P{n}") for n in range(4)]
    seeks = []
    for who in players:  # oldest first
        seeks.append(seek(table, who))
        table.clock.advance()
    done = pair(table, order=(3, 2, 1, 0))
    told = [(e.type, e.data, e.seat, b) for g, e, b in table.db.committed.told]
    matched = [(data, seat, bound) for kind, data, seat, bound in told if kind == "matched"]
    base = {"game_id": str(done.game_id), "version": done.version}
    assert [(data, seat) for data, seat, _ in matched] == [
        ({**base, "seek_id": str(s), "seat": seat}, seat)
        for s, seat in zip(seeks, (3, 2, 1, 0), strict=True)
    ]
    bound = set(matched[0][2])  # the seats' players, bound in the same commit
    assert bound == {(seat, p.player_id) for p, seat in zip(players, (3, 2, 1, 0), strict=True)}
    assert {kind for kind, *_ in told} == {"matched", "game_started", "turn"}


def test_too_few_seeks_make_nothing(table: Table) -> None:
    for n in range(3):
        seek(table, player(table, f"P{n}"))
    done = table.run(PairSeeks(FOURS, (0, 1, 2, 3)), WORKER)
    assert done == Paired(None, retry_at=None)
    assert table.db.committed.games == {}


def test_bots_take_the_seats_a_late_seek_left(table: Table) -> None:
    mio = player(table)
    made = seek(table, mio, bots_after=30)
    table.clock.advance(timedelta(seconds=29))
    done = table.run(PairSeeks(FOURS, (1, 3, 0, 2)), WORKER)
    assert done == Paired(None, retry_at=table.clock.now() + timedelta(seconds=1))
    table.clock.advance(timedelta(seconds=1))
    done = pair(table, order=(1, 3, 0, 2))
    assert done.game_id is not None and done.matched == 1
    view = table.public(done.game_id)
    assert view.status == "passing"
    assert [s.bot for s in view.seats] == ["basic", None, "basic", "basic"]
    assert queries.seek(table.deps, mio, made).seat == 1


def test_a_rated_seek_takes_only_players_in_its_widening_range(table: Table) -> None:
    picky, strong, other = (player(table, n) for n in ("Picky", "Strong", "Other"))
    table.db.ordinals[strong.player_id] = 3.0  # as ratings will give (issue 30)
    seek(table, picky, THREES, rating_range=(-1.0, 1.0))
    seek(table, strong, THREES)
    seek(table, other, THREES)
    done = table.run(PairSeeks(THREES, (0, 1, 2)), WORKER)
    assert done == Paired(None, retry_at=table.clock.now() + timedelta(seconds=10))
    table.clock.advance(timedelta(seconds=10))  # (-2, 2): not yet
    assert table.run(PairSeeks(THREES, (0, 1, 2)), WORKER).game_id is None  # type: ignore[union-attr]
    table.clock.advance(timedelta(seconds=10))  # (-3, 3): now
    assert pair(table, THREES).matched == 3


def test_a_pairing_sent_again_under_its_key_is_done_once(table: Table) -> None:
    for n in range(8):
        seek(table, player(table, f"P{n}"))
    table.dealer.script.append(ordered_deal())
    command = PairSeeks(FOURS, (0, 1, 2, 3))
    first = table.run(command, WORKER, idempotency_key="pairing-1")
    again = table.run(command, WORKER, idempotency_key="pairing-1")
    assert first == again
    assert len(table.db.committed.games) == 1  # the other four are still open


def test_a_matched_seek_is_not_cancelled(table: Table) -> None:
    players = [player(table, f"P{n}") for n in range(4)]
    seeks = [seek(table, who) for who in players]
    pair(table)
    with pytest.raises(SeekMatchedError):
        table.run(CancelSeek(seeks[0]), players[0])


def test_the_player_stream_tells_the_match_then_the_new_game(table: Table) -> None:
    players = [player(table, f"P{n}") for n in range(4)]
    stream = player_stream.player_stream(table.deps, players[0], keepalive=0.01)
    assert next(stream) == InboxMessage([])
    seeks = []
    for who in players:
        seeks.append(seek(table, who))
        table.clock.advance()
    assert quiet(stream) == []  # a seek is no game yet
    done = pair(table, order=(1, 0, 2, 3))
    matched = queries.seek(table.deps, players[0], seeks[0])
    page = inbox(table.deps, players[0], "active", None, 10)
    assert isinstance(page, InboxPage)
    assert quiet(stream) == [MatchedMessage(matched), GameMessage(page.games[0])]
    assert (matched.game_id, matched.seat) == (done.game_id, 1)
    stream.close()


def quiet(stream: Stream[PlayerStreamMessage]) -> list[PlayerStreamMessage]:
    """The messages before the next keep-alive (the stream's keep-alive is short)."""
    return list(itertools.takewhile(lambda m: m != KeepAlive(), stream))
