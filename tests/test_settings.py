"""Settings read from the environment: the embedded database's folder does not depend on
the working directory (issue 14, part 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.settings import Settings


def test_the_embedded_data_folder_is_the_users_not_the_working_directorys() -> None:
    folder = Settings.from_env({}).data_dir
    assert folder.is_absolute() and folder.name == "yokai"
    assert Settings().data_dir == folder


def test_yokai_data_dir_chooses_another_folder(tmp_path: Path) -> None:
    assert Settings.from_env({"YOKAI_DATA_DIR": str(tmp_path)}).data_dir == tmp_path


@pytest.mark.parametrize(
    ("name", "value"),
    [("YOKAI_WEBHOOK_FIRST_RETRY_SECONDS", "soon"), ("YOKAI_WEBHOOK_LEASE_SECONDS", "5")],
)
def test_bad_values_are_refused_with_the_variables_name(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name):
        Settings.from_env({name: value})
