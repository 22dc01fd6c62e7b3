"""Sealed personal data (service/application/privacy/sealing.py): a token opens with its
subject's key while the key exists, and reads as erased once it is gone; answers are
opened whole, whatever they are (JSON, text, data)."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Collection, Mapping, MutableMapping
from datetime import UTC, date, datetime
from uuid import uuid4

import pytest

from service.application.privacy import sealing
from service.application.privacy.sealer import Sealer
from service.rules import ERASED_NAME


class DictVault:
    """Keys in a dict: the sealing code's own logic, apart from where keys are kept
    (the PostgreSQL vault is tested in tests/e2e/test_privacy.py)."""

    def __init__(self) -> None:
        self.kept: dict[str, bytes | None] = {}
        self.fetches: list[set[str]] = []
        self.values: dict[str, dict[str, str]] = {}  # opened, while the key is kept

    def key(self, subject: str) -> bytes:
        key = self.kept.setdefault(subject, os.urandom(32))
        return key if key is not None else os.urandom(32)

    def keys(self, subjects: Collection[str]) -> Mapping[str, bytes]:
        self.fetches.append(set(subjects))
        return {s: k for s in subjects if (k := self.kept.get(s)) is not None}

    def opened(self, subjects: Collection[str]) -> Mapping[str, MutableMapping[str, str]]:
        return {s: self.values.setdefault(s, {}) for s in subjects if self.kept.get(s)}

    def destroy(self, subjects: Collection[str]) -> int:
        n = sum(self.kept.get(s) is not None for s in subjects)
        for s in subjects:
            self.kept[s] = None
            self.values.pop(s, None)
        return n

    def destroy_days_before(self, day: date) -> int:
        old = [s for s in self.kept if s.startswith("d") and s < "d" + day.strftime("%Y%m%d")]
        return self.destroy(old)


NOW = datetime(2026, 11, 26, 21, 0, tzinfo=UTC)


@pytest.fixture
def vault() -> DictVault:
    return DictVault()


def test_a_sealed_name_reads_in_the_clear_until_its_key_is_destroyed(vault: DictVault) -> None:
    player = uuid4()
    token = Sealer(vault).name(player, 'Zoë "Z" Ōta')
    assert token.startswith("pd1.n.p")
    # Encrypted, not only encoded: the name's bytes are not in what the token carries. (A
    # look for "Zo" in the base64 text found it there by chance, about 1 run in 75.)
    carried = base64.urlsafe_b64decode(token.rsplit(".", 1)[1] + "==")
    assert 'Zoë "Z" Ōta'.encode() not in carried
    body = json.dumps({"seats": [{"name": token}, {"name": "Bot"}]})
    assert json.loads(sealing.Revealer(vault.keys).json(body))["seats"][0]["name"] == 'Zoë "Z" Ōta'
    vault.destroy([sealing.player_subject(player)])
    opened = json.loads(sealing.Revealer(vault.keys).json(body))
    assert opened == {"seats": [{"name": ERASED_NAME}, {"name": "Bot"}]}


def test_an_address_reads_while_both_its_day_key_and_its_player_key_exist(
    vault: DictVault,
) -> None:
    player, sealer = uuid4(), Sealer(vault)
    mine = sealer.request("203.0.113.7", NOW, player)
    anyone = sealer.request("198.51.100.2", NOW, None)
    body = json.dumps({"a": mine, "b": anyone})
    assert json.loads(sealing.Revealer(vault.keys).json(body)) == {
        "a": "203.0.113.7",
        "b": "198.51.100.2",
    }
    vault.destroy([sealing.player_subject(player)])
    assert json.loads(sealing.Revealer(vault.keys).json(body)) == {"a": None, "b": "198.51.100.2"}
    vault.destroy_days_before(date(2026, 11, 27))
    assert json.loads(sealing.Revealer(vault.keys).json(body)) == {"a": None, "b": None}


def test_a_token_moved_to_another_subject_does_not_open(vault: DictVault) -> None:
    a, b = uuid4(), uuid4()
    sealer = Sealer(vault)
    sealer.name(b, "B")  # b has a key too
    token = sealer.name(a, "Aiko")
    moved = token.replace(sealing.player_subject(a), sealing.player_subject(b))
    assert sealing.Revealer(vault.keys).value(moved) == ERASED_NAME


def test_a_name_sealed_already_is_not_sealed_again(vault: DictVault) -> None:
    player, sealer = uuid4(), Sealer(vault)
    token = sealer.name(player, "Aiko")
    assert sealer.name(player, token) == token


def test_tokens_inside_longer_strings_and_plain_text_are_opened(vault: DictVault) -> None:
    player = uuid4()
    token = Sealer(vault).name(player, 'Ai "ko"')
    body = json.dumps({"detail": f"seat 2 ({token}) left"})
    assert json.loads(sealing.Revealer(vault.keys).json(body)) == {
        "detail": 'seat 2 (Ai "ko") left'
    }
    record = f'[Seat "0"]\n[Name "{token}"]\n'
    assert sealing.Revealer(vault.keys).text(record) == '[Seat "0"]\n[Name "Ai "ko""]\n'
    data = {"events": [{"data": {"name": token}}], "n": 3}
    assert sealing.Revealer(vault.keys).data(data) == {
        "events": [{"data": {"name": 'Ai "ko"'}}],
        "n": 3,
    }


def test_an_answer_fetches_its_keys_once_and_one_without_tokens_none(vault: DictVault) -> None:
    sealer = Sealer(vault)
    names = [sealer.name(uuid4(), f"p{i}") for i in range(4)]
    vault.fetches.clear()
    sealing.Revealer(vault.keys).json(json.dumps(names))
    assert len(vault.fetches) == 1 and len(vault.fetches[0]) == 4
    vault.fetches.clear()
    sealing.Revealer(vault.keys).json(json.dumps(["plain", "pd1 is not a token"]))
    assert vault.fetches == []


def test_a_name_opened_once_is_not_decrypted_again_until_its_key_is_destroyed(
    vault: DictVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    player, sealer = uuid4(), Sealer(vault)
    token = sealer.name(player, "Aiko")
    address = sealer.request("203.0.113.7", NOW, player)  # sealed twice: day, then player
    body = json.dumps({"name": token, "detail": f"({token})", "address": address})
    decrypted: list[str] = []
    real = sealing._open

    def counted(key: bytes, subject: str, text: str) -> str | None:
        decrypted.append(subject)
        return real(key, subject, text)

    monkeypatch.setattr(sealing, "_open", counted)
    opened = {"name": "Aiko", "detail": "(Aiko)", "address": "203.0.113.7"}
    for _ in range(3):
        assert json.loads(sealing.Revealer(vault.keys, vault.opened).json(body)) == opened
    assert sorted(decrypted) == ["d20261126", "p" + player.hex, "p" + player.hex]
    assert sealing.Revealer(vault.keys).json(body) == json.dumps(opened)  # none kept: opens
    vault.destroy([sealing.player_subject(player)])
    erased = {"name": ERASED_NAME, "detail": f"({ERASED_NAME})", "address": None}
    assert json.loads(sealing.Revealer(vault.keys, vault.opened).json(body)) == erased
    assert "p" + player.hex not in vault.values  # what it opened went with the key
