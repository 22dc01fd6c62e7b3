"""openapi/openapi.yaml says exactly what the service accepts (issue 14, part 1): the
patterns, sizes and formats it gives are the ones the service applies. The fuzzer
(tests/e2e/test_fuzz.py) probes the same at random; these are the cases worth naming."""

from __future__ import annotations

import json
import random
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.application.identity.names import NAME_PATTERN
from service.rules import SEVEN_FOLLOWERS_DECK
from service.settings import MAX_BODY_BYTES
from service.web.fields import CARD_PATTERN
from tests.support.api import OPERATOR, Api, Game
from tests.support.deals import assert_problem

SPEC: dict[str, Any] = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml").read_text()
)
SCHEMAS = SPEC["components"]["schemas"]


def operations() -> list[dict[str, Any]]:
    return [
        op
        for item in SPEC["paths"].values()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


def test_card_ids_are_exactly_the_decks() -> None:
    ids = {c.id for c in SEVEN_FOLLOWERS_DECK}
    assert SCHEMAS["Play"]["properties"]["card"]["pattern"] == CARD_PATTERN
    assert all(re.fullmatch(CARD_PATTERN, i) for i in ids)
    suits = {i.split("-")[0] for i in ids}
    near = {f"{s}-{r}" for s in suits for r in [*map(str, range(-1, 16)), "7c", "07", "7B"]}
    assert {n for n in near if re.fullmatch(CARD_PATTERN, n)} == ids & near


@pytest.mark.parametrize(
    ("name", "accepted"),
    [
        ("Mio", True),
        ("妖怪 七", True),  # CJK and a space
        ("🦊 fox", True),  # beyond the BMP
        ("é", True),  # a combining mark
        (" x ", True),
        ("   ", False),  # only spaces
        ("a\tb", False),  # control
        ("evil\u202egnp.exe", False),  # bidirectional override
        ("zero\u200bwidth", False),
        ("no\u00a0break", False),  # a separator other than the space
        ("private\ue000", False),
        ("tag\U000e0041", False),
    ],
)
def test_a_name_is_what_its_pattern_says(api: Api, name: str, accepted: bool) -> None:
    assert bool(re.fullmatch(NAME_PATTERN, name)) is accepted
    assert SCHEMAS["PlayerCreate"]["properties"]["name"]["pattern"] == NAME_PATTERN
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == (201 if accepted else 422), r.get_json()


def test_the_largest_game_the_contract_allows_fits_the_body_limit(api: Api) -> None:
    """Every array at its maxItems, the longest card ids, pretty-printed: still under the
    body limit, so the answer is the contract's 422 (cards used twice), never a 413."""
    create = SCHEMAS["CreateGame"]["properties"]
    deal = SCHEMAS["Deal"]["properties"]
    longest = sorted((c.id for c in SEVEN_FOLLOWERS_DECK), key=len, reverse=True)
    hand = longest[: deal["hands"]["items"]["maxItems"]]
    body = {
        "players": 4,
        "scoring": "advanced",
        "variant": "seven_followers_short",
        "seed": create["seed"]["maximum"],
        "clock": {"turn_seconds": 1_209_600, "on_timeout": "autoplay"},
        "bots": [{"seat": 3, "level": "random"}] * create["bots"]["maxItems"],
        "deals": [{"hands": [hand] * deal["hands"]["maxItems"], "trump": longest[0]}]
        * create["deals"]["maxItems"],
    }
    pretty = json.dumps(body, indent=2).encode()
    print(f"\nthe largest create body: {len(pretty)} bytes pretty-printed, limit {MAX_BODY_BYTES}")
    assert len(pretty) < MAX_BODY_BYTES
    r = api.client.post(
        "/v1/games", data=pretty, headers={**OPERATOR, "Content-Type": "application/json"}
    )
    assert r.status_code == 422, r.get_json()


@pytest.mark.parametrize(("players", "status"), [(4.0, 201), ("4", 422), (4.5, 422), (True, 422)])
def test_an_integer_is_a_json_integer(api: Api, players: object, status: int) -> None:
    """JSON Schema's `integer` holds 4.0 (schemathesis sends it), never "4" or 4.5."""
    r = api.post("/v1/games", {"players": players})
    assert r.status_code == status, r.get_json()


def test_a_game_id_is_a_uuid_and_import_is_no_game(api: Api) -> None:
    ids = [
        (path, parameter["schema"])
        for path, item in SPEC["paths"].items()
        for parameter in item.get("parameters", [])
        if parameter["name"] in ("game_id", "webhook_id")
    ]
    assert len(ids) > 10
    assert all(schema["format"] == "uuid" for _, schema in ids), ids
    # No route takes it, yet to the client it names a game that does not exist.
    assert_problem(api.get("/v1/games/not-a-uuid"), 404, "game_not_found")
    assert_problem(api.get("/v1/games/not-a-uuid/view"), 404, "game_not_found")
    assert_problem(api.get("/v1/webhooks/not-a-uuid"), 404, "webhook_not_found")
    assert_problem(api.get(f"/v1/games/{uuid.uuid4()}/nothing-here"), 404, "not_found")
    options = api.client.options("/v1/games/import")
    assert set(options.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}


def test_every_operation_has_an_id_and_every_link_leads_to_one() -> None:
    ids = [op.get("operationId") for op in operations()]
    assert None not in ids and len(ids) == len(set(ids)), ids
    by_id = {op["operationId"]: op for op in operations()}
    links = [
        link
        for op in operations()
        for response in op["responses"].values()
        for link in response.get("links", {}).values()
    ]
    assert links
    for link in links:
        assert link["operationId"] in by_id, link
        for where in link["parameters"]:
            assert where.split(".")[0] in ("path", "header"), link


def test_a_joined_seats_token_is_linked_to_its_calls() -> None:
    joined = SPEC["paths"]["/v1/games/{game_id}/seats/{seat}"]["post"]["responses"]["201"]
    for target in ("seat_view", "pass_cards", "play_card"):
        parameters = joined["links"][target]["parameters"]
        assert parameters["header.Authorization"] == "Bearer {$response.body#/token}"
        assert parameters["path.game_id"] == "$response.body#/game_id"


def test_the_import_body_is_limited_in_bytes_as_the_contract_says(api: Api) -> None:
    """Issue 27: the contract gave the import's text a maxLength of 65,536 characters,
    but the service's limit is 65,536 bytes of body, whatever its form: a record of
    fewer characters than that and more bytes was refused (413) though the contract
    allowed it. No maxLength can count bytes, so the contract states the limit in bytes
    (the body's description and the 413 response), and it holds to the byte."""
    body = SPEC["paths"]["/v1/games/import"]["post"]["requestBody"]
    assert "maxLength" not in json.dumps(body) + json.dumps(SCHEMAS["Import"])
    limit = f"{MAX_BODY_BYTES:,} bytes"
    assert limit in body["description"]
    assert limit in SPEC["components"]["responses"]["REQUEST_ENTITY_TOO_LARGE"]["description"]

    game_id = api.create(4)["id"]
    game = Game(game_id, 4, [api.join(game_id, s, "妖怪" * 20) for s in range(4)])
    for _ in api.play_out(game, random.Random(27)):
        pass
    r = api.get(f"/v1/games/{game_id}/record", **OPERATOR)
    assert r.status_code == 200
    record = r.get_data(as_text=True)
    wide = len(record.encode()) - len(record)  # the names' characters are 3 bytes each
    assert wide > 0

    def send(data: bytes, content_type: str) -> Any:
        headers = {**OPERATOR, "Content-Type": content_type}
        return api.client.post("/v1/games/import", data=data, headers=headers)

    text = record.encode()
    padded = text + b"\n" * (MAX_BODY_BYTES - len(text))  # blank lines are ignored
    assert len(padded.decode()) < MAX_BODY_BYTES == len(padded)
    assert send(padded, "text/plain").status_code == 201
    assert_problem(send(padded + b"\n", "text/plain"), 413, "body_too_large")
    # Within 65,536 characters, over 65,536 bytes: what the old maxLength let through.
    assert len((padded + b"\n").decode()) <= MAX_BODY_BYTES

    wrapped = json.dumps({"record": record}, ensure_ascii=False).encode()
    padded = wrapped + b" " * (MAX_BODY_BYTES - len(wrapped))
    assert send(padded, "application/json").status_code == 201
    assert_problem(send(padded + b" ", "application/json"), 413, "body_too_large")
