"""What a failure says about an answer: the server's own error, or the head of the body.

llama-server answers errors as ``{"error": {"code", "message", "type"}}``; the OpenAI and Anthropic
routes use the same ``error`` object (Anthropic inside ``{"type": "error", "error": …}``), and one
route of this build sends the object bare. A status mismatch quotes that error's type and message;
any other body is quoted by its first ``HEAD`` characters.
"""

from __future__ import annotations

import json
from typing import Any

from llamatest.textutil import parse_json

HEAD = 300  # characters of a body (or an error message) a one-line failure quotes


def status_mismatch(where: str, status: int | None, expected: object, body: str | None, detail: str = "") -> str:
    """``POST /detokenize: status was 500, expected 200; error server_error: "…"``.

    ``detail`` replaces the quote of the body (a stream with events has no body to quote).
    """
    got = "no answer" if status is None else f"status was {status}"
    return f"{where}: {got}, expected {expected}; {detail or answer_summary(body)}"


def answer_summary(body: str | None) -> str:
    """The server's error (``error TYPE: "MESSAGE"``), else ``body: '…'``, ``empty body`` or ``no body``."""
    if body is None:
        return "no body"
    error = error_object(parse_json(body))
    if error is not None:
        return _error_text(error)
    if not body:
        return "empty body"
    return f"body: {head(body)}"


def error_object(doc: Any) -> dict | None:
    """The error object of an answer (nested or bare), or None when the answer is not an error."""
    if not isinstance(doc, dict):
        return None
    error = doc.get("error")
    if isinstance(error, dict):
        return error
    if isinstance(error, str):
        return {"message": error}
    if isinstance(doc.get("message"), str) and ("type" in doc or "code" in doc):
        return doc  # the bare object some routes send
    return None


def head(text: str, limit: int = HEAD) -> str:
    """``repr`` of the first ``limit`` characters, with the full length when it was cut."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} chars)"


def _error_text(error: dict) -> str:
    kind = error.get("type")
    message = error.get("message")
    name = f"error {kind}" if isinstance(kind, str) and kind else "error (no type)"
    if not isinstance(message, str):
        return f"{name}, no message: {head(json.dumps(error, ensure_ascii=False))}"
    quoted = json.dumps(message[:HEAD], ensure_ascii=False) + ("…" if len(message) > HEAD else "")
    return f"{name}: {quoted}"
