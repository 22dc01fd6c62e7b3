"""Provably fair shuffles over HTTP (docs/api.md "Provably fair shuffles", docs/fairness.md):
a game made without operator seed or deals commits to a secret server seed, takes a
client seed from every seat, keeps the seed out of every response and log line until
the game is over, then reveals it; the stand-alone script in scripts/ deals every round
again from the public view alone, and the deals are the ones the audit recorded."""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from service.application.integrity.verify import verify
from tests.support.api import OPERATOR, Api, Game
from tests.support.postgres import AppUnderTest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "verify_deals.py"


def _fair_game(api: Api, players: int, **body: Any) -> Game:
    created = api.create(players, **body)
    game = Game(created["id"], players)
    for seat in range(players):
        seed = {"client_seed": f"seat {seat} says ~hi~"} if seat % 2 == 0 else {}
        r = api.post(f"/v1/games/{game.id}/seats/{seat}", {"name": f"p{seat}", **seed})
        assert r.status_code == 201, r.get_json()
        game.tokens.append(r.get_json()["token"])
    return game


def _bodies(api: Api, game: Game) -> list[str]:
    """Everything anyone may read of the game now: views, feeds, state, audit."""
    paths = [
        (f"/v1/games/{game.id}", {}),
        (f"/v1/games/{game.id}/state", OPERATOR),
        (f"/v1/games/{game.id}/audit?limit=1000", OPERATOR),
        (f"/v1/games/{game.id}/events?limit=1000", OPERATOR),
    ]
    for seat in range(game.players):
        paths.append((f"/v1/games/{game.id}/view", game.seat_headers(seat)))
        paths.append((f"/v1/games/{game.id}/events?limit=1000", game.seat_headers(seat)))
    out = []
    for path, headers in paths:
        r = api.get(path, **headers)
        assert r.status_code == 200, (path, r.get_json())
        out.append(r.get_data(as_text=True))
    return out


@pytest.mark.parametrize(
    ("players", "variant"), [(3, "standard"), (4, "standard"), (4, "seven_followers")]
)
def test_a_fair_game_reveals_its_seed_at_the_end_and_anyone_can_check_every_deal(
    suite_app: AppUnderTest,
    api: Api,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    players: int,
    variant: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    game = _fair_game(api, players, variant=variant)
    public = api.public(game.id)
    fairness = public["fairness"]
    assert fairness["algorithm"] == "yokai-shuffle-v1"
    assert len(fairness["commitment"]) == 64 and fairness["server_seed"] is None
    seeds = fairness["client_seeds"]
    assert seeds[0] == "seat 0 says ~hi~" and len(seeds) == players
    assert all(isinstance(s, str) and s for s in seeds)  # drawn for seats that gave none

    before: list[str] = []
    rng = random.Random(players * 10 + len(variant))
    for step, _ in enumerate(api.play_out(game, rng)):
        if step % 7 == 0 and api.public(game.id)["status"] != "finished":
            before.extend(_bodies(api, game))
    assert before
    logged = caplog.text

    public = api.public(game.id)
    assert public["status"] == "finished"
    seed = public["fairness"]["server_seed"]
    assert isinstance(seed, str) and len(seed) == 64
    assert not [b for b in before if seed in b], "the server seed was shown before the end"
    assert seed not in logged

    audit = api.get(f"/v1/games/{game.id}/audit?limit=1000", **OPERATOR).get_json()["events"]
    assert audit[-1]["type"] == "SeedRevealed" and audit[-1]["actor"]["kind"] == "system"
    dealt = [
        {"number": e["data"]["number"], "hands": e["data"]["hands"], "trump": e["data"]["trump"]}
        for e in audit
        if e["type"] == "RoundDealt"
    ]
    assert len(dealt) == len(public["rounds"])

    view_file, record_file = tmp_path / "view.json", tmp_path / "record.json"
    view_file.write_text(json.dumps(public))
    record_file.write_text(json.dumps({"rounds": dealt}))
    checked = subprocess.run(
        [sys.executable, "-I", str(SCRIPT), str(view_file), "--record", str(record_file)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["rounds"] == dealt

    report = verify(suite_app.container.deps, UUID(game.id))
    assert report.intact, report


def test_a_forged_reveal_fails_the_script(api: Api, tmp_path: Path) -> None:
    game = _fair_game(api, 3)
    for _ in api.play_out(game, random.Random(1)):
        pass
    public = api.public(game.id)
    public["fairness"]["server_seed"] = "00" * 32
    view_file = tmp_path / "view.json"
    view_file.write_text(json.dumps(public))
    checked = subprocess.run(
        [sys.executable, "-I", str(SCRIPT), str(view_file)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 1 and "commitment" in checked.stderr


@pytest.mark.parametrize("seed", ["", "x" * 65, "tab\there", "caf\u00e9", 7])
def test_a_bad_client_seed_is_refused(api: Api, seed: Any) -> None:
    created = api.create(3)
    r = api.post(f"/v1/games/{created['id']}/seats/0", {"name": "Mio", "client_seed": seed})
    assert r.status_code == 422, r.get_json()
    assert api.public(created["id"])["seats"][0]["joined"] is False


def test_an_operators_seeded_game_says_it_is_not_provably_fair(api: Api) -> None:
    game = api.start(3, seed=5)
    assert api.public(game.id)["fairness"] == {
        "algorithm": "operator",
        "commitment": None,
        "client_seeds": None,
        "server_seed": None,
    }
