"""Sign-in as a caller sees it: an ID token verified (the provider's keys, fetched
outside any transaction), then the sign-in command through the write path; or a link
code, of which only the digest goes into the command (and so into the idempotency
record's fingerprint)."""

from __future__ import annotations

from service.application.commands import Context, SignIn, SignInWithCode
from service.application.deps import Deps
from service.application.identity.names import cleaned
from service.application.identity.ports import IdTokenRefusedError
from service.application.identity.sessions import link_code_digest
from service.application.results import Executed, SignedIn
from service.application.write.registry import execute

DEFAULT_NAME = "Player"
"""A new player's name when neither the request nor the ID token gives one."""


def with_id_token(deps: Deps, id_token: str, name: str | None, ctx: Context) -> Executed[SignedIn]:
    if deps.id_tokens is None:
        raise IdTokenRefusedError("this server accepts no ID tokens: no issuer is configured")
    identity = deps.id_tokens.verify(id_token)
    chosen = name or cleaned(identity.name) or DEFAULT_NAME
    return execute(deps, SignIn(identity.issuer, identity.subject, chosen), ctx)


def with_link_code(deps: Deps, code: str, ctx: Context) -> Executed[SignedIn]:
    return execute(deps, SignInWithCode(link_code_digest(code)), ctx)
