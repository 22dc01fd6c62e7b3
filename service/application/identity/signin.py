"""Sign-in as a caller sees it: an ID token verified (the provider's keys, fetched
outside any transaction), then the sign-in command through the write path; or a link
code, of which only the digest goes into the command (and so into the idempotency
record's fingerprint)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.application.commands import Context, SignIn, SignInWithCode
from service.application.deps import Deps
from service.application.identity.names import cleaned
from service.application.identity.ports import IdTokenRefusedError, ProviderUnavailableError
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


@dataclass(frozen=True, slots=True)
class SignInProvider:
    """What a web front end needs to sign its user in with a provider: where to send
    them, where to exchange the code for an ID token, and its own client id there."""

    issuer: str
    client_id: str
    authorization_endpoint: str
    token_endpoint: str


def providers(deps: Deps, web_clients: Sequence[tuple[str, str]]) -> list[SignInProvider]:
    """The providers a web client may sign in with; one whose discovery document cannot
    be had now is left out (its sign-in would fail)."""
    if deps.id_tokens is None:
        return []
    found: list[SignInProvider] = []
    for issuer, client_id in web_clients:
        try:
            ends = deps.id_tokens.endpoints(issuer)
        except ProviderUnavailableError:
            continue
        found.append(
            SignInProvider(issuer, client_id, ends.authorization_endpoint, ends.token_endpoint)
        )
    return found
