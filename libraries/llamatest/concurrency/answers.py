"""What one request of a batch got, read the same way for every route and both answer forms.

A `StreamResult` holds either the events of a stream or a plain body. These functions read the
generated text, the number of predicted tokens, the finish reason, the slot and an error object
from either, for native ``/completion``, OpenAI ``/v1/completions`` and ``/v1/chat/completions``.
"""

from __future__ import annotations

from typing import Any

from llamatest.streaming.result import StreamResult, chunk_text


def is_stream(r: StreamResult) -> bool:
    return r.media_type == "text/event-stream"


def objects(r: StreamResult) -> list[dict]:
    """The JSON objects of the answer: every event of a stream, or the one body."""
    if is_stream(r):
        return [e.json for e in r.events if isinstance(e.json, dict)]
    return [r.json_body] if isinstance(r.json_body, dict) else []


def text(r: StreamResult) -> str | None:
    """The generated text; ``None`` when the answer carries none (an error, no answer)."""
    if is_stream(r):
        return r.text
    body = r.json_body
    if not isinstance(body, dict) or "error" in body:
        return None
    choices = body.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        value = message.get("content") if isinstance(message, dict) else choices[0].get("text")
    else:
        value = body.get("content")
    return value if isinstance(value, str) else chunk_text(body)


def final(r: StreamResult) -> dict | None:
    """The object that closes the answer: a native ``stop: true`` chunk, the OpenAI chunk with a
    ``finish_reason``, or a plain JSON body that is not an error; ``None`` when there is none."""
    if not is_stream(r):
        body = r.json_body
        return body if isinstance(body, dict) and "error" not in body else None
    for obj in reversed(objects(r)):
        if _closes(obj):
            return obj
    return None


def finals(r: StreamResult) -> int:
    """How many closing objects the answer has (exactly one for a complete answer)."""
    if not is_stream(r):
        return int(final(r) is not None)
    return sum(1 for obj in objects(r) if _closes(obj))


def _closes(obj: dict) -> bool:
    choices = obj.get("choices")
    return obj.get("stop") is True or (isinstance(choices, list) and any(
        isinstance(c, dict) and c.get("finish_reason") is not None for c in choices))


def predicted(r: StreamResult) -> int | None:
    """Tokens predicted: native ``tokens_predicted``, else OpenAI ``usage.completion_tokens``, else
    ``timings.predicted_n`` of the closing object."""
    candidates = [obj for obj in objects(r) if "usage" in obj or "timings" in obj or "tokens_predicted" in obj]
    last = final(r)
    for obj in ([last] if last else []) + list(reversed(candidates)):
        if isinstance(obj.get("tokens_predicted"), int):
            return obj["tokens_predicted"]
        usage = obj.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("completion_tokens"), int):
            return usage["completion_tokens"]
        timings = obj.get("timings")
        if isinstance(timings, dict) and isinstance(timings.get("predicted_n"), int):
            return timings["predicted_n"]
    return None


def finish_reason(r: StreamResult) -> str | None:
    """Native ``stop_type`` (``limit``, ``eos``, ``word``) or OpenAI ``finish_reason`` (``length``, ``stop``)."""
    last = final(r)
    if last is None:
        return None
    if "stop_type" in last:
        return last["stop_type"]
    return last["choices"][0].get("finish_reason")


def server_seconds(r: StreamResult) -> float | None:
    """How long the request held its slot by the server's own clock: ``timings.prompt_ms + predicted_ms`` of the
    closing object, in seconds; None without both."""
    timings = (final(r) or {}).get("timings")
    if not isinstance(timings, dict):
        return None
    parts = [timings.get("prompt_ms"), timings.get("predicted_ms")]
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in parts):
        return None
    return sum(parts) / 1000


def slot(r: StreamResult) -> int | None:
    """The ``id_slot`` the server reported (native routes only; partial chunks may say -1: skipped)."""
    for obj in reversed(objects(r)):
        if isinstance(obj.get("id_slot"), int) and obj["id_slot"] >= 0:
            return obj["id_slot"]
    return None


def error(r: StreamResult) -> dict | None:
    """The server's error object: the body's ``error`` or the first event's ``error``."""
    for obj in objects(r):
        if isinstance(obj.get("error"), dict):
            return obj["error"]
    return None


def is_clean_error(err: Any) -> bool:
    """The server's error shape: ``{"code": int, "message": non-empty str, "type": str}``."""
    return isinstance(err, dict) and isinstance(err.get("code"), int) and not isinstance(err.get("code"), bool) \
        and isinstance(err.get("message"), str) and bool(err["message"]) and isinstance(err.get("type"), str)
