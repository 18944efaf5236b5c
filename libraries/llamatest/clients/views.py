"""What the tests read from the SDKs' typed objects: their JSON, streamed text, event types, errors, embeddings."""

from __future__ import annotations

import base64
import json
import struct

import pydantic

from llamatest.clients.calls import Call
from llamatest.clients.connect import loaded_sdks

ANTHROPIC_WIRE_EVENTS = {"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                         "message_delta", "message_stop", "ping", "error"}
# Event types whose text is the generated text, and where it is in the event.
_TEXT_EVENTS = {"content_block_delta": ("delta", "text"), "response.output_text.delta": ("delta",)}


def as_json(value):
    """A typed SDK object (or a list of them) as the JSON it stands for: the fields the answer set, by their
    wire names, extra fields (``timings``) included."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): as_json(item) for key, item in value.items()}
    return value


def jsonable(value):
    """Call arguments as JSON for the log: a class (a pydantic ``response_format``) by its name."""
    return json.loads(json.dumps(as_json(value), default=lambda obj: f"<{getattr(obj, '__name__', repr(obj))}>"))


def wire_events(record: Call) -> list:
    """The stream's events as they came from the server. A helper's ``chunk`` events give their chunk; the
    events a helper makes up itself (``content.delta``, ``text``, ``input_json``, …) are left out."""
    if not record.helper:
        return list(record.events)
    events = []
    for event in record.events:
        kind = str(getattr(event, "type", ""))
        if kind == "chunk":
            events.append(event.chunk)
        elif kind in ANTHROPIC_WIRE_EVENTS or kind.startswith("response."):
            events.append(event)
    return events


def class_name(value) -> str:
    """The name of the SDK class of ``value``, a generic class by its name alone (``ParsedChatCompletion``)."""
    return type(value).__name__.split("[")[0]


def class_names(values) -> list[str]:
    """The distinct `class_name` of the items of ``values``, sorted."""
    return sorted({class_name(value) for value in values})


def event_types(record: Call) -> list[str]:
    """The ``type`` (or, for OpenAI chunks, ``object``) of every event, in order."""
    return [getattr(event, "type", None) or getattr(event, "object", "?") for event in record.events]


def runs(names: list[str]) -> list[str]:
    """The names with consecutive repeats collapsed: the order of the kinds of events."""
    return [name for index, name in enumerate(names) if index == 0 or names[index - 1] != name]


def streamed_text(record: Call, index: int = 0) -> str:
    """The generated text of a stream: OpenAI chat deltas and legacy completion texts of choice ``index``,
    Responses ``output_text`` deltas, Anthropic text deltas."""
    parts = []
    for event in wire_events(record):
        kind = getattr(event, "type", None)
        if kind in _TEXT_EVENTS:
            value = event
            for name in _TEXT_EVENTS[kind]:
                value = getattr(value, name, None)
            parts.append(value if isinstance(value, str) else "")
            continue
        for choice in getattr(event, "choices", None) or []:
            if choice.index == index:
                delta = getattr(choice, "delta", None)
                text = delta.content if delta is not None else getattr(choice, "text", None)
                parts.append(text or "")
    return "".join(parts)


def field_values(record: Call, name: str) -> list:
    """The value of top-level field ``name`` in every wire event that has it (``id``, ``created``, ``model``)."""
    return [getattr(event, name) for event in wire_events(record) if getattr(event, name, None) is not None]


def schema_deviations(value, model: type[pydantic.BaseModel] | None = None) -> list[str]:
    """Every way the JSON of a typed SDK object (or of each object of a list, paths prefixed with its index)
    breaks the SDK's own model when validated in pydantic's strict mode (no coercion: a number sent as a
    string, an integer code where a string is declared, a required field left out), as ``path: message (got
    value)`` (``path: Field required`` for a missing one); empty when it conforms. ``model`` validates plain
    JSON (an error body) against that model instead."""
    if isinstance(value, (list, tuple)) and model is None:
        return [f"{index}.{line}" for index, item in enumerate(value) for line in schema_deviations(item)]
    model = model or type(value)
    try:
        model.model_validate_json(json.dumps(as_json(value)), strict=True)
    except pydantic.ValidationError as exc:
        return [f"{'.'.join(map(str, error['loc'])) or '(root)'}: {error['msg']}"
                + ("" if error["type"] == "missing" else f" (got {error['input']!r})") for error in exc.errors()]
    return []


def error_body_deviations(error: BaseException) -> list[str]:
    """How the body of an SDK status error breaks the SDK's error schema in strict mode: OpenAI's error
    object (``openai.types.shared.ErrorObject``; the SDK hands over what is inside ``error``), Anthropic's
    error response (``anthropic.types.ErrorResponse``: ``{"type": "error", "error": {...}}``)."""
    body = getattr(error, "body", None)
    sdks = loaded_sdks()
    if "anthropic" in sdks and isinstance(error, sdks["anthropic"].APIStatusError):
        return schema_deviations(body, sdks["anthropic"].types.ErrorResponse)
    if "openai" in sdks and isinstance(error, sdks["openai"].APIStatusError):
        return schema_deviations(body, sdks["openai"].types.shared.ErrorObject)
    raise ValueError(f"{type(error).__name__} is not an SDK status error: it has no error body")


def unknown_fields(value, path: str = "") -> list[str]:
    """The paths of the fields of a typed SDK object (and of the objects in it) that its model does not
    declare: what the SDK keeps without knowing (``timings``)."""
    if isinstance(value, (list, tuple)):
        return [name for index, item in enumerate(value) for name in unknown_fields(item, f"{path}{index}.")]
    if not isinstance(value, pydantic.BaseModel):
        return []
    found = [f"{path}{name}" for name in (value.model_extra or {})]
    for name in type(value).model_fields:
        found += unknown_fields(getattr(value, name, None), f"{path}{name}.")
    return found


def error_view(error: BaseException) -> dict:
    """An SDK exception as the fields an application reads: class, status, type, code, param, message, body."""
    body = getattr(error, "body", None)
    inner = body.get("error", body) if isinstance(body, dict) else {}
    inner = inner if isinstance(inner, dict) else {}
    message = inner.get("message", getattr(error, "message", str(error)))
    return {"class": type(error).__name__, "status": getattr(error, "status_code", None),
            "type": getattr(error, "type", None) or inner.get("type"), "code": getattr(error, "code", None),
            "param": getattr(error, "param", None), "message": message, "body": body}


def error_mismatches(error: BaseException, class_name: str, status: int | None, type_: str | None,
                     message: str | None = None, message_contains: str | None = None) -> list[str]:
    """What differs between an SDK exception and the expected class, status, type and message (empty: none)."""
    view = error_view(error)
    wrong = []
    if view["class"] != class_name:
        wrong.append(f"raised {view['class']}, expected {class_name}: {error_text(error)}")
    if status is not None and view["status"] != int(status):
        wrong.append(f"status was {view['status']}, expected {status}")
    if type_ is not None and view["type"] != type_:
        wrong.append(f"error type was {view['type']!r}, expected {type_!r}")
    if message is not None and view["message"] != message:
        wrong.append(f"message was {view['message']!r}, expected {message!r}")
    if message_contains is not None and message_contains not in str(view["message"]):
        wrong.append(f"message {view['message']!r} does not contain {message_contains!r}")
    return wrong


def error_text(error: BaseException) -> str:
    """The exception's message, followed by its cause's when the SDK wraps one (a validation error's
    ``APIResponseValidationError`` says only "Data returned by API invalid for expected schema.")."""
    cause = error.__cause__
    return f"{error}\n{cause}" if cause is not None and str(cause) not in str(error) else str(error)


def decode_base64_embedding(text: str) -> list[float]:
    """An embedding sent as base64 (``encoding_format: base64``): little-endian float32 values."""
    raw = base64.b64decode(text)
    if len(raw) % 4:
        raise ValueError(f"a base64 embedding of {len(raw)} bytes is not a whole number of float32 values")
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))
