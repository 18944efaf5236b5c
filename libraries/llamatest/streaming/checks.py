"""Assertions on a `StreamResult`; each failure is one line that names what is wrong and where.

Events are named by their index in ``result.events`` (``event 3``), the index the log's raw-event
list and ``Stream Json Events`` use as long as no event is ``[DONE]`` before the end.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from llamatest.http.explain import status_mismatch
from llamatest.streaming.result import StreamResult
from llamatest.textutil import first_difference, media_type, short_repr
from llamatest.unicode import lone_surrogates

_short = functools.partial(short_repr, limit=200)  # streams get longer excerpts than plain responses

Indexed = list[tuple[int, Any]]


# ---- the request ---------------------------------------------------------------------------------------


def request_should_have_succeeded(r: StreamResult, expected_status: int | None) -> None:
    """The status is ``expected_status`` (``None``: any) and nothing cut the exchange short."""
    if expected_status is not None and r.status is not None:
        status_should_be(r, expected_status)
    if r.error:
        raise AssertionError(f"{r.where}: {r.error}")


def status_should_be(r: StreamResult, expected: int) -> None:
    """The failure quotes the server's error (type and message) or the head of the body, like a plain request's."""
    if r.status == expected:
        return
    if r.error:
        detail = r.error
    elif r.body is None:
        detail = f"{len(r.events)} events"
    else:
        detail = ""  # status_mismatch quotes the body
    raise AssertionError(status_mismatch(r.where, r.status, expected, r.body, detail))


def content_type_should_be(r: StreamResult, expected: str) -> None:
    """The media type is exactly ``expected``; parameters such as ``charset`` aside."""
    if r.media_type != media_type(expected):
        header = f"Content-Type {r.content_type!r}" if r.content_type else "no Content-Type"
        raise AssertionError(f"{r.where}: media type was {r.media_type!r} ({header}), expected {expected!r}")


def no_error(r: StreamResult) -> None:
    """No recorded error, no JSON error body, no JSON event with an ``error`` key."""
    if r.error:
        raise AssertionError(f"{r.where}: {r.error}")
    if isinstance(r.json_body, dict) and "error" in r.json_body:
        raise AssertionError(f"{r.where}: response is an error (status {r.status}): {_short(r.body)}")
    for index, event in enumerate(r.events):
        if isinstance(event.json, dict) and "error" in event.json:
            raise AssertionError(f"event {index} is an error: {_short(event.data)}")


# ---- framing and text ----------------------------------------------------------------------------------


def json_events(r: StreamResult) -> list:
    """The parsed JSON of every event but ``[DONE]``; fails on an event that is not JSON."""
    return [obj for _, obj in _json_events(r)]


def json_objects(r: StreamResult) -> list[dict]:
    """The JSON objects among the events, in order; any other event (``[DONE]``, ``data: null``) is passed over."""
    return [event.json for event in r.events if isinstance(event.json, dict)]


def end_with_done_marker(r: StreamResult) -> None:
    """Exactly one ``data: [DONE]``, and it is the last event."""
    events = r.events
    if r.done_count == 0:
        last = _short(events[-1].data) if events else "none"
        raise AssertionError(f"stream has no [DONE] marker ({len(events)} events; last: {last})")
    if r.done_count > 1:
        raise AssertionError(f"stream has {r.done_count} [DONE] markers, expected 1")
    if not r.ended_with_done:
        raise AssertionError(f"[DONE] is not the last event; the last is {_short(events[-1].data)}")


def no_done_marker(r: StreamResult) -> None:
    if r.done_count:
        raise AssertionError(f"stream has {r.done_count} [DONE] marker(s), expected none")


def text_should_be(r: StreamResult, expected: str) -> None:
    text = r.text
    if text != expected:
        at = first_difference(text, expected)
        raise AssertionError(f"streamed text was {_short(text)} ({len(text)} chars), expected {_short(expected)} "
                             f"({len(expected)} chars); first difference at char {at}")


# ---- OpenAI chunks -------------------------------------------------------------------------------------


def only_first_chunk_carries_role(r: StreamResult, role: str) -> None:
    """The first chunk's delta has ``role`` and no content; no later chunk has a role."""
    chunks = _choice_chunks(r)
    index, first = chunks[0]
    delta = _delta(index, first)
    if delta.get("role") != role:
        raise AssertionError(f"the first chunk (event {index}) has role {delta.get('role')!r}, expected {role!r}")
    if delta.get("content") is not None:
        raise AssertionError(f"the first chunk (event {index}) carries content {_short(delta['content'])} "
                             f"next to the role, expected none")
    for index, chunk in chunks[1:]:
        later = _delta(index, chunk).get("role")
        if later is not None:
            raise AssertionError(f"event {index} carries role {later!r}; only the first chunk should")


