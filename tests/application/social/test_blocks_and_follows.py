"""Blocks and follows through the handlers, on the fakes (docs/api.md "Blocks and
follows"): the commands and their refusals, the lists, and what a block keeps apart
(invitations either way, a table of quick play) and a follow tells (the player stream's
``follow`` when a followed player sits at a public table)."""

from __future__ import annotations

import itertools
from uuid import UUID, uuid4

import pytest

from service.application.commands import (
    CreateGame,
    CreateSeek,
    Invitation,
    JoinSeat,
    PairSeeks,
    SetBlock,
    SetFollow,
)
from service.application.errors import InvalidInputError
from service.application.identity.players import PlayerNotFoundError
from service.application.identity.principals import Operator, PlayerHolder
from service.application.live import player_stream
from service.application.live.streams import (
    FollowMessage,
    InboxMessage,
    KeepAlive,
    PlayerStreamMessage,
    Stream,
)
from service.application.results import Created, Paired, Related
from service.application.seeks.ports import Pool
from service.application.social import handlers, queries
from service.application.social.blocking import BlockedError
from service.rules import Scoring, Variant, Visibility
from tests.application.identity.test_players import player
from tests.application.table import Table, ordered_deal

THREES = Pool(3, Scoring.BASIC, Variant.STANDARD, False)


def test_a_player_blocks_and_unblocks_another_once(table: Table) -> None:
    mio, ren, aiko = player(table), player(table, "Ren"), player(table, "Aiko")
    assert table.run(SetBlock(ren.player_id, True), mio) == Related(ren.player_id, True)
    table.clock.advance()
    table.run(SetBlock(aiko.player_id, True), mio)
    table.run(SetBlock(ren.player_id, True), mio)  # again: nothing changes
    page = queries.blocks(table.deps, mio, None, 10)
    assert [(p.player_id, p.name) for p in page.players] == [
        (ren.player_id, "Ren"),
        (aiko.player_id, "Aiko"),
    ]
    with table.deps.uow() as uow:
        assert uow.blocks.blocked_by(mio.player_id) == {ren.player_id, aiko.player_id}
        assert uow.blocks.blocked_by(ren.player_id) == frozenset()
    table.run(SetBlock(ren.player_id, False), mio)
    table.run(SetBlock(ren.player_id, False), mio)  # not blocked: nothing changes
    assert [p.player_id for p in queries.blocks(table.deps, mio, None, 10).players] == [
        aiko.player_id
    ]


def test_the_lists_are_paged_oldest_first_with_an_etag_of_what_they_show(table: Table) -> None:
    mio = player(table)
    others = [player(table, f"P{n}") for n in range(3)]
    for other in others:
        table.run(SetFollow(other.player_id, True), mio)
        table.clock.advance()
    first = queries.follows(table.deps, mio, None, 2)
    assert [p.player_id for p in first.players] == [o.player_id for o in others[:2]]
    assert first.next_cursor is not None
    rest = queries.follows(table.deps, mio, first.next_cursor, 2)
    assert ([p.player_id for p in rest.players], rest.next_cursor) == ([others[2].player_id], None)
    assert queries.follows(table.deps, mio, None, 2).etag == first.etag
    table.run(SetFollow(others[0].player_id, False), mio)
    assert queries.follows(table.deps, mio, None, 2).etag != first.etag


def test_what_cannot_be_blocked_or_followed_is_refused(table: Table) -> None:
    mio = player(table)
    for command in (SetBlock, SetFollow):
        with pytest.raises(PlayerNotFoundError):
            table.run(command(uuid4(), True), mio)
        with pytest.raises(InvalidInputError) as refused:
            table.run(command(mio.player_id, True), mio)
        verb = "block" if command is SetBlock else "follow"
        assert refused.value.code == f"cannot_{verb}_self"


