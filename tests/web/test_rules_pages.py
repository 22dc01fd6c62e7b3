"""The rules pages (service/web/ui/rules/, issue 48): the publisher's text without the
extraction's breaks. A paragraph or list item that starts in lower case continues the
sentence of the block before it: the rulebook's line break, not a new paragraph."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "service" / "web" / "ui" / "rules"


@pytest.mark.parametrize("lang", ["en", "fr", "de", "zh"])
def test_no_block_of_a_rules_page_starts_in_the_middle_of_a_sentence(lang: str) -> None:
    page = (RULES / f"{lang}.html").read_text()
    blocks = [re.sub(r"<[^>]+>", "", b).strip() for b in re.findall(r"<(?:p|li)>(.*?)</", page)]
    split = [b[:60] for b in blocks if b and b[0].islower()]
    assert split == []


def test_ratings_are_not_called_elo_in_any_language() -> None:
    """Ratings are openskill's, not Elo's (docs/api.md, "Ratings")."""
    catalogues = RULES.parent / "i18n"
    for catalogue in catalogues.glob("*.json"):
        assert "Elo" not in catalogue.read_text(), catalogue.name