def no_chunk_before_last_finishes(r: StreamResult) -> None:
    """``finish_reason`` is null on every chunk with choices but the last one, which has one."""
    chunks = _choice_chunks(r)
    last, _ = _finish_chunk(chunks)
    for index, chunk in chunks[:-1]:
        reason = chunk["choices"][0].get("finish_reason")
        if reason is not None:
            raise AssertionError(f"event {index} has finish_reason {reason!r} before the finish chunk "
                                 f"(event {last})")


def finish_chunk_should_be(r: StreamResult, reason: str) -> None:
    """The finish chunk has ``finish_reason`` ``reason`` and, in a chat stream, an empty delta."""
    index, choice = _finish_chunk(_choice_chunks(r))
    if choice["finish_reason"] != reason:
        raise AssertionError(f"the finish chunk (event {index}) has finish_reason {choice['finish_reason']!r}, "
                             f"expected {reason!r}")
    if "delta" in choice and choice["delta"] != {}:
        raise AssertionError(f"the finish chunk (event {index}) has delta {_short(choice['delta'])}, expected {{}}")


def every_chunk_shares_id_model_and_object(r: StreamResult, object_: str) -> None:
    chunks = _objects(r)
    if not chunks:
        raise AssertionError("stream has no JSON chunks")
    first_index, first = chunks[0]
    for index, chunk in chunks:
        missing = [key for key in ("id", "model", "object") if key not in chunk]
        if missing:
            raise AssertionError(f"event {index} lacks {', '.join(missing)}: {_short(chunk)}")
        if chunk["object"] != object_:
            raise AssertionError(f"event {index} has object {chunk['object']!r}, expected {object_!r}")
        for key in ("id", "model"):
            if chunk[key] != first[key]:
                raise AssertionError(f"event {index} has {key} {chunk[key]!r}, event {first_index} has "
                                     f"{first[key]!r}")


def usage_chunk_should_report(r: StreamResult, fields: dict) -> None:
    """The last chunk has ``choices: []`` and a ``usage`` object with ``fields``."""
    index, last = _last_object(r, "usage chunk")
    if not isinstance(last.get("usage"), dict):
        raise AssertionError(f"the last chunk (event {index}) is not a usage chunk: {_short(last)}")
    if last.get("choices") != []:
        raise AssertionError(f"the usage chunk (event {index}) has choices {_short(last.get('choices'))}, "
                             f"expected []")
    _fields_should_be(f"the usage of event {index}", last["usage"], fields)


def no_usage_chunk(r: StreamResult) -> None:
    for index, chunk in _objects(r):
        if chunk.get("usage") is not None:
            raise AssertionError(f"event {index} carries usage {_short(chunk['usage'])}, expected no usage chunk")


# ---- OpenAI chunks of one choice (streams with n > 1, tool calls) -------------------------------------


def chunks_of_choice(r: StreamResult, index: int) -> list[dict]:
    """The choice objects with ``index`` of every JSON chunk, in arrival order (the usage chunk has none).

    Fails on an event that is not JSON, a chunk without a ``choices`` list, or a choice without ``index``."""
    found = []
    for number, chunk in _json_events(r):
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        if not isinstance(choices, list):
            raise AssertionError(f"event {number} is not an OpenAI chunk (no choices list): {_short(chunk)}")
        for choice in choices:
            if not isinstance(choice, dict) or "index" not in choice:
                raise AssertionError(f"event {number} has a choice without an index: {_short(choice)}")
            if choice["index"] == index:
                found.append(choice)
    return found


