"""The games capability's ports (service/application/games/ports.py), on the fakes and
on PostgreSQL: the games index and the heads of their chains, the players' inbox, the
snapshots, and the wakeups of the worker."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from uuid import UUID, uuid4

import pytest

from service.application.games.ports import (
    GameSummary,
    Head,
    InboxCursor,
    InboxEntry,
    SeatTurn,
    Snapshot,
)
from tests.contract.builders import (
    events,
    inbox_entry,
    minutes,
    new_game,
    new_player,
    summary,
)
from tests.contract.stores import Store

# --- GameIndex -------------------------------------------------------------------------


def add_games(store: Store, *games: GameSummary) -> None:
    with store.uow() as uow:
        for g in games:
            uow.games.add(g)
        uow.commit()


def test_a_game_is_read_back_as_it_was_added(store: Store) -> None:
    at = store.clock.now()
    game = GameSummary(uuid4(), at, at + minutes(1), 3, "teams", "short", "playing", 12)
    add_games(store, game)
    with store.uow() as uow:
        assert uow.games.get(game.id) == game
        assert uow.games.get(uuid4()) is None


def test_an_update_changes_the_status_version_and_time_of_change(store: Store) -> None:
    at = store.clock.now()
    game = summary(uuid4(), at)
    add_games(store, game)
    with store.uow() as uow:
        uow.games.update(game.id, status="playing", version=7, updated_at=at + minutes(1))
        uow.games.update(uuid4(), status="playing", version=7, updated_at=at)  # none: nothing
        uow.commit()
    with store.uow() as uow:
        assert uow.games.get(game.id) == summary(
            game.id, at, version=7, status="playing", updated_at=at + minutes(1)
        )
        assert len(uow.games.ids()) == 1


def test_a_game_is_added_once(store: Store) -> None:
    at = store.clock.now()
    game = summary(uuid4(), at)
    add_games(store, game)
    with store.uow() as uow:
        uow.games.add(summary(game.id, at, status="playing"))
        with pytest.raises(store.integrity_error):
            uow.commit()
    with store.uow() as uow:
        assert uow.games.get(game.id) == game


def some_games(store: Store) -> list[GameSummary]:
    """Seven games: created a minute apart but two at the same moment (then ordered by
    id), each changed at a time of its own (not in the order they were created), of two
    statuses."""
    at = store.clock.now()
    created = [at + minutes(n) for n in (0, 1, 2, 2, 3, 4, 5)]
    changed = [at + minutes(n) for n in (30, 10, 50, 20, 60, 40, 20)]
    games = [
        summary(
            uuid4(),
            c,
            status="waiting" if n % 3 == 0 else "playing",
            updated_at=u,
        )
        for n, (c, u) in enumerate(zip(created, changed, strict=True))
    ]
    add_games(store, *reversed(games))
    return games


def by_creation(games: list[GameSummary]) -> list[GameSummary]:
    return sorted(games, key=lambda g: (g.created_at, g.id))


def by_change(games: list[GameSummary]) -> list[GameSummary]:
    return sorted(games, key=lambda g: (g.updated_at, g.id))


def test_ids_are_every_game_oldest_first(store: Store) -> None:
    games = some_games(store)
    with store.uow() as uow:
        assert uow.games.ids() == [g.id for g in by_creation(games)]


@pytest.mark.parametrize("status", [None, "playing"])
def test_pages_of_games_go_newest_first_strictly_before_their_cursor(
    store: Store, status: str | None
) -> None:
    games = some_games(store)
    newest_first = [g for g in reversed(by_creation(games)) if status in (None, g.status)]
    pages: list[list[GameSummary]] = []
    before: tuple[datetime, UUID] | None = None
    with store.uow() as uow:
        while page := uow.games.page(status=status, before=before, limit=2):
            assert len(page) <= 2
            pages.append(page)
            before = (page[-1].created_at, page[-1].id)
    assert [g for page in pages for g in page] == newest_first
    assert len(pages) == (len(newest_first) + 1) // 2


def test_idle_games_are_those_of_a_status_unchanged_since_a_time_oldest_first(
    store: Store,
) -> None:
    games = some_games(store)
    cutoff = store.clock.now() + minutes(40)
    idle = [g.id for g in by_change(games) if g.status == "playing" and g.updated_at < cutoff]
    with store.uow() as uow:
        assert uow.games.idle(status="playing", before=cutoff, limit=10) == idle
        assert uow.games.idle(status="playing", before=cutoff, limit=2) == idle[:2]
        assert uow.games.idle(status="finished", before=cutoff, limit=10) == []


@pytest.mark.parametrize("status", [None, "playing"])
def test_changed_games_come_oldest_change_first_since_a_time_after_a_cursor(
    store: Store, status: str | None
) -> None:
    games = some_games(store)
    since = store.clock.now() + minutes(20)  # at or after: the two changed at 20 are in
    expected = [g for g in by_change(games) if status in (None, g.status) and g.updated_at >= since]
    pages: list[list[GameSummary]] = []
    after: tuple[datetime, UUID] | None = None
    with store.uow() as uow:
        while page := uow.games.changed(status=status, since=since, after=after, limit=2):
            pages.append(page)
            after = (page[-1].updated_at, page[-1].id)
        everything = uow.games.changed(status=status, since=None, after=None, limit=100)
    assert [g for page in pages for g in page] == expected
    assert everything == [g for g in by_change(games) if status in (None, g.status)]


def test_heads_are_each_games_event_at_its_version_by_last_change(store: Store) -> None:
    at = store.clock.now()
    three = new_game(store, count=3, updated_at=at + minutes(2))
    one = new_game(store, count=1, updated_at=at + minutes(1))
    headless = uuid4()  # its row says version 2, its stream has only event 1
    with store.uow() as uow:
        uow.games.add(summary(headless, at, version=2))
        uow.events.append(events(headless, at))
        uow.commit()
    with store.uow() as uow:
        hash_of = {g: uow.events.load(g)[-1].hash for g in (three, one)}
        expected = [
            Head(one, 1, hash_of[one], at + minutes(1)),
            Head(three, 3, hash_of[three], at + minutes(2)),
        ]
        assert uow.games.heads(since=None, after=None, limit=10) == expected
        assert uow.games.heads(since=None, after=None, limit=1) == expected[:1]
        assert uow.games.heads(since=at + minutes(2), after=None, limit=10) == expected[1:]
        after = (at + minutes(1), one)
        assert uow.games.heads(since=None, after=after, limit=10) == expected[1:]


# --- Inbox -----------------------------------------------------------------------------


def add_entries(store: Store, *entries: InboxEntry) -> None:
    with store.uow() as uow:
        for e in entries:
            uow.inbox.add(e)
        uow.commit()


def cursor(e: InboxEntry) -> InboxCursor:
    return InboxCursor(e.my_turn, e.deadline, e.due_since, e.updated_at, e.game_id)


def test_an_entry_is_read_back_as_it_was_added(store: Store) -> None:
    at = store.clock.now()
    mio, bo = new_player(store), new_player(store, "Bo")
    game_id = new_game(store)
    entry = InboxEntry(
        mio.id, game_id, 2, "playing", 9, 3, "teams", "short", (3, -1, 0), (0, 2),
        True, "play", at - minutes(3), at + minutes(5), at,
    )  # fmt: skip
    add_entries(store, entry, inbox_entry(bo.id, game_id, at, seat=1))
    with store.uow() as uow:
        assert uow.inbox.page(mio.id, ["playing"], None, 10) == [entry]
        assert uow.inbox.page(mio.id, ["waiting", "finished"], None, 10) == []


def test_an_invitations_entry_reads_its_inviters_name_and_one_games_entry_is_read(
    store: Store,
) -> None:
    """Issue 48: the inviter's id and the finished game a rematch plays again are kept;
    the inviter's name is read with the entry (as their row has it now), by every read."""
    at = store.clock.now()
    mio, bo = new_player(store), new_player(store, "Bo")
    game_id, finished = new_game(store), new_game(store)
    invited = replace(
        inbox_entry(mio.id, game_id, at, action="join"), invited_by=bo.id, rematch_of=finished
    )
    add_entries(store, invited, inbox_entry(mio.id, finished, at, status="finished"))
    read = replace(invited, invited_by_name=bo.name)
    with store.uow() as uow:
        assert uow.inbox.page(mio.id, ["playing"], None, 10) == [read]
        assert uow.inbox.stamped_page(mio.id, ["playing"], None, 10)[1] == [read]
        assert read in uow.inbox.watched(mio.id, at)
        assert uow.inbox.of_game(mio.id, game_id) == read
        assert uow.inbox.of_game(mio.id, finished) == inbox_entry(
            mio.id, finished, at, status="finished"
        )
        assert uow.inbox.of_game(bo.id, game_id) is None


