"""Chat texts are their author's personal data (docs/privacy.md, API.md Part 4): sealed at
rest under the author's key, opened in answers; after erasure each message stays in place
with "[erased]" and "erased player", in the database and in a backup restored
afterwards."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest

from service.rules import ERASED_NAME
from tests.e2e.test_chat import read, say
from tests.e2e.test_privacy import OTHERS, client_at, dump, new_person, seat_game
from tests.support.api import OPERATOR, Api
from tests.support.postgres import (
    AppUnderTest,
    MakeApp,
    migrated_database,
    new_database,
    pg_tool,
)

ERASED_TEXT = "[erased]"


@pytest.fixture(scope="module")
def chat_url(server_url: str) -> str:
    return migrated_database(server_url, "yokai_chat_privacy")


@pytest.fixture
def private(make_app: MakeApp, chat_url: str, tmp_path: Path) -> AppUnderTest:
    return make_app(database_url=chat_url, erasure_list=tmp_path / "erasures.list")


def test_an_authors_texts_read_erased_everywhere_once_they_are_erased(
    private: AppUnderTest,
    chat_url: str,
    server_url: str,
    make_app: MakeApp,
    tmp_path: Path,
) -> None:
    others = Api(client_at(private, OTHERS))
    person = new_person(private, "203.0.113.47")
    game = seat_game(others, person, 2, players=3)
    words = f"meet me at the old mill {uuid.uuid4().hex[:8]}"
    mine = say(others, game.id, person.token, text=words)
    # The seat's own token (the join's), bound to the person: their words all the same.
    seat_words = f"by the seat's token {uuid.uuid4().hex[:8]}"
    say(others, game.id, game.tokens[2], text=seat_words)
    say(others, game.id, game.tokens[0], text="an anonymous seat's words stay")
    assert words.encode() not in dump(chat_url)  # sealed at rest
    assert seat_words.encode() not in dump(chat_url)
    assert [m["text"] for m in read(others, game.id, game.tokens[0])["messages"]] == [
        words,
        seat_words,
        "an anonymous seat's words stay",
    ]
    backup = tmp_path / "before.dump"
    backup.write_bytes(dump(chat_url, "--format=custom"))

    assert others.post(f"/v1/players/{person.id}/erase", **OPERATOR).status_code == 204
    page = read(others, game.id, game.tokens[0])["messages"]
    assert page[0]["id"] == mine["id"]
    assert page[0]["text"] == page[1]["text"] == ERASED_TEXT
    assert page[0]["from"] == {"seat": 2, "name": ERASED_NAME, "player_id": person.id}
    assert page[1]["from"] == page[0]["from"]
    assert page[2]["text"] == "an anonymous seat's words stay"

    restored_url = new_database(server_url, "yokai_chat_restored")
    subprocess.run(
        [pg_tool("pg_restore"), "--no-owner", "--dbname", restored_url, str(backup)],
        check=True,
        capture_output=True,
    )
    kept = private.container.erased
    assert kept is not None
    restored = make_app(database_url=restored_url, erasure_list=kept.path)
    again = read(Api(restored.client()), game.id, game.tokens[0])["messages"]
    texts = [m["text"] for m in again]
    assert texts == [ERASED_TEXT, ERASED_TEXT, "an anonymous seat's words stay"]
    assert again[0]["from"]["name"] == ERASED_NAME
    assert words.encode() not in dump(restored_url)
    assert seat_words.encode() not in dump(restored_url)
