"""The one collapsed log block of an HTTP exchange: request body, response headers and body."""

from __future__ import annotations

from llamatest.report.html import details, json_block, labelled, pre, table


def request_html(body: bytes | str | None, content_type: str) -> str:
    if body is None or body == b"" or body == "":
        return ""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    if content_type.startswith("application/json"):
        return labelled("request", json_block(text))
    return labelled(f"request ({content_type or 'no Content-Type'})", pre(text))


def exchange_html(where: str, request: str, status: int, headers: dict, text: str, elapsed: float) -> str:
    summary = f"{where} → {status} ({len(text):,} chars, {elapsed:.3f} s)"
    headers_html = details("response headers", table(["name", "value"], sorted(headers.items())))
    return details(summary, request + labelled("response", headers_html + json_block(text)))


def failed_exchange_html(where: str, request: str, error: str) -> str:
    return details(f"{where} → failed", request + pre(error))