def test_the_inbox_lists_the_seats_turns_first_then_the_latest_changed(store: Store) -> None:
    """The seat's turn first: soonest deadline (none last), then longest waiting; then
    the others, most recently updated first; ties by game."""
    at = store.clock.now()
    mio = new_player(store)
    games = [new_game(store) for _ in range(8)]

    def entry(
        n: int,
        *,
        action: str | None = None,
        deadline: datetime | None = None,
        due_since: datetime | None = None,
        status: str = "playing",
        updated_at: datetime | None = None,
    ) -> InboxEntry:
        return inbox_entry(
            mio.id,
            games[n],
            at,
            action=action,
            deadline=deadline,
            due_since=due_since,
            status=status,
            updated_at=updated_at,
        )

    expected = [
        entry(0, action="play", deadline=at + minutes(5), due_since=at - minutes(1)),
        entry(1, action="play", deadline=at + minutes(10), due_since=at - minutes(5)),
        entry(2, action="pass", deadline=None, due_since=at - minutes(20)),
        entry(3, action="play", deadline=None, due_since=at - minutes(10)),
        *sorted(
            [entry(4, updated_at=at + minutes(3)), entry(5, updated_at=at + minutes(3))],
            key=lambda e: e.game_id,
        ),
        entry(6, status="finished", updated_at=at + minutes(2)),
        entry(7, updated_at=at + minutes(1)),
    ]
    add_entries(store, *reversed(expected))
    statuses = ["playing", "finished"]
    with store.uow() as uow:
        assert uow.inbox.page(mio.id, statuses, None, 100) == expected
        assert uow.inbox.page(mio.id, statuses, None, 3) == expected[:3]
        for n, e in enumerate(expected):  # from any entry on: exactly the rest
            assert uow.inbox.page(mio.id, statuses, cursor(e), 100) == expected[n + 1 :]
        playing = [e for e in expected if e.status == "playing"]
        assert uow.inbox.page(mio.id, ["playing"], None, 100) == playing
        # The stamp and the page in one read: the same as each alone.
        stamp = uow.inbox.stamp(mio.id, statuses)
        assert uow.inbox.stamped_page(mio.id, statuses, None, 100) == (stamp, expected)
        assert uow.inbox.stamped_page(mio.id, statuses, None, 3) == (stamp, expected[:3])
        for n, e in enumerate(expected):
            found = uow.inbox.stamped_page(mio.id, statuses, cursor(e), 2)
            assert found == (stamp, expected[n + 1 : n + 3])
        empty = uow.inbox.stamped_page(mio.id, ["waiting"], None, 10)
        assert empty == ((0, None, 0), [])


