"""A player's address for mail (API.md Part 4): set with a 6-digit code sent to it (at
most ``CODES_A_DAY`` a day), verified by that code (``TRIES`` tries, within
``CODE_LIFE``), and mail turned off by the one-click link of any message (RFC 8058)
without signing in. Mail goes only to a verified address.

The address is personal data, sealed under the player's key like names; the code is
kept as a hash (a code is 6 digits: its few tries, not its hash, are what protect it)
and travels to the worker sealed in the message's outbox row."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta

from service.application.commands import SetEmail, UnsubscribeMail, VerifyEmail
from service.application.errors import (
    InvalidInputError,
    NotFoundError,
    TooManyError,
    UnavailableError,
)
from service.application.identity.principals import Principal, actor_of, require_player
from service.application.notify.choices import new_token
from service.application.notify.mail import CODE_MINUTES
from service.application.notify.ports import EmailCode
from service.application.ports import Actor
from service.application.results import EmailSet, EmailVerified, MailUnsubscribed
from service.application.write.transaction import Transaction

CODES_A_DAY = 5
TRIES = 5
CODE_LIFE = timedelta(minutes=CODE_MINUTES)  # as the message says
LANGUAGES = ("en", "fr", "de", "zh")

# One address, as people write it: something@a.domain, no spaces, quotes or brackets.
_ADDRESS = re.compile(
    r"[^\s@\"<>(),;:\[\]\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?"
)


class UnknownTokenError(NotFoundError):
    code = "unknown_token"


def address_of(text: str) -> str:
    """The address as kept: trimmed, its domain in lower case; 422 ``invalid_email``."""
    value = text.strip()
    if len(value) > 254 or not _ADDRESS.fullmatch(value) or "." not in value.rpartition("@")[2]:
        raise InvalidInputError("address: one e-mail address, name@example.org", "invalid_email")
    local, _, domain = value.rpartition("@")
    return f"{local}@{domain.lower()}"


def code_hash(player: str, code: str) -> str:
    return hashlib.sha256(f"{player}:{code}".encode()).hexdigest()


def authorize_player(cmd: SetEmail | VerifyEmail, principal: Principal) -> Actor:
    require_player(principal)
    return actor_of(principal)


def set_email(cmd: SetEmail, actor: Actor, tx: Transaction) -> EmailSet:
    player = require_player(tx.principal).player_id
    address = address_of(cmd.address)
    if not tx.mail:
        raise UnavailableError("this server sends no mail (YOKAI_SMTP_URL)", "mail_unavailable")
    if tx.uow.notifications.codes_since(player, tx.now - timedelta(days=1)) >= CODES_A_DAY:
        raise TooManyError(
            f"at most {CODES_A_DAY} codes a day: use one you were sent", "too_many_codes", 3600
        )
    code = f"{secrets.randbelow(10**6):06d}"
    sealed = tx.seal_personal(player, address)
    kept = EmailCode(tx.now, sealed, code_hash(str(player), code), tx.now + CODE_LIFE, 0)
    mail = {
        "type": "verification",
        "player_id": str(player),
        "address": sealed,
        "code": tx.seal_personal(player, code),
    }
    lang = cmd.lang if cmd.lang in LANGUAGES else "en"
    tx.uow.notifications.set_email(player, kept, mail, lang, new_token())
    return EmailSet(player)


def verify(cmd: VerifyEmail, actor: Actor, tx: Transaction) -> EmailVerified:
    """Verified, or why not (not raised: a wrong code counts as a try, which a refusal
    would not write)."""
    player = require_player(tx.principal).player_id
    code = tx.uow.notifications.latest_code(player)
    if code is None:
        return EmailVerified(player, "no_code")
    if code.expires_at <= tx.now or code.tries >= TRIES:
        return EmailVerified(player, "code_expired")
    if not secrets.compare_digest(code.code_hash, code_hash(str(player), cmd.code.strip())):
        tx.uow.notifications.tried(player, code.sent_at)
        return EmailVerified(player, "wrong_code")
    if not tx.uow.notifications.verified(player, code.address):
        return EmailVerified(player, "code_expired")  # another address was set since
    return EmailVerified(player, None)


def authorize_anyone(cmd: UnsubscribeMail, principal: Principal) -> Actor:
    """Whoever holds the link: the token is the authority (RFC 8058)."""
    return actor_of(principal)


def unsubscribe(cmd: UnsubscribeMail, actor: Actor, tx: Transaction) -> MailUnsubscribed:
    if not cmd.token or not tx.uow.notifications.unsubscribe_mail(cmd.token):
        raise UnknownTokenError("this unsubscribe link is not known (or no longer)")
    return MailUnsubscribed()
