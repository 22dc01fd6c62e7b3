"""No seat ever learns a card it may not know: random complete games through HTTP, checked
after every command against what the operator sees.

What a seat may know of a round: its own dealt hand, the cards it received in the
exchange, every card played, the trump card, the bosses listed in ``bosses_scored``, and
the card whose holder R-3.3 / R-7.3 reveals by letting them lead. Every other card of the
round is hidden from it; the public knows only the table. After every command, each seat's
view, each seat's event feed and the public view are searched for card ids, and none may
be hidden from its reader. Error responses to illegal commands are searched too.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from werkzeug.test import TestResponse

from service.rules import SEVEN_FOLLOWERS_DECK
from tests.support.api import Api, Game

CARD_ID = re.compile(
    r"(?<![A-Za-z0-9_-])(?:green|purple|pink|yellow|black|red|blue)-\d{1,2}b?(?![A-Za-z0-9_])"
)
JSON = dict[str, Any]
ALL_IDS = frozenset(c.id for c in SEVEN_FOLLOWERS_DECK)


def card_ids(value: Any) -> set[str]:
    """Every card id named anywhere in a JSON value: keys, values, free text."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.update(CARD_ID.findall(item))
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found & ALL_IDS


# --- what each reader may know, from the operator's complete history ---------------------


@dataclass
class RoundFacts:
    number: int
    dealt: list[set[str]]
    trump: str | None
    received: list[set[str]]
    played: set[str] = field(default_factory=set)
    bosses_scored: set[str] = field(default_factory=set)
    revealed: set[str] = field(default_factory=set)  # the lead card's holder

    def universe(self) -> set[str]:
        cards = set().union(*self.dealt)
        return cards | ({self.trump} if self.trump else set())

    def known(self, seat: int | None) -> set[str]:
        """What ``seat`` (None: the public) may know of this round by now."""
        cards = self.played | self.bosses_scored | self.revealed
        if self.trump:
            cards.add(self.trump)
        if seat is not None:
            cards |= self.dealt[seat] | self.received[seat]
        return cards

    def hidden(self, seat: int | None) -> set[str]:
        return self.universe() - self.known(seat)


@dataclass
class Table:
    """The operator's history folded into what each reader may know, round by round."""

    seven_followers: bool = False
    rounds: dict[int, RoundFacts] = field(default_factory=dict)
    current: int = 0
    version: int = 0

    def apply(self, event: JSON) -> None:
        assert event["seq"] == self.version + 1
        self.version = event["seq"]
        data = event["data"]
        r = self.rounds.get(self.current)
        match event["type"]:
            case "GameCreated":
                self.seven_followers = data["variant"] != "standard"
            case "RoundDealt":
                self.current = data["number"]
                hands = data["hands"]
                self.rounds[self.current] = RoundFacts(
                    self.current, [set(h) for h in hands], data["trump"], [set() for _ in hands]
                )
            case "PassesExchanged":
                assert r is not None
                for p in data["passes"]:
                    r.received[p["to"]].add(p["card"])
                if self.seven_followers:
                    r.revealed.add("green-1")
                elif r.number == 1:
                    r.revealed.add("blue-13" if r.trump == "green-1" else "green-1")
            case "CardPlayed":
                assert r is not None
                r.played.add(data["card"])
            case "RoundEnded":
                assert r is not None
                r.bosses_scored.update(data["bosses_scored"])

    def hidden(self, seat: int | None, number: int | None = None) -> set[str]:
        """Hidden from ``seat`` in round ``number`` (default: the current round)."""
        if number is None:
            number = self.current
        if number == 0:
            return set(ALL_IDS)
        return self.rounds[number].hidden(seat)


# --- checks -----------------------------------------------------------------------------