def test_an_update_of_the_game_brings_each_of_its_entries_up_to_date(store: Store) -> None:
    """A seat that still must act the same way keeps the time since when it must."""
    at, later = store.clock.now(), store.clock.now() + minutes(1)
    mio, bo = new_player(store), new_player(store, "Bo")
    game_id, other_game = new_game(store), new_game(store)
    mine = inbox_entry(mio.id, game_id, at, seat=0, action="play", due_since=at)
    bos = inbox_entry(bo.id, game_id, at, seat=1)
    elsewhere = inbox_entry(mio.id, other_game, at, seat=3, action="play", due_since=at)
    add_entries(store, mine, bos, elsewhere)
    deadlines = (at + minutes(5), at + minutes(6))
    with store.uow() as uow:
        uow.inbox.update_game(
            game_id,
            status="playing",
            version=5,
            scores=(1, 2),
            winner=None,
            turns=[SeatTurn(0, "play", deadlines[0]), SeatTurn(1, "pass", deadlines[1])],
            updated_at=later,
        )
        uow.commit()
    now_mine = InboxEntry(
        mio.id, game_id, 0, "playing", 5, 4, "basic", "standard", (1, 2), None,
        True, "play", at, deadlines[0], later,
    )  # fmt: skip
    now_bos = InboxEntry(
        bo.id, game_id, 1, "playing", 5, 4, "basic", "standard", (1, 2), None,
        True, "pass", later, deadlines[1], later,
    )  # fmt: skip
    with store.uow() as uow:
        assert uow.inbox.page(mio.id, ["playing"], None, 10) == [now_mine, elsewhere]
        assert uow.inbox.page(bo.id, ["playing"], None, 10) == [now_bos]
    end = later + minutes(1)
    with store.uow() as uow:
        uow.inbox.update_game(
            game_id,
            status="finished",
            version=6,
            scores=(3, 2),
            winner=(0, 2),
            turns=[SeatTurn(0, None), SeatTurn(1, None)],
            updated_at=end,
        )
        uow.commit()
    with store.uow() as uow:
        (done,) = uow.inbox.page(mio.id, ["finished"], None, 10)
    assert done == InboxEntry(
        mio.id, game_id, 0, "finished", 6, 4, "basic", "standard", (3, 2), (0, 2),
        False, None, None, None, end,
    )  # fmt: skip


