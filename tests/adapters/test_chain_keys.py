"""The chain key: given, kept in a file, rotated; and no start without one on an external
database (docs/security.md)."""

from __future__ import annotations

import logging
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from service import cli
from service.adapters.integrity.chain_keys import ChainKeyError, chain_keys, new_key, parse_key
from service.application.integrity.chain import ChainKeys, key_id
from service.bootstrap import check
from service.settings import Settings

HEX = "11" * 32


def test_a_key_is_32_bytes_in_hex_or_base64url() -> None:
    assert parse_key(HEX) == bytes([0x11]) * 32
    assert parse_key("ERERERERERERERERERERERERERERERERERERERERERE") == bytes([0x11]) * 32
    for bad in ("", "abc", "11" * 31, "zz" * 32):
        with pytest.raises(ChainKeyError, match="32 bytes"):
            parse_key(bad)


def test_the_key_id_names_each_key() -> None:
    key = parse_key(new_key())
    assert key_id(key) == ChainKeys(key).current
    assert len(key_id(key)) == 8
    assert key_id(parse_key(new_key())) != key_id(key)


def test_no_key_is_a_clear_error() -> None:
    with pytest.raises(ChainKeyError, match="YOKAI_CHAIN_KEY is not set"):
        chain_keys(None, None, None)


def test_a_key_file_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "data" / "chain.key"
    made = chain_keys(None, None, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert chain_keys(None, None, path).current == made.current  # kept, not made again
    assert list(path.parent.iterdir()) == [path]  # no draft left behind


def test_the_given_key_wins_over_the_file_and_old_keys_still_verify(tmp_path: Path) -> None:
    old = new_key()
    keys = chain_keys(HEX, f"{old}, ", tmp_path / "chain.key")
    assert not (tmp_path / "chain.key").exists()
    assert keys.current == key_id(parse_key(HEX))
    assert keys.ids == {keys.current, key_id(parse_key(old))}
    assert keys.mac(key_id(parse_key(old)), b"m") is not None
    with pytest.raises(ChainKeyError, match="YOKAI_CHAIN_OLD_KEYS"):
        chain_keys(HEX, "not-a-key", None)


@pytest.mark.parametrize("command", ["serve", "worker", "verify"])
def test_strictly_on_an_external_database_a_missing_key_stops_the_start(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody:x@127.0.0.1:9/none")
    monkeypatch.setenv("YOKAI_STRICT_SECRETS", "1")
    monkeypatch.delenv("YOKAI_CHAIN_KEY", raising=False)
    monkeypatch.delenv("YOKAI_CHAIN_KEY_FILE", raising=False)
    args = [command, "--all"] if command == "verify" else [command]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert f"yokai {command}: YOKAI_CHAIN_KEY is not set" in err
    assert "openssl rand -hex 32" in err


def test_without_strictness_a_missing_key_is_kept_in_the_data_folder_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/api.md: `yokai serve` runs with DATABASE_URL (and an operator token) alone. The
    key it then uses is made once in the data folder, the same for every process that
    starts from that folder, and the log says to set YOKAI_CHAIN_KEY."""
    settings = Settings(database_url="postgresql://x@127.0.0.1:9/x", data_dir=tmp_path)
    with caplog.at_level(logging.WARNING):
        first = check(settings)
    assert (tmp_path / "chain.key").exists()
    assert check(settings).current == first.current
    assert "YOKAI_CHAIN_KEY is not set" in caplog.text
    assert "YOKAI_STRICT_SECRETS=1" in caplog.text
    with pytest.raises(ChainKeyError, match="YOKAI_CHAIN_KEY is not set"):
        check(replace(settings, strict_secrets=True, data_dir=tmp_path / "other"))
    assert not (tmp_path / "other").exists()
