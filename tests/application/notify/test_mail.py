"""The e-mail the service sends, as composed (service/application/notify/mail.py): its
headers, a plain text part and its HTML alternative, the player's language (English
when we have not theirs), names escaped in the HTML, RFC 8058's one-click unsubscribe
on reminders and digests, and no digest when nothing waits."""

from __future__ import annotations

import html
import re
import string
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, parsedate_to_datetime
from uuid import UUID

import pytest

from service.application.notify import mail
from service.application.notify.messages import LANGUAGES, TEXTS, duration, language

NOW = datetime(2026, 11, 28, 9, 30, tzinfo=UTC)
PUBLIC = "https://yokai.example"
SENDER = "Yokai Septet <noreply@yokai.example>"
TO = "ann@example.org"
GAME = UUID("1a2b3c4d-0000-4000-8000-000000000001")
OTHER = UUID("5e6f7a8b-0000-4000-8000-000000000002")
UNSUBSCRIBE = mail.unsubscribe_url(PUBLIC, "tok/en+1")
EVIL = '<script>alert("x")</script> & Bo'


def _verification(lang: str = "en", code: str = "042917") -> EmailMessage:
    return mail.verification(TO, code, lang=lang, sender=SENDER, public_url=PUBLIC, now=NOW)


def _reminder(lang: str = "en", minutes: int = 15, game: UUID = GAME) -> EmailMessage:
    return mail.reminder(
        TO,
        game,
        minutes,
        lang=lang,
        sender=SENDER,
        public_url=PUBLIC,
        unsubscribe_url=UNSUBSCRIBE,
        now=NOW,
    )


def _digest(
    games: list[mail.WaitingGame] | None = None, period: str = "daily", lang: str = "en"
) -> EmailMessage:
    if games is None:
        games = [mail.WaitingGame(GAME, NOW - timedelta(hours=3, minutes=5), ["Bo", "Cy"])]
    return mail.digest(
        TO,
        games,
        period,
        lang=lang,
        sender=SENDER,
        public_url=PUBLIC,
        unsubscribe_url=UNSUBSCRIBE,
        now=NOW,
    )


def _text(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert isinstance(part, EmailMessage)
    content: str = part.get_content()
    return content


def _html(message: EmailMessage) -> str:
    part = message.get_body(("html",))
    assert isinstance(part, EmailMessage)
    content: str = part.get_content()
    return content


def _common_headers(message: EmailMessage) -> None:
    assert message["From"] == SENDER
    assert message["To"] == TO
    assert message["Subject"]
    assert parsedate_to_datetime(message["Date"]) == NOW
    assert message["Date"] == format_datetime(NOW)
    assert re.fullmatch(r"<[^@<>]+@yokai\.example>", message["Message-ID"])
    assert message["Auto-Submitted"] == "auto-generated"
    assert message.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]


def _unsubscribable(message: EmailMessage) -> None:
    assert message["List-Unsubscribe"] == f"<{UNSUBSCRIBE}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_the_verification_message_gives_the_code_and_how_long_it_works() -> None:
    message = _verification()
    _common_headers(message)
    assert message["Subject"] == "Your Yokai Septet code: 042917"
    assert message["Content-Language"] == "en"
    for body in (_text(message), _html(message)):
        assert "042917" in body
        assert f"{mail.CODE_MINUTES} minutes" in body
        assert "If you did not ask for it, ignore this message" in body
    # Not a list: nothing to unsubscribe from before the address is confirmed.
    assert message["List-Unsubscribe"] is None


@pytest.mark.parametrize("code", ["12345", "1234567", "12345a", "", "١٢٣٤٥٦"])
def test_a_verification_code_is_six_digits(code: str) -> None:
    with pytest.raises(ValueError, match="6 digits"):
        _verification(code=code)


def test_the_reminder_links_the_game_and_carries_the_one_click_unsubscribe() -> None:
    message = _reminder(minutes=90)
    _common_headers(message)
    _unsubscribable(message)
    assert message["Subject"] == "Your turn in Yokai Septet: 1 h 30 min left"
    url = f"{PUBLIC}/#/game/{GAME}"
    assert url in _text(message)
    assert f'<a href="{url}">' in _html(message)
    for body in (_text(message), _html(message)):
        assert "It is your turn in game 1a2b3c4d, and your turn clock has 1 h 30 min left." in body


@pytest.mark.parametrize("minutes", [0, -5])
def test_a_reminder_comes_with_at_least_a_minute_left(minutes: int) -> None:
    with pytest.raises(ValueError, match="at least a minute"):
        _reminder(minutes=minutes)


def test_the_digest_lists_the_games_the_longest_waiting_first() -> None:
    games = [
        mail.WaitingGame(GAME, NOW - timedelta(hours=3, minutes=5), ["Bo", "Cy"]),
        mail.WaitingGame(OTHER, NOW - timedelta(days=2, hours=1), []),
    ]
    message = _digest(games)
    _common_headers(message)
    _unsubscribable(message)
    assert message["Subject"] == "Games waiting for you in Yokai Septet: 2"
    text, page = _text(message), _html(message)
    assert "Your daily digest" in text
    first = text.index("Game 5e6f7a8b, waiting for 2 d 1 h")
    second = text.index("Game 1a2b3c4d with Bo, Cy, waiting for 3 h 5 min")
    assert first < second
    assert f"{PUBLIC}/#/game/{OTHER}" in text
    assert f'<a href="{PUBLIC}/#/game/{GAME}">1a2b3c4d</a> with Bo, Cy, waiting for 3 h 5 min' in (
        page
    )
    assert page.index(str(OTHER)) < page.index(str(GAME))


