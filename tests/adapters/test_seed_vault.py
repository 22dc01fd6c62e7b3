"""Fair games' server seeds sealed under a key outside the database (docs/fairness.md)."""

from __future__ import annotations

import stat
from pathlib import Path
from uuid import uuid4

import pytest

from service.adapters.dealing.dealer import ShufflingDealer
from service.adapters.dealing.seed_vault import (
    KEY_FILE,
    FairnessKeyError,
    SeedVault,
    new_fair_shuffle,
    new_key,
    parse_key,
)
from service.rules import GameConfig, Scoring, Variant, fair_deal

SEED = bytes(range(32))


def test_a_sealed_seed_opens_for_its_game_only() -> None:
    vault = SeedVault(parse_key(new_key()))
    game, other = uuid4(), uuid4()
    sealed = vault.seal(game, SEED)
    assert SEED.hex() not in sealed and SEED not in sealed.encode()
    assert vault.open(game, sealed) == SEED
    with pytest.raises(FairnessKeyError):
        vault.open(other, sealed)  # moved to another game
    tampered = sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1]
    with pytest.raises(FairnessKeyError):
        vault.open(game, tampered)


def test_a_rotated_key_still_opens_what_it_sealed() -> None:
    old, new = parse_key(new_key()), parse_key(new_key())
    game = uuid4()
    sealed = SeedVault(old).seal(game, SEED)
    assert SeedVault(new, (old,)).open(game, sealed) == SEED
    with pytest.raises(FairnessKeyError, match="does not have"):
        SeedVault(new).open(game, sealed)


@pytest.mark.parametrize("key", ["", "short", "zz" * 32, "A" * 50])
def test_a_malformed_key_is_refused(key: str) -> None:
    with pytest.raises(FairnessKeyError):
        parse_key(key)


def test_hex_and_base64url_keys_are_the_same_key() -> None:
    assert parse_key("00" * 32) == parse_key("A" * 43) == bytes(32)


def test_without_a_configured_key_one_is_made_once_readable_by_its_owner_only(
    tmp_path: Path,
) -> None:
    game = uuid4()
    sealed = SeedVault.configured(None, None, tmp_path / "data").seal(game, SEED)
    path = tmp_path / "data" / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SeedVault.configured(None, None, tmp_path / "data").open(game, sealed) == SEED


def test_the_dealer_deals_a_fair_game_from_its_sealed_seed() -> None:
    vault = SeedVault(parse_key(new_key()))
    dealer = ShufflingDealer(vault)
    game = uuid4()
    fairness = dealer.commit(game)
    assert fairness is not None and fairness.sealed is not None
    seed = bytes.fromhex(dealer.reveal(game, fairness))
    config = GameConfig(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS)
    seeds = ("a", "b", "c", "d")
    assert dealer.fair_deal(game, config, fairness, seeds, 2) == fair_deal(config, seed, 2, seeds)
    assert new_fair_shuffle(vault, game).commitment != fairness.commitment  # a new seed each
    assert ShufflingDealer().commit(game) is None
