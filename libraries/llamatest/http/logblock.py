"""The one collapsed log block of an HTTP exchange: request body, response headers and body.

A numbered exchange (``llamatest.http.exchanges``) shows its label at the end of the summary line, so a
failure's ``[exchange #12]`` can be found in the log, and carries its record as JSON in a hidden element
(`record_html`), which tools reading output.xml take it from (``llamatest.report.bugs``).
"""

from __future__ import annotations

import json

from llamatest.htmllog import details, escape, json_block, labelled, pre, table
from llamatest.http.exchanges import Exchange

RECORD_ATTRIBUTE = "data-llamatest-exchange"


def request_html(body: bytes | str | None, content_type: str) -> str:
    if body is None or body == b"" or body == "":
        return ""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    if content_type.startswith("application/json"):
        return labelled("request", json_block(text))
    return labelled(f"request ({content_type or 'no Content-Type'})", pre(text))


def exchange_html(where: str, request: str, status: int, headers: dict, text: str, elapsed: float,
                  exchange: Exchange | None = None) -> str:
    summary = f"{where} → {status} ({len(text):,} chars, {elapsed:.3f} s){suffix(exchange)}"
    headers_html = details("response headers", table(["name", "value"], sorted(headers.items())))
    block = details(summary, request + labelled("response", headers_html + json_block(text)))
    return block + record_html(exchange)


def failed_exchange_html(where: str, request: str, error: str, exchange: Exchange | None = None) -> str:
    return details(f"{where} → failed{suffix(exchange)}", request + pre(error)) + record_html(exchange)


def suffix(exchange: Exchange | None) -> str:
    """`` [exchange #12]`` for a summary line; nothing for an exchange without a number."""
    return f" [{exchange.label}]" if exchange is not None else ""


def record_html(exchange: Exchange | None) -> str:
    """The exchange's record as a hidden element; ASCII-only JSON, so no character can break the log."""
    if exchange is None:
        return ""
    record = json.dumps(exchange.record(), separators=(",", ":"), ensure_ascii=True)
    return f'<span hidden {RECORD_ATTRIBUTE}="{escape(record)}"></span>'