def delta_field_of_each(choices: list[dict], field: str) -> list:
    """``delta.<field>`` of every choice, in order, ``None`` where the delta lacks it; a choice without a delta
    object fails."""
    values = []
    for number, choice in enumerate(choices):
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            raise AssertionError(f"chunk {number} of the choice has no delta object: {_short(choice)}")
        values.append(delta.get(field))
    return values


def joined_delta_text(choices: list[dict], field: str) -> str:
    """``delta.<field>`` of every choice joined; a delta without it (or with ``null``) adds nothing."""
    pieces = [value or "" for value in delta_field_of_each(choices, field)]
    for piece in pieces:
        if not isinstance(piece, str):
            raise AssertionError(f"delta.{field} is not a string: {_short(piece)}")
    return "".join(pieces)


def delta_list_entries(choices: list[dict], field: str) -> list:
    """The entries of the list ``delta.<field>`` of every choice, in order; a delta without it adds none."""
    return [entry for value in delta_field_of_each(choices, field) for entry in value or []]


def tool_calls_of_deltas(deltas: list[dict]) -> list[dict]:
    """Whole tool calls from a stream's tool-call deltas, one per ``index`` in index order, as ``{"id", "name",
    "arguments"}``: ``id`` and ``function.name`` of the call's first delta, ``function.arguments`` of all its
    deltas joined. Fails, quoting the deltas, when they do not add up to calls."""
    try:
        indexes = sorted({delta["index"] for delta in deltas})
    except (KeyError, TypeError) as error:
        raise AssertionError(f"a tool-call delta has no index ({type(error).__name__}: {error}): "
                             f"{_short(deltas)}") from None
    calls = []
    for index in indexes:
        mine = [delta for delta in deltas if delta["index"] == index]
        try:
            calls.append({"id": mine[0]["id"], "name": mine[0]["function"]["name"],
                          "arguments": "".join(delta["function"].get("arguments", "") for delta in mine)})
        except (KeyError, TypeError, AttributeError) as error:
            raise AssertionError(f"the deltas of tool call {index} do not add up to a call "
                                 f"({type(error).__name__}: {error}): {_short(mine)}") from None
    return calls


# ---- native /completion chunks -------------------------------------------------------------------------


def every_partial_chunk_carries_one_token(r: StreamResult) -> None:
    """Every chunk before the last has ``stop: false`` and exactly one entry in ``tokens``, and there are as
    many of them as the final chunk's ``tokens_predicted``."""
    chunks = _objects(r)
    if len(chunks) < 2:
        raise AssertionError(f"stream has {len(chunks)} JSON chunk(s): no partial chunk before the final one")
    for index, chunk in chunks[:-1]:
        if chunk.get("stop") is not False:
            raise AssertionError(f"partial chunk (event {index}) has stop {_value(chunk, 'stop')}, expected false")
        tokens = chunk.get("tokens")
        if not isinstance(tokens, list) or len(tokens) != 1:
            raise AssertionError(f"partial chunk (event {index}) has tokens {_value(chunk, 'tokens')}, "
                                 f"expected exactly one")
    predicted = chunks[-1][1].get("tokens_predicted")
    if isinstance(predicted, int) and predicted != len(chunks) - 1:
        raise AssertionError(f"stream has {len(chunks) - 1} partial chunks, but its final chunk reports "
                             f"tokens_predicted {predicted}")


def final_chunk_should_report(r: StreamResult, fields: dict) -> None:
    """The last chunk has ``stop: true`` and ``fields``."""
    index, last = _last_object(r, "final chunk")
    if last.get("stop") is not True:
        raise AssertionError(f"the final chunk (event {index}) has stop {_value(last, 'stop')}, expected true")
    _fields_should_be(f"the final chunk (event {index})", last, fields)


# ---- helpers -------------------------------------------------------------------------------------------


def _json_events(r: StreamResult) -> Indexed:
    """``(index, JSON)`` of every event but ``[DONE]``; fails on one that is not JSON."""
    indexed = []
    for index, event in enumerate(r.events):
        if event.is_done:
            continue
        if event.json is None:
            raise AssertionError(f"event {index} is not JSON: {_short(event.data)}")
        indexed.append((index, event.json))
    return indexed


