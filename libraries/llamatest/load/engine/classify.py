"""SSE event -> ``LoadEvent``: what one event of a streamed completion means for timing.

The routes share the rules: OpenAI chat (``/v1/chat/completions``), OpenAI text (``/v1/completions``),
llama-server's native ``/completion`` and ``/infill`` (no ``[DONE]``; each chunk has a ``tokens`` array with
the exact token ids it carries, and the last one has ``stop: true`` and the ``timings``), and the typed
events of ``/v1/responses`` (ends with ``response.completed``) and ``/v1/messages`` (ends with
``message_stop``), whose usage is read in OpenAI terms (``routes.normalized_usage``).

Only text the model generated makes an event token-bearing (kinds ``content``, ``reasoning``,
``tool_call`` with characters). A role prelude, ``prompt_progress``, a keep-alive comment, the finish
chunk, the usage chunk and ``[DONE]`` never do. Nothing but the classification is kept: the raw data is
dropped as soon as it is parsed.
"""

from __future__ import annotations

from typing import Any

from llamatest.load.engine.record import LoadEvent
from llamatest.load.workloads.routes import normalized_usage
from llamatest.textutil import parse_json

# Native stop_type -> the OpenAI finish_reason it corresponds to.
NATIVE_FINISH = {"eos": "stop", "word": "stop", "limit": "length"}
FINISH_OUTCOMES = {"stop": "finish_stop", "length": "finish_length", "tool_calls": "finish_tool_calls"}


def classify_data(data: str, t: float, coalesced: bool) -> tuple[LoadEvent, bool, bool]:
    """One SSE ``data`` payload -> (event, final, not_json). ``final`` is True for the event that ends the
    answer: ``[DONE]``, or native ``stop: true``. ``not_json`` is True for a payload that is not a JSON
    object (its event is kind ``other``; the engine counts it as a protocol error)."""
    if data == "[DONE]":
        return LoadEvent(t, "done", coalesced=coalesced), True, False
    obj = parse_json(data)
    if not isinstance(obj, dict):
        return LoadEvent(t, "other", coalesced=coalesced), False, True
    if "error" in obj:
        return LoadEvent(t, "error", coalesced=coalesced), False, False
    choices = obj.get("choices")
    if choices is not None:
        return _openai(obj, choices, t, coalesced), False, False
    if isinstance(obj.get("type"), str):
        event, final = _typed(obj, t, coalesced)
        return event, final, False
    event, final = _native(obj, t, coalesced)
    return event, final, False


def _openai(obj: dict[str, Any], choices: Any, t: float, coalesced: bool) -> LoadEvent:
    usage = obj.get("usage")
    timings = obj.get("timings")
    usage = usage if isinstance(usage, dict) else None
    timings = timings if isinstance(timings, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    if choice is None:
        kind = "usage" if usage is not None or timings is not None else "other"
        return LoadEvent(t, kind, coalesced=coalesced, usage=usage, timings=timings)
    finish = choice.get("finish_reason")
    delta = choice.get("delta")
    kind, n_chars = "other", 0
    if isinstance(delta, dict):  # chat
        content = delta.get("content")
        reasoning = delta.get("reasoning_content")
        tools = delta.get("tool_calls")
        if isinstance(content, str) and content:
            kind, n_chars = "content", len(content)
        elif isinstance(reasoning, str) and reasoning:
            kind, n_chars = "reasoning", len(reasoning)
        elif isinstance(tools, list) and tools:
            kind, n_chars = "tool_call", _tool_chars(tools)
        elif delta.get("role"):
            kind = "role"
    else:  # text completion
        text = choice.get("text")
        if isinstance(text, str) and text:
            kind, n_chars = "content", len(text)
    if kind == "other":
        if finish:
            kind = "finish"
        elif "prompt_progress" in obj:
            kind = "progress"
        elif usage is not None:
            kind = "usage"
    return LoadEvent(t, kind, n_chars=n_chars, coalesced=coalesced, finish_reason=finish or None, usage=usage,
                     timings=timings)


# Typed stream events (/v1/responses, /v1/messages) whose text is generated: type -> (kind, text key).
_TYPED_TEXT = {"response.output_text.delta": ("content", "delta"),
               "response.reasoning_text.delta": ("reasoning", "delta"),
               "response.function_call_arguments.delta": ("tool_call", "delta")}
_ANTHROPIC_DELTA = {"text_delta": ("content", "text"), "thinking_delta": ("reasoning", "thinking"),
                    "input_json_delta": ("tool_call", "partial_json")}
_ANTHROPIC_STOP = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}
_RESPONSE_STATUS = {"completed": "stop", "incomplete": "length"}