def test_an_update_of_the_game_drops_the_entries_of_players_gone(store: Store) -> None:
    """A declined invitation: the player's entry goes, the others' are brought up to date
    and the player's entries of other games stay."""
    at, later = store.clock.now(), store.clock.now() + minutes(1)
    mio, bo = new_player(store), new_player(store, "Bo")
    game_id, other_game = new_game(store), new_game(store)
    invited = inbox_entry(mio.id, game_id, at, seat=1, status="waiting", action="join")
    bos = inbox_entry(bo.id, game_id, at, seat=0, status="waiting")
    elsewhere = inbox_entry(mio.id, other_game, at, seat=3, status="waiting")
    add_entries(store, invited, bos, elsewhere)
    with store.uow() as uow:
        uow.inbox.update_game(
            game_id,
            status="waiting",
            version=3,
            scores=(0, 0),
            winner=None,
            turns=[SeatTurn(0, None), SeatTurn(1, None)],
            updated_at=later,
            gone=[mio.id],
        )
        uow.commit()
    with store.uow() as uow:
        assert uow.inbox.page(mio.id, ["waiting"], None, 10) == [elsewhere]
        (now_bos,) = uow.inbox.page(bo.id, ["waiting"], None, 10)
    assert (now_bos.version, now_bos.updated_at) == (3, later)


def test_a_stamp_counts_the_entries_their_latest_change_and_their_versions(
    store: Store,
) -> None:
    at = store.clock.now()
    mio, bo = new_player(store), new_player(store, "Bo")
    games = [new_game(store) for _ in range(3)]
    with store.uow() as uow:
        assert uow.inbox.stamp(mio.id, ["playing"]) == (0, None, 0)
    add_entries(
        store,
        inbox_entry(mio.id, games[0], at, status="playing", version=3),
        inbox_entry(mio.id, games[1], at, status="waiting", version=2, updated_at=at + minutes(2)),
        inbox_entry(mio.id, games[2], at, status="finished", version=9, updated_at=at + minutes(9)),
        inbox_entry(bo.id, games[0], at, status="playing", version=3, updated_at=at + minutes(5)),
    )
    with store.uow() as uow:
        assert uow.inbox.stamp(mio.id, ["playing", "waiting"]) == (2, at + minutes(2), 5)
        assert uow.inbox.stamp(mio.id, ["finished"]) == (1, at + minutes(9), 9)


def test_watched_entries_are_those_not_finished_and_those_changed_lately(store: Store) -> None:
    at = store.clock.now()
    mio = new_player(store)
    since = at + minutes(10)
    entries = {
        status: inbox_entry(mio.id, new_game(store), at, status=status, updated_at=updated)
        for status, updated in [
            ("waiting", at),
            ("playing", at),
            ("expired", at),  # whatever the status: only a finished game is left alone
            ("finished", at),
        ]
    }
    lately = inbox_entry(mio.id, new_game(store), at, status="finished", updated_at=since)
    add_entries(store, *entries.values(), lately)
    with store.uow() as uow:
        watched = uow.inbox.watched(mio.id, since)
    expected = [entries["waiting"], entries["playing"], entries["expired"], lately]
    assert sorted(watched, key=lambda e: e.game_id) == sorted(expected, key=lambda e: e.game_id)


def test_an_entry_needs_its_player_and_its_game(store: Store) -> None:
    at = store.clock.now()
    mio, game_id = new_player(store), new_game(store)
    for entry in (inbox_entry(uuid4(), game_id, at), inbox_entry(mio.id, uuid4(), at)):
        with store.uow() as uow:
            uow.inbox.add(entry)
            with pytest.raises(store.integrity_error):
                uow.commit()
    with store.uow() as uow:
        assert uow.inbox.stamp(mio.id, ["playing"]) == (0, None, 0)


# --- SnapshotStore ---------------------------------------------------------------------


def put(store: Store, snapshot: Snapshot) -> None:
    with store.uow() as uow:
        uow.snapshots.put(snapshot)
        uow.commit()


def test_a_snapshot_is_kept_for_its_schema_version(store: Store) -> None:
    game_id = new_game(store)
    snapshot = Snapshot(game_id, 64, "a" * 64, 1, {"state": {"round": 2}})
    put(store, snapshot)
    with store.uow() as uow:
        assert uow.snapshots.get(game_id, 1) == snapshot
        assert uow.snapshots.get(game_id, 2) is None
        assert uow.snapshots.get(uuid4(), 1) is None


