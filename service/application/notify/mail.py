"""The e-mail the service sends (API.md Part 4, "Turn notifications"): a verification
code, a reminder before a turn clock runs out, and a digest of the games waiting on a
player. Each is composed here, with the standard library's ``email`` package, as a plain
text part and its HTML alternative, in the player's language (messages.py); sending is
a :class:`Mailer`'s (service/adapters/mail/smtp.py).

What a message may say is what the player may see anywhere: game ids, how long a game
has waited, the names of the others at its table, never a card. Every value put into the
HTML part is escaped; none goes into a header but the addresses, the code and numbers.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime, make_msgid
from typing import Protocol
from urllib.parse import quote, urlsplit
from uuid import UUID

from service.application.notify.messages import TEXTS, duration, language

CODE_MINUTES = 30
"""How long a verification code works: the message says so."""

PERIODS = ("hourly", "daily")

_UNFOLDED = EmailPolicy(linesep="\r\n", cte_type="7bit", max_line_length=998)


class _Policy(EmailPolicy):
    """The SMTP policy (CRLF, lines folded at 78 characters) but for the List-Unsubscribe
    header, folded only at RFC 5322's limit: a long URL (a value without spaces) would
    else be written as encoded words, which readers of RFC 2369's headers do not
    decode. Bodies in 7 bits (quoted-printable or base64): no server is assumed to take
    8BITMIME."""

    def fold(self, name: str, value: str) -> str:
        # typeshed leaves fold's result untyped
        if name.lower() == "list-unsubscribe":
            unfolded: str = _UNFOLDED.fold(name, value)
            return unfolded
        folded: str = super().fold(name, value)
        return folded

    def fold_binary(self, name: str, value: str) -> bytes:
        if name.lower() == "list-unsubscribe":
            return _UNFOLDED.fold_binary(name, value)
        return super().fold_binary(name, value)


_POLICY = _Policy(linesep="\r\n", cte_type="7bit")


class MailError(Exception):
    """A message was not sent. ``temporary``: it may go later (no connection, a timeout,
    a 4xx reply), so it is worth trying again; else (a 5xx reply) it never will."""

    def __init__(self, message: str, temporary: bool, *, code: int | None = None) -> None:
        super().__init__(message)
        self.temporary = temporary
        self.code = code  # the SMTP reply code, when the server gave one


class Mailer(Protocol):
    """Sends a message (or raises :class:`MailError`)."""

    def send(self, message: EmailMessage) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class WaitingGame:
    """A game waiting on the player, as a digest lists it."""

    game_id: UUID
    since: datetime  # since when it has waited on them
    players: list[str]  # the names of the others at the table (may be empty)


def game_url(public_url: str, game_id: UUID) -> str:
    """The web client's page of a game (its route is ``#/game/<id>``)."""
    return f"{public_url.rstrip('/')}/#/game/{game_id}"


def unsubscribe_url(public_url: str, token: str) -> str:
    """Where the one-click unsubscribe of RFC 8058 posts: ``POST /v1/unsubscribe``."""
    return f"{public_url.rstrip('/')}/v1/unsubscribe?token={quote(token, safe='')}"


def verification(
    to: str, code: str, *, lang: str, sender: str, public_url: str, now: datetime
) -> EmailMessage:
    """The 6-digit code that confirms an address (``POST /v1/me/email``)."""
    if not re.fullmatch(r"[0-9]{6}", code):
        raise ValueError("a verification code is 6 digits")
    lang = language(lang)
    texts = TEXTS[lang]
    subject = texts["code_subject"].format(code=code)
    valid = texts["code_valid"].format(minutes=CODE_MINUTES)
    paragraphs = [texts["code_intro"], code, valid, texts["code_ignore"]]
    body = (
        f"<p>{html.escape(texts['code_intro'])}</p>\n"
        '<p style="font-family: monospace; font-size: 2em; letter-spacing: 0.2em">'
        f"<strong>{html.escape(code)}</strong></p>\n"
        f"<p>{html.escape(valid)}</p>\n"
        f"<p>{html.escape(texts['code_ignore'])}</p>\n"
    )
    return _compose(
        to, subject, lang, paragraphs, body, sender=sender, public_url=public_url, now=now
    )


def reminder(
    to: str,
    game_id: UUID,
    minutes_left: int,
    *,
    lang: str,
    sender: str,
    public_url: str,
    unsubscribe_url: str,
    now: datetime,
) -> EmailMessage:
    """A turn clock of the player's has ``minutes_left`` (at least 1) and they have not
    acted."""
    if minutes_left < 1:
        raise ValueError("a reminder comes with at least a minute left")
    lang = language(lang)
    texts = TEXTS[lang]
    left = duration(texts, minutes_left)
    subject = texts["reminder_subject"].format(time=left)
    said = texts["reminder_text"].format(game=_short(game_id), time=left)
    url = game_url(public_url, game_id)
    body = f"<p>{html.escape(said)}</p>\n<p>{_link(url, texts['open_game'])}</p>\n"
    return _compose(
        to,
        subject,
        lang,
        [said, url],
        body,
        sender=sender,
        public_url=public_url,
        now=now,
        unsubscribe_url=unsubscribe_url,
    )