def test_past_the_most_a_player_blocks_a_new_block_is_refused(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(handlers, "MOST", 2)
    mio = player(table)
    others = [player(table, f"P{n}") for n in range(3)]
    for other in others[:2]:
        table.run(SetBlock(other.player_id, True), mio)
        table.run(SetFollow(other.player_id, True), mio)
    table.run(SetBlock(others[0].player_id, True), mio)  # held already: not a new one
    for command, code in ((SetBlock, "too_many_blocks"), (SetFollow, "too_many_follows")):
        with pytest.raises(InvalidInputError) as refused:
            table.run(command(others[2].player_id, True), mio)
        assert refused.value.code == code


def invite(table: Table, by: PlayerHolder, *invited: PlayerHolder) -> UUID:
    made = table.run(
        CreateGame(3, Scoring.BASIC, invite=tuple(Invitation(p.player_id) for p in invited)), by
    )
    assert isinstance(made, Created)
    return made.game_id


def test_neither_player_of_a_block_invites_the_other(table: Table) -> None:
    mio, ren, aiko = player(table), player(table, "Ren"), player(table, "Aiko")
    table.run(SetBlock(ren.player_id, True), mio)
    for by, invited in ((mio, ren), (ren, mio)):
        with pytest.raises(BlockedError) as refused:
            invite(table, by, invited, aiko)
        assert refused.value.code == "blocked"
    invite(table, ren, aiko)  # others are invited as before
    invite(table, aiko, mio, ren)  # and may invite both: it is their invitation
    table.run(SetBlock(ren.player_id, False), mio)
    invite(table, mio, ren)


def seek(table: Table, who: PlayerHolder) -> None:
    table.run(CreateSeek(THREES), who)
    table.clock.advance()


def pair(table: Table) -> Paired:
    table.dealer.script.append(ordered_deal(3))
    done = table.run(PairSeeks(THREES, (0, 1, 2)), Operator())
    assert isinstance(done, Paired)
    return done


def seated(table: Table, game_id: UUID | None) -> set[UUID]:
    assert game_id is not None
    return {p for (g, _), p in table.db.committed.seat_players.items() if g == game_id}


def test_quick_play_never_seats_two_players_of_a_block_together(table: Table) -> None:
    mio, ren, aiko, kai = (player(table, n) for n in ("Mio", "Ren", "Aiko", "Kai"))
    table.run(SetBlock(mio.player_id, True), ren)
    for who in (mio, ren, aiko, kai):  # the oldest first: Mio, then Ren
        seek(table, who)
    first = pair(table)
    assert seated(table, first.game_id) == {mio.player_id, aiko.player_id, kai.player_id}
    assert pair(table).game_id is None  # Ren waits: nobody else is seeking
    rin, sora = player(table, "Rin"), player(table, "Sora")
    seek(table, rin)
    seek(table, sora)
    second = pair(table)
    assert seated(table, second.game_id) == {ren.player_id, rin.player_id, sora.player_id}


def quiet(stream: Stream[PlayerStreamMessage]) -> list[PlayerStreamMessage]:
    """The messages before the next keep-alive (the stream's keep-alive is short)."""
    return list(itertools.takewhile(lambda m: m != KeepAlive(), stream))


def test_a_followed_players_seat_at_a_public_table_reaches_the_followers_stream(
    table: Table,
) -> None:
    mio, ren, aiko = player(table), player(table, "Ren"), player(table, "Aiko")
    table.run(SetFollow(ren.player_id, True), mio)
    before = table.create(3, visibility=Visibility.PUBLIC)
    table.run(JoinSeat(before, 0, None), ren)  # before the stream opens: not told
    table.clock.advance()
    stream = player_stream.player_stream(table.deps, mio, keepalive=0.01)
    assert next(stream) == InboxMessage([])
    private = table.create(3)
    table.run(JoinSeat(private, 0, None), ren)
    public = table.create(3, visibility=Visibility.PUBLIC)
    table.run(JoinSeat(public, 1, None), aiko)  # a player not followed
    assert quiet(stream) == []
    table.run(JoinSeat(public, 0, None), ren)
    assert quiet(stream) == [FollowMessage(ren.player_id, public)]
    table.run(CreateGame(3, Scoring.BASIC, visibility=Visibility.PUBLIC), ren)
    assert quiet(stream) == []  # created, not seated: nothing yet
    stream.close()
    page = queries.follows(table.deps, mio, None, 10)
    assert [(p.player_id, p.online, p.playing) for p in page.players] == [
        (ren.player_id, False, (before, public))
    ]
