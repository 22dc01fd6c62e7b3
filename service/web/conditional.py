"""Conditional requests (RFC 9110 13): the versions or opaque tags named by If-Match and
If-None-Match, and a version as an ETag."""

from __future__ import annotations

import re

from flask import request

from service.application.commands import ANY_VERSION

_ETAG_VALUE = re.compile(r'^(W/)?"(\d{1,10})"$')


def etags(header: str | None, *, weak: bool) -> frozenset[int] | None:
    """The versions named by an If-Match / If-None-Match header (ANY_VERSION for "*").

    If-Match compares strongly (RFC 9110 13.1.1): a weak tag there matches nothing.
    """
    if header is None:
        return None
    tags: set[int] = set()
    for raw in header.split(","):
        part = raw.strip()
        if part == "*":
            tags.add(ANY_VERSION)
        elif (m := _ETAG_VALUE.match(part)) and (weak or not m.group(1)):
            tags.add(int(m.group(2)))
    return frozenset(tags)


def if_none_match() -> frozenset[int]:
    return etags(request.headers.get("If-None-Match"), weak=True) or frozenset()


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
