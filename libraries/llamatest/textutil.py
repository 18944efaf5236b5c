"""Small helpers the HTTP and streaming libraries share: URLs, media types, JSON parsing, short reprs."""

from __future__ import annotations

import json


def join_url(base: str, path: str) -> str:
    """``http://h:1/`` + ``/health`` → ``http://h:1/health`` (never a double slash)."""
    if not path:
        return base
    return base.rstrip("/") + "/" + path.lstrip("/")


def parse_json(text: str):
    """The parsed value, or None when ``text`` is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def short_repr(value, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for one-line failure messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def first_difference(a: str, b: str) -> int:
    """The index of the first character where ``a`` and ``b`` differ; the shorter length when one is a prefix
    of the other (so the length itself when they are equal)."""
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def media_type(content_type: str) -> str:
    """``application/json; charset=utf-8`` → ``application/json``: the media type, parameters aside."""
    return content_type.split(";", 1)[0].strip().lower()