def test_the_hourly_digest_says_so() -> None:
    assert "Your hourly digest" in _text(_digest(period="hourly"))
    assert "Your hourly digest" in _html(_digest(period="hourly"))


def test_nothing_waiting_is_no_digest() -> None:
    with pytest.raises(ValueError, match="at least one game"):
        _digest([])


def test_a_digest_is_hourly_or_daily() -> None:
    with pytest.raises(ValueError, match="hourly or daily"):
        _digest(period="weekly")


def test_a_name_is_escaped_in_the_html_and_left_as_it_is_in_the_text() -> None:
    message = _digest([mail.WaitingGame(GAME, NOW - timedelta(minutes=20), [EVIL, "Cy"])])
    page = _html(message)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Bo, Cy" in page
    assert f"{EVIL}, Cy" in _text(message)
    assert "script" not in message["Subject"]


def test_the_links_are_escaped_in_the_html() -> None:
    odd = 'https://yokai.example/a"b<c>'
    message = mail.reminder(
        TO,
        GAME,
        5,
        lang="en",
        sender=SENDER,
        public_url=odd,
        unsubscribe_url=UNSUBSCRIBE,
        now=NOW,
    )
    page = _html(message)
    assert odd not in page
    assert 'href="https://yokai.example/a&quot;b&lt;c&gt;/#/game/' in page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_message_is_in_the_players_language(lang: str) -> None:
    texts = TEXTS[lang]
    left = duration(texts, 15)
    waited = duration(texts, 3 * 60 + 5)
    game_line = texts["digest_game_with"].format(
        game="1a2b3c4d", players=texts["separator"].join(["Bo", "Cy"]), time=waited
    )
    checks = [
        (
            _verification(lang),
            texts["code_subject"].format(code="042917"),
            texts["code_intro"],
            texts["code_ignore"],
        ),
        (
            _reminder(lang),
            texts["reminder_subject"].format(time=left),
            texts["reminder_text"].format(game="1a2b3c4d", time=left),
            texts["open_game"],
        ),
        (
            _digest(lang=lang),
            texts["digest_subject"].format(count=1),
            game_line,
            texts["digest_intro.daily"],
        ),
    ]
    for message, subject, in_text, in_html in checks:
        assert message["Subject"] == subject
        assert message["Content-Language"] == lang
        assert in_text in _text(message)
        assert f'<html lang="{lang}">' in _html(message)
        assert html.escape(in_html) in _html(message)


@pytest.mark.parametrize(
    ("tag", "expected"),
    [("fr", "fr"), ("fr-CA", "fr"), ("DE", "de"), ("zh_Hans", "zh"), ("pt", "en"), ("", "en")],
)
def test_a_language_we_lack_falls_back_to_english(tag: str, expected: str) -> None:
    assert language(tag) == expected
    assert _reminder(tag)["Content-Language"] == expected
    assert _reminder(tag)["Subject"] == _reminder(expected)["Subject"]


def test_every_language_has_every_text_with_the_same_placeholders() -> None:
    def placeholders(template: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    english = TEXTS["en"]
    for lang in LANGUAGES:
        assert set(TEXTS[lang]) == set(english), lang
        for key, template in TEXTS[lang].items():
            assert placeholders(template) == placeholders(english[key]), (lang, key)


@pytest.mark.parametrize(
    ("minutes", "said"),
    [
        (1, "1 min"),
        (59, "59 min"),
        (60, "1 h"),
        (61, "1 h 1 min"),
        (1440, "1 d"),
        (1500, "1 d 1 h"),
    ],
)
def test_durations_are_said_in_abbreviated_units(minutes: int, said: str) -> None:
    assert duration(TEXTS["en"], minutes) == said


def test_the_unsubscribe_url_quotes_its_token() -> None:
    assert (
        mail.unsubscribe_url(PUBLIC + "/", "a/b+c d&e")
        == f"{PUBLIC}/v1/unsubscribe?token=a%2Fb%2Bc%20d%26e"
    )


def test_the_game_url_is_the_web_clients_page_of_the_game() -> None:
    assert mail.game_url(PUBLIC + "/", GAME) == f"{PUBLIC}/#/game/{GAME}"


def test_a_date_without_a_time_zone_is_refused() -> None:
    with pytest.raises(ValueError, match="time zone"):
        mail.verification(
            TO, "123456", lang="en", sender=SENDER, public_url=PUBLIC, now=datetime(2026, 1, 1)
        )


def test_an_address_cannot_smuggle_a_header() -> None:
    with pytest.raises(ValueError, match="linefeed"):
        mail.verification(
            "ann@example.org\r\nBcc: eve@example.org",
            "123456",
            lang="en",
            sender=SENDER,
            public_url=PUBLIC,
            now=NOW,
        )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_long_unsubscribe_url_is_written_as_it_is_and_the_rest_in_short_7_bit_lines(
    lang: str,
) -> None:
    url = mail.unsubscribe_url(PUBLIC, "t" * 200)
    message = mail.reminder(
        TO, GAME, 5, lang=lang, sender=SENDER, public_url=PUBLIC, unsubscribe_url=url, now=NOW
    )
    lines = message.as_bytes().split(b"\r\n")
    # Not folded into encoded words, which RFC 2369's readers do not decode.
    assert f"List-Unsubscribe: <{url}>".encode() in lines
    others = [line for line in lines if not line.startswith(b"List-Unsubscribe:")]
    assert all(line.isascii() and len(line) <= 78 for line in others)
