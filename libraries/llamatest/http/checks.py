"""Assertions on responses and JSON documents; each failure is one line naming the exchange."""

from __future__ import annotations

from typing import Any

from llamatest.http.explain import status_mismatch
from llamatest.http.jsonpath import TYPES, json_type, lookup, names
from llamatest.http.response import Response
from llamatest.textutil import first_difference, media_type, short_repr

SHOWN = 300  # characters of a compared value a failure shows


def status_should_be(resp: Response, expected: int) -> None:
    """The failure quotes the server's error type and message, or the head of any other body."""
    if resp.status != expected:
        raise AssertionError(status_mismatch(resp.where, resp.status, expected, resp.text))


def error_response_should_be(resp: Response, status: int, type_: str, message: str | None = None,
                             message_contains: str | None = None) -> None:
    """llama-server's error object: ``{"error": {"code": status, "type": type_, "message": "…"}}``."""
    status_should_be(resp, status)
    body = resp.json
    if not isinstance(body, dict) or not isinstance(body.get("error"), dict):
        raise AssertionError(f'{resp.where}: body is not {{"error": {{...}}}}: {resp.text[:300]!r}')
    error = body["error"]
    for field, wanted in (("code", status), ("type", type_)):
        if field not in error:
            raise AssertionError(f"{resp.where}: error.{field} is missing; error has: {names(error)}")
        if error[field] != wanted or isinstance(error[field], bool):
            raise AssertionError(f"{resp.where}: error.{field} was {error[field]!r}, expected {wanted!r}")
    actual = error.get("message")
    if not isinstance(actual, str) or not actual:
        raise AssertionError(f"{resp.where}: error.message should be a non-empty string, was {actual!r}")
    if message is not None and actual != message:
        raise AssertionError(f"{resp.where}: error.message was {actual!r}, expected {message!r}")
    if message_contains is not None and message_contains not in actual:
        raise AssertionError(f"{resp.where}: error.message {actual!r} does not contain {message_contains!r}")


def json_field_should_be(doc: Any, path: str, expected: Any) -> None:
    """Exact: ``==`` and a bool never equals a number. The failure shows both values (long ones cut), their
    JSON types, and for two strings where they first differ."""
    value = lookup(doc, path)
    if value != expected or isinstance(value, bool) != isinstance(expected, bool):
        where = f"JSON field '{path}'" if path else "the JSON document"
        message = (f"{where} was {_shown(value)} ({json_type(value)}), "
                   f"expected {_shown(expected)} ({json_type(expected)})")
        if isinstance(value, str) and isinstance(expected, str):
            message += f"; first difference at char {first_difference(value, expected)}"
        raise AssertionError(message)


def _shown(value: Any) -> str:
    return short_repr(value, limit=SHOWN)


def json_field_should_be_of_type(doc: Any, path: str, type_name: str) -> None:
    if type_name not in TYPES:
        raise ValueError(f"unknown type name {type_name!r}; use one of: {', '.join(TYPES)}")
    value = lookup(doc, path)
    if not TYPES[type_name](value):
        raise AssertionError(f"JSON field '{path}' is {json_type(value)} ({short_repr(value)}), expected {type_name}")


def json_fields_should_exist(doc: Any, path_prefix: str, *wanted: str) -> None:
    obj = lookup(doc, path_prefix)
    where = f"'{path_prefix}'" if path_prefix else "the root"
    if not isinstance(obj, dict):
        raise AssertionError(f"JSON value at {where} is {json_type(obj)}, not an object")
    missing = [n for n in wanted if n not in obj]
    if missing:
        raise AssertionError(f"JSON object at {where} lacks {', '.join(map(repr, missing))}; it has: {names(obj)}")


def header(resp: Response, name: str) -> str:
    if name.lower() not in resp.headers:
        raise AssertionError(f"{resp.where}: header {name!r} is missing; headers: "
                             f"{', '.join(sorted(resp.headers)) or 'none'}")
    return resp.headers[name.lower()]


def header_should_be(resp: Response, name: str, expected: str) -> None:
    value = header(resp, name)
    if value != expected:
        raise AssertionError(f"{resp.where}: header {name!r} was {value!r}, expected {expected!r}")


def header_should_contain_token(resp: Response, name: str, token: str) -> None:
    """``token`` must be one of the comma-separated values of the header (case-insensitive)."""
    value = header(resp, name)
    if token.lower() not in resp.header_tokens(name):
        raise AssertionError(f"{resp.where}: header {name!r} is {value!r}, which does not list {token!r}")


def header_should_be_absent(resp: Response, name: str) -> None:
    if name.lower() in resp.headers:
        raise AssertionError(f"{resp.where}: header {name!r} should be absent, was {resp.headers[name.lower()]!r}")


def media_type_should_be(resp: Response, expected: str) -> None:
    """Exact media type of ``Content-Type``; parameters such as the charset aside."""
    value = header(resp, "Content-Type")
    if media_type(value) != expected.lower():
        raise AssertionError(f"{resp.where}: media type was {media_type(value)!r} (Content-Type {value!r}), "
                             f"expected {expected!r}")