def _typed(obj: dict[str, Any], t: float, coalesced: bool) -> tuple[LoadEvent, bool]:
    """One typed event of /v1/responses or /v1/messages -> (event, final)."""
    kind_of = obj["type"]
    text_kind = _TYPED_TEXT.get(kind_of)
    if kind_of == "content_block_delta" and isinstance(obj.get("delta"), dict):
        text_kind = _ANTHROPIC_DELTA.get(obj["delta"].get("type"))
        obj = obj["delta"]
    if text_kind is not None:
        text = obj.get(text_kind[1])
        n_chars = len(text) if isinstance(text, str) else 0
        return LoadEvent(t, text_kind[0] if n_chars else "other", n_chars=n_chars, coalesced=coalesced), False
    timings = obj.get("timings") if isinstance(obj.get("timings"), dict) else None
    if kind_of == "response.completed":
        response = obj.get("response") if isinstance(obj.get("response"), dict) else {}
        return LoadEvent(t, "usage", coalesced=coalesced, usage=normalized_usage(response.get("usage")),
                         timings=timings, finish_reason=_RESPONSE_STATUS.get(response.get("status"))), True
    if kind_of == "message_start":
        message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
        return LoadEvent(t, "role", coalesced=coalesced, usage=normalized_usage(message.get("usage"))), False
    if kind_of == "message_delta":
        delta = obj.get("delta") if isinstance(obj.get("delta"), dict) else {}
        return LoadEvent(t, "finish", coalesced=coalesced, usage=normalized_usage(obj.get("usage")),
                         timings=timings, finish_reason=_ANTHROPIC_STOP.get(delta.get("stop_reason"))), False
    if kind_of == "message_stop":
        return LoadEvent(t, "done", coalesced=coalesced), True
    return LoadEvent(t, "other", coalesced=coalesced), False


def _tool_chars(tools: list) -> int:
    n = 0
    for call in tools:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            n += len(fn.get("name") or "") + len(fn.get("arguments") or "")
    return n


def _native(obj: dict[str, Any], t: float, coalesced: bool) -> tuple[LoadEvent, bool]:
    timings = obj.get("timings")
    timings = timings if isinstance(timings, dict) else None
    stop = obj.get("stop") is True
    content = obj.get("content")
    tokens = obj.get("tokens")
    n_tokens = len(tokens) if isinstance(tokens, list) else None
    finish = NATIVE_FINISH.get(obj.get("stop_type"), obj.get("stop_type") or "stop") if stop else None
    if isinstance(content, str) and content:
        kind, n_chars = "content", len(content)
    elif stop:
        kind, n_chars = "finish", 0
    elif "prompt_progress" in obj:
        kind, n_chars = "progress", 0
    else:
        kind, n_chars = "other", 0
    if kind != "content" and n_tokens == 0:
        n_tokens = None
    return LoadEvent(t, kind, n_chars=n_chars, n_tokens=n_tokens, coalesced=coalesced, finish_reason=finish,
                     timings=timings), stop


def generated_text(data: str) -> str:
    """The generated text one token-bearing event carries (content, reasoning or tool-call arguments), for the
    answer check; classify_data keeps only its length."""
    obj = parse_json(data)
    if not isinstance(obj, dict):
        return ""
    choices = obj.get("choices")
    if not isinstance(choices, list):
        content = obj.get("content")  # native /completion
        return content if isinstance(content, str) else ""
    choice = choices[0] if choices and isinstance(choices[0], dict) else {}
    delta = choice.get("delta")
    if not isinstance(delta, dict):
        text = choice.get("text")
        return text if isinstance(text, str) else ""
    parts = [delta.get("content"), delta.get("reasoning_content")]
    for call in delta.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            parts += [fn.get("name"), fn.get("arguments")]
    return "".join(p for p in parts if isinstance(p, str))
