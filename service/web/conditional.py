"""Conditional requests (RFC 9110 13): the versions or opaque tags named by If-Match and
If-None-Match, and a version as an ETag."""

from __future__ import annotations

import re

from flask import request

from service.application.commands import ANY_VERSION
from service.web.errors import RequestProblemError

_ETAG_VALUE = re.compile(r'^(W/)?"(\d{1,10})"$')

# RFC 9110 8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E /
# obs-text (a header's bytes 80-FF reach us as the Latin-1 characters U+0080-U+00FF).
_ENTITY_TAG = r'(?:W/)?"[\x21\x23-\x7E\x80-\xFF]*"'
IF_MATCH_PATTERN = rf"^(?:\*|(?:{_ENTITY_TAG})?(?:[ \t]*,(?:[ \t]*{_ENTITY_TAG})?)*)$"
"""If-Match = "*" / #entity-tag (RFC 9110 13.1.1), its list read as 5.6.1.2 asks of a
recipient (empty elements allowed): the field value, without the spaces around it that
HTTP strips, as the service reads it and as the contract's pattern says. Spaces before a
comma and before a tag are the only ones, so a refused value is found without
backtracking."""

_IF_MATCH = re.compile(IF_MATCH_PATTERN)
_TAG = re.compile(r'(W/)?"([\x21\x23-\x7E\x80-\xFF]*)"')
_VERSION = re.compile(r"\d{1,10}")


def if_match() -> frozenset[int] | None:
    """The versions the If-Match header names (ANY_VERSION for "*"); None without one.

    A value that is not "*" nor a list of entity tags is 400 `invalid_if_match`: what
    the client meant cannot be told, so no precondition is said to have failed. A tag
    is compared strongly (RFC 9110 13.1.1): a weak one, or one that is no version, names
    none.
    """
    header = request.headers.get("If-Match")
    if header is None:
        return None
    header = header.strip(" \t")
    if not _IF_MATCH.fullmatch(header):
        raise RequestProblemError(
            400,
            "invalid_if_match",
            'If-Match must be * or a list of entity tags such as "12" (RFC 9110 13.1.1)',
        )
    if header == "*":
        return frozenset({ANY_VERSION})
    return frozenset(
        int(m.group(2))
        for m in _TAG.finditer(header)
        if not m.group(1) and _VERSION.fullmatch(m.group(2))
    )


def if_none_match() -> frozenset[int]:
    """The versions If-None-Match names, weak or strong (ANY_VERSION for "*"). A value
    that names none is no condition (RFC 9110 13.1.2): the view is sent."""
    header = request.headers.get("If-None-Match")
    if header is None:
        return frozenset()
    tags: set[int] = set()
    for raw in header.split(","):
        part = raw.strip()
        if part == "*":
            tags.add(ANY_VERSION)
        elif m := _ETAG_VALUE.match(part):
            tags.add(int(m.group(2)))
    return frozenset(tags)


_OPAQUE_TAG = re.compile(r'^(?:W/)?"([\x21\x23-\x7e]*)"$')


def if_none_match_tags() -> frozenset[str]:
    """The opaque tags named by If-None-Match ("*" for any), for resources whose tag is
    not a game's version."""
    header = request.headers.get("If-None-Match")
    if header is None:
        return frozenset()
    tags: set[str] = set()
    for raw in header.split(","):
        part = raw.strip()
        if part == "*":
            tags.add("*")
        elif m := _OPAQUE_TAG.match(part):
            tags.add(m.group(1))
    return frozenset(tags)


def etag_value(version: int) -> str:
    return f'"{version}"'
