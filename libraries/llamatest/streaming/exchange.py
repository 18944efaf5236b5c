"""A streamed request as a numbered exchange (``llamatest.http.exchanges``): its number and its record."""

from __future__ import annotations

import json

from llamatest.http.exchanges import ANSWER_HEAD, Exchange, register
from llamatest.streaming.result import StreamResult


def number(r: StreamResult, headers: dict | None = None) -> Exchange:
    """Registers ``r`` with the next number, sets ``r.exchange_id`` and returns the exchange.

    The record holds the body as aiohttp sent it (``json=``: ``json.dumps`` with its defaults) and the
    headers the caller gave, so that a replay sends the same bytes.
    """
    body = None if r.request_body is None else json.dumps(r.request_body)
    sent = ({"Content-Type": "application/json"} if body is not None else {}) | dict(headers or {})
    exchange = register(r.method, r.url, sent, body, status=r.status, stream=True, error=r.error,
                        answer=_answer(r), documents=lambda: _documents(r))
    r.exchange_id = exchange.id
    return exchange


def _answer(r: StreamResult) -> str:
    """The head of the answer as it came: the plain body, or the events as ``data:`` lines."""
    if r.body is not None:
        return r.body[:ANSWER_HEAD]
    lines, size = [], 0
    for event in r.events:
        prefix = "" if event.event == "message" else f"event: {event.event}\n"
        lines.append(prefix + "".join(f"data: {line}\n" for line in event.data.split("\n")) + "\n")
        size += len(lines[-1])
        if size >= ANSWER_HEAD:
            break
    return "".join(lines)[:ANSWER_HEAD]


def _documents(r: StreamResult) -> list:
    return [doc for doc in (r.json_body, *(e.json for e in r.events)) if doc is not None]
