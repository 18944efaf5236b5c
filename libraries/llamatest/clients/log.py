"""The one collapsed log block of an SDK call: the call with its arguments, then its typed result as JSON
(or its events, or the exception it raised)."""

from __future__ import annotations

from llamatest.clients.calls import Call
from llamatest.clients.views import as_json, error_text, error_view, jsonable, wire_events
from llamatest.htmllog import details, json_block, labelled, pre

MAX_ARGUMENT_CHARS = 60  # of one argument in the summary line


def call_text(record: Call) -> str:
    """The call as an application writes it: ``client.chat.completions.create(model='…', max_tokens=4)``."""
    arguments = dict(record.arguments)
    if record.streamed and not record.helper:
        arguments["stream"] = True
    shown = ", ".join(f"{name}={_short(value)}" for name, value in arguments.items())
    prefix = "await " if record.asynchronous else ""
    return f"{prefix}client.{record.method}({shown})"


def _short(value) -> str:
    text = repr(jsonable(value))
    return text if len(text) <= MAX_ARGUMENT_CHARS else text[:MAX_ARGUMENT_CHARS - 1] + "…"


def outcome(record: Call) -> str:
    """``ChatCompletion``, ``12 events``, ``12 events, ParsedChatCompletion`` or ``raised BadRequestError 400``."""
    parts = []
    if record.streamed:
        parts.append(f"{len(record.events)} events")
    if record.result is not None:
        parts.append(type(record.result).__name__)
    if record.error is not None:
        status = getattr(record.error, "status_code", None)
        parts.append(f"raised {type(record.error).__name__}" + (f" {status}" if status is not None else ""))
    return ", ".join(parts) or "None"


def call_html(record: Call) -> str:
    """The call's collapsed block: summary line, the call, its arguments as JSON, what came back."""
    kind = "async " if record.asynchronous else ""
    summary = f"{record.sdk} {kind}{record.method} → {outcome(record)} ({record.elapsed:.3f} s)"
    body = labelled("call", pre(call_text(record))) + labelled("arguments", json_block(jsonable(record.arguments)))
    if record.streamed:
        events = [as_json(event) for event in wire_events(record)]
        body += labelled(f"events from the server ({len(events)}; {len(record.events)} from the SDK)",
                         json_block(events))
    if record.result is not None:
        body += labelled(f"result: {type(record.result).__name__}", json_block(as_json(record.result)))
    if record.error is not None:
        view = error_view(record.error)
        body += labelled(f"raised {view['class']}", pre(error_text(record.error)) + json_block(jsonable(view)))
    return details(summary, body)


def batch_html(records: list[Call]) -> str:
    """Concurrent calls: one summary line, then each call's own block."""
    failed = sum(record.error is not None for record in records)
    slowest = max((record.elapsed for record in records), default=0.0)
    summary = f"{len(records)} concurrent SDK calls, {failed} failed (slowest {slowest:.3f} s)"
    return details(summary, "".join(call_html(record) for record in records))