def assert_no_hidden_in_view(table: Table, view: JSON, seat: int | None) -> None:
    """A public or seat view: the round and the seats name no hidden card of the current
    round; each finished round's result names only its trump and scored bosses."""
    table_part = {k: v for k, v in view.items() if k != "rounds"}
    assert view.get("seed") is None
    number = view["round"]["number"] if view["round"] else 0
    if number == 0:
        assert card_ids(table_part) == set(), (seat, table_part)
    else:
        assert number == table.current
        leaked = card_ids(table_part) & table.hidden(seat, number)
        assert not leaked, (seat, leaked)
    for result in view["rounds"]:
        facts = table.rounds[result["number"]]
        allowed = facts.bosses_scored | ({facts.trump} if facts.trump else set())
        assert card_ids(result) <= allowed, (seat, result)


@dataclass
class FeedWatch:
    """A seat's reading position in its own event feed."""

    seat: int
    after: int = 0
    round: int = 0

    def check(self, api: Api, game: Game, table: Table) -> None:
        events = api.feed(game, self.seat, after=self.after)
        for event in events:
            assert event["seq"] == self.after + 1
            self.after = event["seq"]
            if event["type"] == "RoundDealt":
                self.round = event["data"]["number"]
            if event["type"] == "GameCreated":
                # The seed would let a seat recompute every shuffled hand.
                assert event["data"].get("seed") is None, event
            leaked = card_ids(event) & table.hidden(self.seat, self.round)
            assert not leaked, (self.seat, event, leaked)
        assert self.after == table.version


def hidden_by_state(state: JSON, table: Table, seat: int) -> set[str]:
    """From the operator's /state: the cards in other seats' hands and in their passes not
    yet exchanged, less those this seat may know."""
    others: set[str] = set()
    for s, hand in enumerate(state["hands"]):
        if s != seat:
            others.update(hand)
            passed = state["passes"][s]
            if passed is not None and None in (passed.get("received") or [None]):
                others.update(passed["given"])
    return others - table.rounds[table.current].known(seat)


def assert_error_hides(table: Table, r: TestResponse, seat: int, named: set[str]) -> str:
    """A refused command: no hidden card in the problem details, except those the caller
    named itself. Returns the problem's code."""
    assert r.status_code in (409, 422), (r.status_code, r.get_json())
    assert r.mimetype == "application/problem+json"
    body = r.get_json()
    leaked = card_ids(body) & (table.hidden(seat) - named)
    assert not leaked, (seat, body, leaked)
    code: str = body["code"]
    return code


def probe(api: Api, game: Game, table: Table, views: list[JSON], rng: random.Random) -> str | None:
    """An illegal command of a random seat: refused, and its detail names no hidden card.
    Returns the problem's code (None when nothing was tried)."""
    view = rng.choice(views)
    seat = view["seat"]
    hand = view["hand"]
    hidden = sorted(table.hidden(seat))
    foreign = rng.choice(hidden) if hidden else None
    if view["status"] == "passing":
        if view["action"] == "pass" and foreign is not None and len(hand) >= 2:
            cards = [*rng.sample(hand, 2), foreign]
            return assert_error_hides(table, api.pass_cards(game, seat, cards), seat, set(cards))
        if hand:
            return assert_error_hides(table, api.play(game, seat, hand[0]), seat, {hand[0]})
        return None
    if view["status"] != "playing" or not hand:
        return None
    if view["action"] != "play":
        card = rng.choice(hand)
        return assert_error_hides(table, api.play(game, seat, card), seat, {card})
    refused = [c for c in hand if c not in view["legal"]]
    if refused and rng.random() < 0.5:
        card = rng.choice(refused)
        return assert_error_hides(table, api.play(game, seat, card), seat, {card})
    if foreign is not None:
        return assert_error_hides(table, api.play(game, seat, foreign), seat, {foreign})
    return assert_error_hides(table, api.pass_cards(game, seat, hand[:3]), seat, set(hand[:3]))


