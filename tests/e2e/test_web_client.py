"""The web client's files as the service serves them (issue 18): its own strict CSP, no
inline script or style, revalidated caching, no rate limit, not in the contract; and
message catalogues that hold every message in every language. The client itself is
played in a real browser by tests/browser/."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from service.application.ports import ActorKind
from service.rules import BotLevel, RoundEndReason, Variant
from service.web.client import CLIENT_CSP
from tests.support.api import Api

UI = Path(__file__).resolve().parents[2] / "service" / "web" / "ui"
LANGUAGES = ("en", "fr", "de", "zh")
SUITS = ("green", "purple", "pink", "yellow", "black", "red", "blue")
# Every module of the client: its pages, and their state and view modules (js/state/,
# js/view/).
MODULES = sorted((UI / "js").rglob("*.js"))


def test_the_page_has_a_strict_csp_of_its_own_and_is_revalidated(api: Api) -> None:
    r = api.get("/")
    assert r.status_code == 200
    assert r.mimetype == "text/html"
    assert r.headers["Content-Security-Policy"] == CLIENT_CSP
    for directive in ("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"):
        assert directive in CLIENT_CSP
    assert "unsafe" not in CLIENT_CSP
    assert r.headers["Cache-Control"] == "no-cache"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    etag = r.headers["ETag"]
    again = api.get("/", If_None_Match=etag)
    assert again.status_code == 304


class _Inline(HTMLParser):
    """Finds what a strict CSP would block: inline scripts, style elements and
    attributes, event-handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "script":
            src = dict(attrs).get("src")
            if not src:
                self.found.append("inline <script>")
            else:
                self.scripts.append(src)
        if tag == "style":
            self.found.append("<style>")
        self.found += [f"{tag} {n}" for n in names if n == "style" or n.startswith("on")]


def test_the_page_has_no_inline_script_or_style() -> None:
    parser = _Inline()
    parser.feed((UI / "index.html").read_text())
    assert parser.found == []
    assert parser.scripts == ["/ui/js/main.js"]
    assert MODULES
    for module in MODULES:
        text = module.read_text()
        # Markup is never built from strings: every text goes in as a text node.
        assert "innerHTML" not in text, module.name
        assert "insertAdjacentHTML" not in text, module.name
        assert "eval(" not in text, module.name


def test_every_module_the_client_imports_is_served(api: Api) -> None:
    for module in MODULES:
        for name in re.findall(r'from "(\.\.?/[\w./]+)"', module.read_text()):
            assert (module.parent / name).resolve().is_file(), (module.name, name)
        r = api.get(f"/ui/{module.relative_to(UI).as_posix()}")
        assert r.status_code == 200
        assert r.mimetype in ("text/javascript", "application/javascript"), r.mimetype
        assert r.headers["Cache-Control"] == "no-cache"
    assert api.get("/ui/app.css").mimetype == "text/css"
    assert api.get("/ui/i18n/fr.json").mimetype == "application/json"


@pytest.mark.parametrize(
    "path", ["/ui/../client.py", "/ui/%2e%2e/client.py", "/ui/nothing.js", "/docs/security.md"]
)
def test_nothing_else_is_served(api: Api, path: str) -> None:
    assert api.get(path).status_code == 404


def test_the_fairness_page_it_links_to_is_served(api: Api) -> None:
    r = api.get("/docs/fairness.md")
    assert r.status_code == 200
    assert r.mimetype == "text/plain"
    assert "## Checking a game yourself" in r.get_data(as_text=True)
    assert api.get("/docs/rules.md").status_code == 200


def test_the_client_is_not_in_the_contract(api: Api) -> None:
    paths = api.get("/v1/openapi.json").get_json()["paths"]
    assert all(
        p.startswith("/v1/") or p in ("/healthz", "/readyz", "/metrics", "/problems/{code}")
        for p in paths
    )