def digest(
    to: str,
    games: Sequence[WaitingGame],
    period: str,
    *,
    lang: str,
    sender: str,
    public_url: str,
    unsubscribe_url: str,
    now: datetime,
) -> EmailMessage:
    """The games waiting on the player, the longest waiting first, in one message per
    ``period`` ("hourly" or "daily"). Nothing waiting is no message: ValueError."""
    if period not in PERIODS:
        raise ValueError(f"a digest is hourly or daily, not {period!r}")
    if not games:
        raise ValueError("a digest lists at least one game")
    lang = language(lang)
    texts = TEXTS[lang]
    subject = texts["digest_subject"].format(count=len(games))
    intro = texts[f"digest_intro.{period}"]
    lines, items = [], []
    for game in sorted(games, key=lambda g: (g.since, str(g.game_id))):
        url = game_url(public_url, game.game_id)
        waited = duration(texts, max(1, int((now - game.since).total_seconds() // 60)))
        key = "digest_game_with" if game.players else "digest_game"
        values = {
            "game": _short(game.game_id),
            "players": texts["separator"].join(game.players),
            "time": waited,
        }
        lines.append(f"- {texts[key].format(**values)}\n  {url}")
        # The game's id is the link: the template is filled with escaped values, the id
        # with an anchor of escaped parts.
        escaped = {name: html.escape(value) for name, value in values.items()}
        escaped["game"] = _link(url, values["game"])
        items.append(f"<li>{html.escape(texts[key]).format(**escaped)}</li>\n")
    body = f"<p>{html.escape(intro)}</p>\n<ul>\n{''.join(items)}</ul>\n"
    return _compose(
        to,
        subject,
        lang,
        [intro, "\n".join(lines)],
        body,
        sender=sender,
        public_url=public_url,
        now=now,
        unsubscribe_url=unsubscribe_url,
    )


def _short(game_id: UUID) -> str:
    """A game's id as the web client shows it in lists: its first 8 hex digits."""
    return str(game_id)[:8]


def _compose(
    to: str,
    subject: str,
    lang: str,
    paragraphs: list[str],
    body: str,
    *,
    sender: str,
    public_url: str,
    now: datetime,
    unsubscribe_url: str | None = None,
) -> EmailMessage:
    """The message: its headers, the plain text of ``paragraphs`` and the HTML page of
    ``body``; with ``unsubscribe_url``, the footer saying why it came and how to stop it,
    and RFC 2369's unsubscribe link made one-click by RFC 8058 (a POST to it)."""
    if now.tzinfo is None:
        raise ValueError("a message's date needs a time zone")
    message = EmailMessage(policy=_POLICY)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = format_datetime(now)
    # A domain of ours, never the host's name (make_msgid would look it up).
    message["Message-ID"] = make_msgid(domain=urlsplit(public_url).hostname or "localhost")
    # RFC 3834: no auto-replies (out of office) to these.
    message["Auto-Submitted"] = "auto-generated"
    if unsubscribe_url is not None:
        texts = TEXTS[lang]
        paragraphs = [*paragraphs, _footer_text(texts, public_url)]
        body += _footer_html(texts, public_url)
        message["List-Unsubscribe"] = f"<{unsubscribe_url}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content("\n\n".join(paragraphs) + "\n")
    message.add_alternative(_page(lang, subject, body), subtype="html")
    # After the content: setting it clears every Content- header.
    message["Content-Language"] = lang
    return message


def _footer_text(texts: dict[str, str], public_url: str) -> str:
    stop = texts["footer_stop"].format(url=public_url)
    return f"-- \n{texts['footer_why']}\n{stop}"


def _footer_html(texts: dict[str, str], public_url: str) -> str:
    stop = html.escape(texts["footer_stop"]).format(url=_link(public_url, public_url))
    return (
        '<hr>\n<p style="font-size: smaller; color: #555">'
        f"{html.escape(texts['footer_why'])}<br>\n{stop}</p>\n"
    )


def _link(url: str, text: str) -> str:
    return f'<a href="{html.escape(url)}">{html.escape(text)}</a>'


def _page(lang: str, subject: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html.escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width">\n'
        f"<title>{html.escape(subject)}</title>\n</head>\n"
        '<body style="font-family: sans-serif; line-height: 1.5">\n'
        f"{body}</body>\n</html>\n"
    )
