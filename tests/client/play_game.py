"""A client of the contract alone: it plays a whole game through the client that
openapi-python-client generates from openapi/openapi.yaml (package
`yokai_septet_server_client`), and is checked by `mypy --strict` against it.

tests/e2e/test_generated_client.py generates the client into a temporary folder, checks
this script and runs it against a real `yokai serve`:

    python tests/client/play_game.py http://127.0.0.1:8000 [players] [variant]

It prints one line per round and the final scores, and exits 1 on anything the contract
did not promise.
"""

from __future__ import annotations

import sys
from uuid import UUID, uuid4

from yokai_septet_server_client import AuthenticatedClient, Client
from yokai_septet_server_client.api.games import (
    create_game,
    join_seat,
    pass_cards,
    play_card,
    seat_view,
)
from yokai_septet_server_client.models import (
    Action,
    CreateGame,
    CreateGamePlayers,
    CreateGameVariant,
    GameView,
    Join,
    Joined,
    Pass,
    Play,
    Problem,
    SeatView,
    SeatViewStatus,
)

MAX_COMMANDS = 5000


class ContractError(Exception):
    """An answer the contract does not promise for this request."""


def seat_view_of(client: AuthenticatedClient, game: UUID) -> SeatView:
    view = seat_view.sync(game, client=client)
    if not isinstance(view, SeatView):
        raise ContractError(f"the seat's view: {view!r}")
    return view


def play(base_url: str, players: int, variant: str) -> SeatView:
    anyone = Client(base_url=base_url, raise_on_unexpected_status=True)
    created = create_game.sync(
        client=anyone,
        body=CreateGame(players=CreateGamePlayers(players), variant=CreateGameVariant(variant)),
        idempotency_key=str(uuid4()),
    )
    if not isinstance(created, GameView):
        raise ContractError(f"create: {created!r}")
    game = created.id
    seats: list[AuthenticatedClient] = []
    for seat in range(players):
        joined = join_seat.sync(
            game,
            seat,
            client=anyone,
            body=Join(name=f"client {seat}"),
            idempotency_key=str(uuid4()),
        )
        if not isinstance(joined, Joined):
            raise ContractError(f"join {seat}: {joined!r}")
        seats.append(AuthenticatedClient(base_url=base_url, token=joined.token))
    rounds_seen = 0
    for _ in range(MAX_COMMANDS):
        views = [seat_view_of(client, game) for client in seats]
        table = views[0]  # every seat's view holds the public view
        for result in table.rounds[rounds_seen:]:
            print(
                f"round {result.number}: {result.reason} won by {result.winners}, {result.points}"
            )
        rounds_seen = len(table.rounds)
        if table.status is SeatViewStatus.FINISHED:
            return table
        ready = [(c, v) for c, v in zip(seats, views, strict=True) if v.action and v.legal]
        if not ready:
            raise ContractError("the game is not over, yet no seat may act")
        client, view = ready[0]
        answer: Problem | SeatView | None
        if view.action is Action.PASS:
            answer = pass_cards.sync(game, client=client, body=Pass(cards=view.legal[:3]))
        else:
            answer = play_card.sync(game, client=client, body=Play(card=view.legal[0]))
        if not isinstance(answer, SeatView) or answer.version <= view.version:
            raise ContractError(f"{view.action}: {answer!r}")
    raise ContractError(f"no end after {MAX_COMMANDS} commands")


def main(argv: list[str]) -> int:
    base_url = argv[1]
    players = int(argv[2]) if len(argv) > 2 else 4
    variant = argv[3] if len(argv) > 3 else "standard"
    try:
        final = play(base_url, players, variant)
    except ContractError as error:
        print(f"contract broken: {error}", file=sys.stderr)
        return 1
    print(f"finished: {len(final.rounds)} rounds, scores {final.scores}, winner {final.winner}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