class Observer:
    """Reads everything every reader may read, and checks it."""

    def __init__(self, api: Api, game: Game) -> None:
        self.api = api
        self.game = game
        self.table = Table()
        self.watches = [FeedWatch(s) for s in range(game.players)]
        self.refusals: Counter[str] = Counter()  # the codes of the probes' refusals

    def look(self) -> list[JSON]:
        api, game, table = self.api, self.game, self.table
        for event in api.feed(game, None, after=table.version):
            table.apply(event)
        public = api.public(game.id)
        assert public["version"] == table.version
        assert_no_hidden_in_view(table, public, None)
        views = [api.view(game, s) for s in range(game.players)]
        for seat, view in enumerate(views):
            assert view["version"] == table.version
            assert_no_hidden_in_view(table, view, seat)
        if table.current:
            state = api.state(game.id)
            for seat in range(game.players):
                assert hidden_by_state(state, table, seat) == table.hidden(seat), seat
        for watch in self.watches:
            watch.check(api, game, table)
        return views

    def recheck_feeds_from_the_start(self) -> None:
        """Earlier events, read again now: still nothing hidden in their round."""
        for seat in range(self.game.players):
            FeedWatch(seat).check(self.api, self.game, self.table)


def play_and_watch(api: Api, game: Game, seed: int) -> Observer:
    rng = random.Random(seed)
    observer = Observer(api, game)
    views = observer.look()
    for _ in range(5000):
        moved = api.random_move(game, views, rng)
        if moved is None:
            break
        seat, _, r = moved
        views = observer.look()
        assert r.get_json()["version"] == observer.table.version
        assert_no_hidden_in_view(observer.table, r.get_json(), seat)
        code = probe(api, game, observer.table, views, rng)
        if code is not None:
            observer.refusals[code] += 1
    assert views[0]["status"] == "finished"
    assert observer.api.public(game.id)["version"] == observer.table.version
    observer.recheck_feeds_from_the_start()
    for seat in range(game.players):
        # The unredacted history and state are for operators only.
        for path in (f"/v1/games/{game.id}/audit", f"/v1/games/{game.id}/state"):
            r = api.get(path, **game.seat_headers(seat))
            assert r.status_code == 403, (path, r.status_code)
            assert card_ids(r.get_json()) == set()
    return observer


# --- the games ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "scoring", "variant", "seed"),
    [
        (4, "advanced", "standard", 11),
        (3, "basic", "standard", 12),
        (3, "advanced", "standard", 13),
        (4, "basic", "seven_followers", 14),
    ],
)
def test_no_seat_sees_a_hidden_card_in_a_random_game(
    api: Api, players: int, scoring: str, variant: str, seed: int
) -> None:
    game = api.start(players, scoring=scoring, variant=variant, seed=seed)
    observer = play_and_watch(api, game, seed)
    # The error details checked include the ones that could name cards.
    assert {"card_not_in_hand", "must_follow_suit", "not_your_turn"} <= set(observer.refusals)


def test_no_seat_sees_the_operators_dealing_plan(api: Api) -> None:
    """A game created with preset deals: the plan (every hand of round 1, and the seed)
    is in the operator's GameCreated event and nowhere a seat or the public can read."""
    rng = random.Random(15)
    deck = [c.id for c in SEVEN_FOLLOWERS_DECK if not c.id.endswith("b")]
    rng.shuffle(deck)
    deal = {"hands": [deck[i * 12 : (i + 1) * 12] for i in range(4)], "trump": deck[48]}
    game = api.start(4, scoring="basic", seed=15, deals=[deal])
    created = api.feed(game, None)[0]
    assert created["type"] == "GameCreated"
    assert card_ids(created) == set(deck)
    for seat in range(4):
        assert card_ids(api.feed(game, seat)[0]) == set()
    observer = play_and_watch(api, game, 15)
    assert observer.refusals["card_not_in_hand"] > 0


def test_the_card_id_search_finds_every_card() -> None:
    """The search is not blind: every id of both decks, alone or inside text."""
    assert card_ids(sorted(ALL_IDS)) == ALL_IDS
    assert card_ids({"detail": "green-7b is not in your hand; red-12, blue-13."}) == {
        "green-7b",
        "red-12",
        "blue-13",
    }
    assert card_ids({"blue-9": None}) == {"blue-9"}
    assert card_ids(["green-77", "xgreen-1", "green-1x", "seat-1"]) == set()
