"""Settings read from the environment: the embedded database's folder does not depend on
the working directory (issue 14, part 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import cli
from service.settings import ConfigurationError, Settings


def test_the_embedded_data_folder_is_the_users_not_the_working_directorys() -> None:
    folder = Settings.from_env({}).data_dir
    assert folder.is_absolute() and folder.name == "yokai"
    assert Settings().data_dir == folder


def test_yokai_data_dir_chooses_another_folder(tmp_path: Path) -> None:
    assert Settings.from_env({"YOKAI_DATA_DIR": str(tmp_path)}).data_dir == tmp_path


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("YOKAI_WEBHOOK_FIRST_RETRY_SECONDS", "soon"),
        ("YOKAI_WEBHOOK_LEASE_SECONDS", "5"),
        ("YOKAI_SEEK_HOURS", "0"),
        ("YOKAI_BOT_MOVE_MS", "0"),
        ("YOKAI_TAKEOVER_LEVEL", "grandmaster"),
        ("YOKAI_REDIS_URL", "127.0.0.1:6379"),
        ("YOKAI_RELAY_POLL_MS", "0"),
        ("YOKAI_REVIEW_SEED", "forty-six"),
        ("YOKAI_REVIEW_SEED", "-1"),
    ],
)
def test_bad_values_are_refused_with_the_variables_name(name: str, value: str) -> None:
    with pytest.raises(ConfigurationError, match=name):
        Settings.from_env({name: value})


def test_bots_think_a_quarter_second_and_basic_takes_over_unless_told_otherwise() -> None:
    default = Settings.from_env({})
    assert (default.bot_move_ms, default.takeover_level) == (250.0, "basic")
    told = Settings.from_env({"YOKAI_BOT_MOVE_MS": "90", "YOKAI_TAKEOVER_LEVEL": "expert"})
    assert (told.bot_move_ms, told.takeover_level) == (90.0, "expert")


def test_the_hand_review_has_a_fixed_seed_unless_told_another() -> None:
    assert Settings.from_env({}).review_seed == 46
    assert Settings.from_env({"YOKAI_REVIEW_SEED": "7"}).review_seed == 7


def test_seeks_expire_after_a_day_unless_told_otherwise() -> None:
    assert Settings.from_env({}).seek_hours == 24
    assert Settings.from_env({"YOKAI_SEEK_HOURS": "2"}).seek_hours == 2


@pytest.mark.parametrize("value", ["70000", "http", "-1"])
def test_a_worker_metrics_port_must_be_a_port(value: str) -> None:
    with pytest.raises(ConfigurationError, match="YOKAI_WORKER_METRICS_PORT"):
        Settings.from_env({"YOKAI_WORKER_METRICS_PORT": value})


def test_the_worker_serves_no_metrics_unless_given_a_port(tmp_path: Path) -> None:
    assert Settings.from_env({}).worker_metrics_port is None
    chosen = Settings.from_env(
        {"YOKAI_WORKER_METRICS_PORT": "9000", "YOKAI_WORKER_HEARTBEAT": str(tmp_path / "hb")}
    )
    assert (chosen.worker_metrics_port, chosen.worker_heartbeat) == (9000, tmp_path / "hb")


def test_keep_alive_seconds_may_be_a_fraction() -> None:
    assert Settings.from_env({"YOKAI_KEEPALIVE_SECONDS": "7.5"}).keepalive_seconds == 7.5
    with pytest.raises(ConfigurationError, match="YOKAI_KEEPALIVE_SECONDS"):
        Settings.from_env({"YOKAI_KEEPALIVE_SECONDS": "0"})


@pytest.mark.parametrize(
    ("command", "variable", "value"),
    [
        (["migrate"], "YOKAI_WEBHOOK_LEASE_SECONDS", "5"),
        (["worker", "--check-alive"], "YOKAI_KEEPALIVE_SECONDS", "0"),
        (["verify", "--all"], "YOKAI_WORKER_METRICS_PORT", "http"),
    ],
)
def test_a_bad_setting_is_one_line_and_exit_status_2_not_a_traceback(
    command: list[str],
    variable: str,
    value: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(variable, value)
    assert cli.main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"yokai {command[0]}: {variable} ")


@pytest.mark.parametrize(
    "issuer",
    ["http://example.com", "http://127.0.0.1.example.com", "http://localhost.evil", "ftp://x"],
)
def test_an_oidc_issuer_is_https_or_http_on_loopback(issuer: str) -> None:
    env = {"YOKAI_OIDC_ISSUERS": issuer, "YOKAI_OIDC_AUDIENCE": "yokai"}
    with pytest.raises(ConfigurationError, match="YOKAI_OIDC_ISSUERS"):
        Settings.from_env(env)


def test_oidc_issuers_need_an_audience() -> None:
    accepted = Settings.from_env(
        {
            "YOKAI_OIDC_ISSUERS": "https://id.example http://127.0.0.1:9000",
            "YOKAI_OIDC_AUDIENCE": "a b",
        }
    )
    assert accepted.oidc_issuers == ("https://id.example", "http://127.0.0.1:9000")
    assert accepted.oidc_audiences == ("a", "b")
    with pytest.raises(ConfigurationError, match="YOKAI_OIDC_AUDIENCE"):
        Settings.from_env({"YOKAI_OIDC_ISSUERS": "https://id.example"})


def test_a_redis_url_is_taken_as_given() -> None:
    assert Settings.from_env({"YOKAI_REDIS_URL": "rediss://cache:6380/1"}).redis_url == (
        "rediss://cache:6380/1"
    )
    assert Settings.from_env({}).redis_url is None


@pytest.mark.parametrize("subject", ["mailto:", "https:x", "http://ops.example", "ops@example"])
def test_a_vapid_subject_is_a_mailto_address_or_an_https_url(subject: str) -> None:
    """A push service refuses a VAPID token without a reachable subject (RFC 8292): the
    service refuses to start with one, rather than drop every push."""
    with pytest.raises(ConfigurationError, match="YOKAI_VAPID_SUBJECT"):
        Settings.from_env({"YOKAI_VAPID_SUBJECT": subject})
    for good in ("mailto:ops@example.org", "https://example.org/contact"):
        assert Settings.from_env({"YOKAI_VAPID_SUBJECT": good}).vapid_subject == good