def _objects(r: StreamResult) -> Indexed:
    """Like `_json_events`, and every one must be a JSON object."""
    indexed = _json_events(r)
    for index, obj in indexed:
        if not isinstance(obj, dict):
            raise AssertionError(f"event {index} is not a JSON object: {_short(obj)}")
    return indexed


def _last_object(r: StreamResult, what: str) -> tuple[int, dict]:
    chunks = _objects(r)
    if not chunks:
        raise AssertionError(f"stream has no JSON chunks, so no {what}")
    return chunks[-1]


def _choice_chunks(r: StreamResult) -> Indexed:
    """OpenAI chunks with a non-empty ``choices`` list (the usage chunk has ``choices: []``)."""
    chunks = _objects(r)
    for index, chunk in chunks:
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
            raise AssertionError(f"event {index} is not an OpenAI chunk (no choices list): {_short(chunk)}")
    with_choices = [(index, chunk) for index, chunk in chunks if chunk["choices"]]
    if not with_choices:
        raise AssertionError(f"stream has no chunk with choices ({len(chunks)} JSON chunks)")
    return with_choices


def _finish_chunk(chunks: Indexed) -> tuple[int, dict]:
    """``(index, choices[0])`` of the last chunk with choices; it must have a ``finish_reason``."""
    index, chunk = chunks[-1]
    choice = chunk["choices"][0]
    if choice.get("finish_reason") is None:
        raise AssertionError(f"no chunk finishes: the last chunk with choices (event {index}) has "
                             f"finish_reason {_value(choice, 'finish_reason')}")
    return index, choice


def _delta(index: int, chunk: dict) -> dict:
    delta = chunk["choices"][0].get("delta")
    if not isinstance(delta, dict):
        raise AssertionError(f"event {index} has no delta object (not a chat chunk): {_short(chunk)}")
    return delta


def _value(obj: dict, key: str) -> str:
    return _short(obj[key]) if key in obj else "(missing)"


def _fields_should_be(where: str, obj: dict, expected: dict) -> None:
    for name, wanted in expected.items():
        if name not in obj:
            raise AssertionError(f"{where} lacks {name!r}; it has: {', '.join(sorted(obj))}")
        if not _same(obj[name], wanted):
            raise AssertionError(f"{where} has {name} {_short(obj[name])}, expected {wanted!r}")


def _same(actual: Any, expected: Any) -> bool:
    """``==`` (a bool never equals a number); a string expectation also matches a scalar's JSON or str form,
    so that Robot's ``tokens_predicted=8`` or ``stop=true`` need no ``${…}``."""
    if isinstance(expected, str) and (actual is None or isinstance(actual, (bool, int, float))):
        return expected in (json.dumps(actual), str(actual))
    return actual == expected and isinstance(actual, bool) == isinstance(expected, bool)


def valid_utf8(r: StreamResult) -> None:
    """Every byte of the stream is UTF-8: the server never puts half a character on the wire."""
    if r.invalid_utf8_lines:
        raise AssertionError(f"{r.where}: {r.invalid_utf8_lines} line(s) of the stream are not valid UTF-8")


def no_lone_surrogates(r: StreamResult) -> None:
    """No JSON string of any event holds a lone UTF-16 surrogate (half of an escaped emoji)."""
    for index, event in enumerate(r.events):
        paths = lone_surrogates(event.json)
        if paths:
            raise AssertionError(f"event {index} holds a lone surrogate at {', '.join(paths)}: {_short(event.data)}")


def one_entry_per_token_chunk(per_chunk: list[list]) -> list:
    """Given the per-chunk lists of token entries (probabilities, logprobs) of a stream, checks that every chunk
    but the last carries exactly one and the last none, and returns those entries in order."""
    sizes = [len(entries) for entries in per_chunk]
    expected = [1] * (len(per_chunk) - 1) + [0]
    if sizes != expected:
        raise AssertionError(f"entries per chunk {sizes} != {expected}: one per token chunk, none on the last")
    return [entries[0] for entries in per_chunk[:-1]]