def test_the_client_files_are_not_rate_limited(limited: FlaskClient) -> None:
    """Its files load at every visit: a limit of 3 a minute must not break the page."""
    for _ in range(6):
        for path in ("/", "/ui/js/main.js", "/ui/i18n/en.json"):
            assert limited.get(path).status_code == 200, path
    statuses = [limited.post("/v1/players", json={"name": "x"}).status_code for _ in range(4)]
    assert statuses[-1] == 429  # the API behind it still is


def _catalogue(lang: str) -> dict[str, str]:
    found: dict[str, str] = json.loads((UI / "i18n" / f"{lang}.json").read_text())
    return found


def _placeholders(template: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", template))


def test_every_language_has_every_message_with_the_same_placeholders() -> None:
    english = _catalogue("en")
    for lang in LANGUAGES[1:]:
        other = _catalogue(lang)
        assert set(other) == set(english), (lang, set(other) ^ set(english))
        for key, template in english.items():
            assert other[key].strip(), (lang, key)
            assert _placeholders(other[key]) == _placeholders(template), (lang, key)


def test_every_message_the_client_names_is_in_the_catalogue() -> None:
    english = _catalogue("en")
    named: set[str] = set()
    for module in MODULES:
        named |= set(re.findall(r'\bt\("([a-z_.]+)"', module.read_text()))
    assert named
    # Keys built from what the server sends: every value it may send has a message.
    named |= {f"suit.{s}" for s in SUITS} | {f"suit_short.{s}" for s in SUITS}
    named |= {f"suit_mark.{s}" for s in SUITS}
    named |= {f"reason.{r.value}" for r in RoundEndReason}
    named |= {f"round_won.{r.value}" for r in RoundEndReason}
    named |= {f"bot_name.{b.value}" for b in BotLevel} | {f"bot_level.{b.value}" for b in BotLevel}
    named |= {f"variant.{v.value}" for v in Variant}
    named |= {f"actor.{a.value}" for a in ActorKind}
    named |= {f"status.{s}" for s in ("waiting", "passing", "playing", "finished", "dealing")}
    named |= {"card", "card_second"}
    missing = sorted(named - set(english))
    assert missing == []


def test_suit_names_follow_the_rulebooks() -> None:
    """English names a suit by its element, as its cards do, the colour a hint (Wind
    (green), a card "Wind 5", never "green 5": issue 33); French: the families (famille
    Vent)."""
    english = _catalogue("en")
    assert english["suit.green"] == "Wind (green)"
    assert english["suit.blue"] == "Snow (blue)"
    for suit in SUITS:
        # The card's word, where it may break (a soft hyphen: "Light-ning" on a card).
        mark = english[f"suit_mark.{suit}"].replace("\u00ad", "")
        assert english[f"suit_short.{suit}"] == mark, suit
        assert english[f"suit.{suit}"].startswith(mark), suit
    assert _catalogue("fr")["suit.green"] == "famille Vent"
    assert _catalogue("fr")["suit.purple"] == "famille Terre"
    assert _catalogue("fr")["suit.blue"] == "famille Neige"
    assert english["card_legal"] == "{card}, legal"
    assert english["card"] == "{suit} {rank}"


def test_other_languages_do_not_quote_english_section_titles() -> None:
    """The fairness link in French, German and Chinese names no English section title
    (issue 33): it says the page is in English instead."""
    for lang in LANGUAGES[1:]:
        assert "Checking" not in _catalogue(lang)["fair_doc_link"], lang


def test_the_rules_pages_are_served_in_each_language(api: Api) -> None:
    """Issue 33 item 4: the players' rules, one static page a language, styled by the
    client's stylesheet (its CSP lets that in, and no script)."""
    for lang in ("en", "fr", "de", "zh"):
        r = api.get(f"/ui/rules/{lang}.html")
        assert r.status_code == 200
        assert r.mimetype == "text/html"
        csp = r.headers["Content-Security-Policy"]
        assert "style-src 'self'" in csp and "script-src" not in csp
        page = r.get_data(as_text=True)
        assert '<link rel="stylesheet" href="/ui/app.css">' in page
        assert 'class="rulebook"' in page