def test_a_later_snapshot_replaces_the_one_kept_an_earlier_one_does_not(store: Store) -> None:
    game_id = new_game(store)
    kept = Snapshot(game_id, 128, "b" * 64, 1, {"v": 128})
    put(store, Snapshot(game_id, 64, "a" * 64, 1, {"v": 64}))
    put(store, kept)
    put(store, Snapshot(game_id, 64, "a" * 64, 1, {"v": 64}))
    put(store, Snapshot(game_id, 128, "c" * 64, 1, {"v": "the same version"}))
    with store.uow() as uow:
        assert uow.snapshots.get(game_id, 1) == kept


def test_a_snapshot_of_another_schema_version_replaces_the_one_kept(store: Store) -> None:
    """Whatever its version: the rules read snapshots of their own schema version only."""
    game_id = new_game(store)
    put(store, Snapshot(game_id, 128, "b" * 64, 1, {"v": 128}))
    newer_rules = Snapshot(game_id, 64, "a" * 64, 2, {"v": 64})
    put(store, newer_rules)
    with store.uow() as uow:
        assert uow.snapshots.get(game_id, 1) is None
        assert uow.snapshots.get(game_id, 2) == newer_rules


def test_a_snapshot_needs_its_game(store: Store) -> None:
    with store.uow() as uow:
        uow.snapshots.put(Snapshot(uuid4(), 64, "a" * 64, 1, {}))
        with pytest.raises(store.integrity_error):
            uow.commit()


# --- Wakeups ---------------------------------------------------------------------------


def wake(store: Store, game_id: UUID, due_at: datetime | None, version: int) -> None:
    with store.uow() as uow:
        uow.wakeups.set(game_id, due_at, version)
        uow.commit()


def claim(store: Store, now: datetime, lease: timedelta, limit: int = 10) -> list[UUID]:
    with store.uow() as uow:  # done at once: no commit
        return uow.wakeups.claim(now, now + lease, limit)


def next_due(store: Store) -> datetime | None:
    with store.uow() as uow:
        return uow.wakeups.next_due()


def test_due_games_are_claimed_oldest_due_first_then_leased(store: Store) -> None:
    at, lease = store.clock.now(), minutes(30)
    soon, first, second, later = (new_game(store) for _ in range(4))
    assert next_due(store) is None
    for game_id, due in [(soon, 1), (first, -5), (second, -1), (later, 60)]:
        wake(store, game_id, at + minutes(due), 1)
    assert next_due(store) == at - minutes(5)
    assert claim(store, at, lease, limit=1) == [first]
    assert claim(store, at, lease) == [second]  # the first is leased
    assert claim(store, at, lease) == []
    assert next_due(store) == at + minutes(1)
    assert claim(store, at + minutes(1), lease) == [soon]
    # A claimer that did not act: each game falls due again when its lease ends.
    assert next_due(store) == at + lease
    assert claim(store, at + lease - minutes(1), lease) == []
    assert set(claim(store, at + lease, lease)) == {first, second}


def test_a_claim_handed_back_is_due_at_once_unless_a_command_set_its_time(store: Store) -> None:
    at, lease = store.clock.now(), minutes(30)
    kept, reset = new_game(store), new_game(store)
    for game_id in (kept, reset):
        wake(store, game_id, at - minutes(1), 1)
    assert set(claim(store, at, lease)) == {kept, reset}
    wake(store, reset, at + minutes(10), 2)  # a command set its time meanwhile
    with store.uow() as uow:
        uow.wakeups.release([kept, reset], at + lease, at)
    assert claim(store, at, lease) == [kept]  # due again now, for any worker
    assert next_due(store) == at + minutes(10)  # the command's word stands


def test_a_later_versions_word_stands(store: Store) -> None:
    at = store.clock.now()
    game_id = new_game(store)
    wake(store, game_id, at + minutes(10), 3)
    wake(store, game_id, at + minutes(1), 2)  # an earlier version's: ignored
    wake(store, game_id, None, 2)
    assert next_due(store) == at + minutes(10)
    wake(store, game_id, at + minutes(5), 3)  # the same version's: it stands
    assert next_due(store) == at + minutes(5)
    wake(store, game_id, None, 4)  # never again
    assert next_due(store) is None
    assert claim(store, at + minutes(60), minutes(1)) == []


def test_a_wakeup_needs_its_game(store: Store) -> None:
    with store.uow() as uow:
        uow.wakeups.set(uuid4(), store.clock.now(), 1)
        with pytest.raises(store.integrity_error):
            uow.commit()
    assert next_due(store) is None
