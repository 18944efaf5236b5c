"""Robot facade of llamatest.streaming: streamed (SSE) requests to llama-server and their assertions."""

from __future__ import annotations

import asyncio
import time
from typing import Literal

from robot.api import logger
from robot.api.deco import keyword, library
from robot.utils import DotDict

from llamatest import deadlines
from llamatest.http.exchanges import naming
from llamatest.streaming import checks, sse
from llamatest.streaming.client import client_session, stream_one
from llamatest.streaming.exchange import number
from llamatest.streaming.logblock import batch_html, stream_html
from llamatest.streaming.result import StreamResult
from llamatest.textutil import join_url
from robot_glue import server_base_url as _base_url
from robot_glue import server_headers


@library(scope="GLOBAL", version="0.2", doc_format="ROBOT")
class StreamingLibrary:
    """Streams llama-server responses (Server-Sent Events), records the arrival time of every event
    and checks the chunk contracts of the OpenAI-compatible and native routes.

    %TOC%

    = Servers =

    Request keywords take the server as ``server``: the alias of a server started by LlamaServerLibrary,
    by default ``suite`` (the suite's own server). A value starting with ``http://`` or ``https://`` is
    used as the base URL as is.

    = Usage =

    | ***** Settings *****
    | Library    StreamingLibrary
    |
    | ***** Test Cases *****
    | Chat Stream Ends With Done Marker
    |     VAR    &{body}    messages=${MESSAGES}    stream=${True}    max_tokens=${4}
    |     ${result} =    Stream Request    /v1/chat/completions    ${body}
    |     Stream Content Type Should Be    ${result}    text/event-stream
    |     Only The First Chunk Should Carry The Role    ${result}
    |     No Chunk Before The Last Should Finish    ${result}
    |     Finish Chunk Should Be    ${result}    length
    |     Stream Should End With Done Marker    ${result}
    |
    | Oversized Prompt Is Rejected Before Streaming
    |     ${result} =    Stream Request    /completion    ${BIG_BODY}    expected_status=400
    |
    | Two Streams Run Side By Side
    |     ${results} =    Stream Requests Concurrently    /completion    ${BODIES}    server=second
    |     FOR    ${result}    IN    @{results}
    |         Stream Status Should Be    ${result}    200
    |         Stream Should Have No Error    ${result}
    |     END

    = Deadlines and failures =

    The request keywords are ``async``: Robot timeouts cannot stop them, so each enforces its own
    ``timeout`` (seconds, covering connect, headers and the whole body). A timeout, a transport error
    or a stream cut in the middle of an event is recorded in ``error``. `Stream Request` fails on it
    and on a status other than ``expected_status``; `Stream Requests Concurrently` never fails on a
    single request: check each result with `Stream Status Should Be` and `Stream Should Have No Error`.

    Each request is logged as one collapsed block (a summary table, the request, and the received
    event lines with their arrival times), each concurrent batch as one summary table. Nothing is
    logged per chunk. Each request gets a number, shown as ``[exchange #12]`` in its block's summary
    line (or its row of the batch table); every failure of the keywords below ends with the number
    of the stream it judged, and a status mismatch quotes the server's error type and message.

    = Result =

    The request keywords return a ``StreamResult``; read its fields as ``${result.text}``. All times
    are seconds from the start of the request.
    | =Field=          | =Value=                                                                   |
    | url              | the requested URL                                                         |
    | method           | ``POST``                                                                  |
    | request_body     | the body sent as JSON                                                     |
    | status           | HTTP status, ``int`` (``None`` if no answer)                              |
    | headers          | ``dict`` with lower-case header names                                     |
    | content_type     | the ``Content-Type`` header, ``""`` if none                               |
    | events           | events in arrival order: ``t``, ``event``, ``data``, ``json`` (parsed data or ``None``) |
    | comments         | arrival times of ``:`` comment (keep-alive) lines                         |
    | done_count       | number of ``data: [DONE]`` events (kept in ``events``, ``json`` None)     |
    | ended_with_done  | ``True`` when the last event is ``[DONE]``                                |
    | text             | the generated text (see below)                                            |
    | t_headers        | response headers received                                                 |
    | t_first_event    | first event received, or ``None``                                         |
    | t_first_text     | first event carrying non-empty text (time to first token), or ``None``    |
    | t_end            | end of the exchange                                                       |
    | gaps             | times between successive text-bearing events                              |
    | body             | the whole body when the response is not ``text/event-stream``, else ``None`` |
    | json_body        | ``body`` parsed as JSON, or ``None``                                      |
    | error            | ``None``, or one line about a timeout, transport error or cut stream      |
    | truncated_tail   | bytes of an unterminated last event, ``b""`` if none                      |

    ``text`` concatenates OpenAI chat ``choices[0].delta.content``, OpenAI completion
    ``choices[0].text`` and native ``/completion`` ``content`` over the JSON events.

    = Chunk checks =

    The chunk keywords compute what to expect from the stream itself, so a test states only the
    contract. A failure names the event by its index in ``events``, which is its index in
    `Stream Json Events` too. On OpenAI streams, the *finish chunk* is the last chunk with a
    non-empty ``choices`` list; the *usage chunk* (with ``stream_options.include_usage``) follows it
    with ``choices: []``. On native ``/completion`` streams, the *final chunk* is the last one
    (``stop: true``); the ones before it are *partial chunks*.

    Field values given as ``name=value`` compare exactly, except that a string such as ``8`` or
    ``true`` also matches the number or boolean it spells, so ``${…}`` is not needed.
    """

    # ---- requests --------------------------------------------------------------------------------------

    @keyword("Stream Request")
    async def stream_request(self, path: str, body, server: str = "suite",
                             expected_status: int | Literal["any"] = 200, headers: dict | None = None,
                             timeout: float | None = None) -> StreamResult:
        """POSTs ``body`` as JSON to ``path`` of ``server`` and reads the streamed answer; returns the `Result`.

        Fails when the status is not ``expected_status`` (``any`` skips this check), showing the error
        body, and when the exchange timed out, broke or ended inside an event.
        """
        headers = {**server_headers(server), **(headers or {})}
        async with client_session() as session:
            result = await stream_one(session, join_url(_base_url(server), path), body, headers,
                                      deadlines.or_default(timeout, "stream"))
        logger.info(stream_html(result, number(result, headers)), html=True)
        _check(checks.request_should_have_succeeded, result, None if expected_status == "any" else expected_status)
        return result

    @keyword("Stream Requests Concurrently")
    async def stream_requests_concurrently(self, path: str, bodies: list, server: str = "suite",
                                           headers: dict | None = None, timeout: float | None = None) -> list:
        """Sends one streamed request per body, all at once, each on a connection of its own that closes with its
        answer (as separate users have); returns the results in the order of ``bodies``.

        Checks neither status nor errors: check each result with `Stream Status Should Be` and
        `Stream Should Have No Error`.
        """
        timeout = deadlines.or_default(timeout, "batch")
        url = join_url(_base_url(server), path)
        headers = {**server_headers(server), **(headers or {})}
        started = time.perf_counter()
        # A connection per request, closed with its answer, as separate users have. Connections kept alive until
        # the last answer hold llama-server's HTTP workers: its pool (cpp-httplib's ThreadPool::enqueue) adds
        # a worker only when it counts none idle, and counts woken ones as idle until they run, so on a busy
        # machine requests waited in its queue for a kept-alive connection's 5 s timeout (2 in 12 runs).
        async with client_session(force_close=True) as session:
            results = await asyncio.gather(*(stream_one(session, url, body, headers, timeout) for body in bodies))
        where = results[0].where if results else f"POST /{path.lstrip('/')}"
        exchanges = [number(r, headers) for r in results]
        logger.info(batch_html(where, results, time.perf_counter() - started, exchanges), html=True)
        return list(results)

    # ---- the exchange ----------------------------------------------------------------------------------

    @keyword("Stream Status Should Be")
    def stream_status_should_be(self, result: StreamResult, status: int) -> None:
        """Fails unless the HTTP status is ``status``; for results of `Stream Requests Concurrently`."""
        _check(checks.status_should_be, result, status)

    @keyword("Stream Content Type Should Be")
    def stream_content_type_should_be(self, result: StreamResult, media_type: str) -> None:
        """The media type of ``Content-Type`` must be exactly ``media_type`` (parameters such as charset aside).

        ``text/event-stream; charset=utf-8`` passes for ``text/event-stream``; ``text/event-streams`` does not.
        """
        _check(checks.content_type_should_be, result, media_type)

    @keyword("Stream Should Have No Error")
    def stream_should_have_no_error(self, result: StreamResult) -> None:
        """No recorded ``error``, no JSON error body and no JSON event with an ``error`` key."""
        _check(checks.no_error, result)

    @keyword("Stream Json Events")
    def stream_json_events(self, result: StreamResult) -> list:
        """The parsed JSON of every event except ``[DONE]``; fails if an event is not JSON."""
        return [DotDict(obj) if isinstance(obj, dict) else obj for obj in _check(checks.json_events, result)]

    @keyword("Stream Json Objects")
    def stream_json_objects(self, result: StreamResult) -> list:
        """The JSON objects among the events, in order. Unlike `Stream Json Events` it passes over any other
        event, such as the ``data: null`` event that opens a native stream of several prompts on this build
        (pinned by its own test), so that checks about indexes stay about indexes."""
        return _check(checks.json_objects, result)

    @keyword("Json Of Data Lines")
    def json_of_data_lines(self, text: str) -> list:
        """The JSON of every ``data: `` line of an event stream read whole (``${resp.text}`` of a RequestsLibrary
        response), in order; fails on a line that is not JSON. Other lines (``event:``, comments) are skipped."""
        return sse.json_of_data_lines(text, "data: ")

    @keyword("Stream Should End With Done Marker")
    def stream_should_end_with_done_marker(self, result: StreamResult) -> None:
        """Exactly one ``data: [DONE]``, and it is the last event (OpenAI-compatible routes)."""
        _check(checks.end_with_done_marker, result)

    @keyword("Stream Should Have No Done Marker")
    def stream_should_have_no_done_marker(self, result: StreamResult) -> None:
        """For routes that never send ``[DONE]`` (native ``/completion``, ``/v1/responses``, ``/v1/messages``)."""
        _check(checks.no_done_marker, result)

    @keyword("Streamed Text Should Be")
    def streamed_text_should_be(self, result: StreamResult, expected: str) -> None:
        """Exact compare of the generated text (see `Result`); the failure gives the first differing char."""
        _check(checks.text_should_be, result, expected)

    @keyword("Stream Should Be Valid Utf8")
    def stream_should_be_valid_utf8(self, result: StreamResult) -> None:
        """Every line of the stream, as received, is valid UTF-8 (no half of a multi-byte character)."""
        _check(checks.valid_utf8, result)

    @keyword("No Stream String Should Hold A Lone Surrogate")
    def no_stream_string_should_hold_a_lone_surrogate(self, result: StreamResult) -> None:
        """No JSON string in any event (keys included) holds a lone ``\\uD800``–``\\uDFFF`` escape."""
        _check(checks.no_lone_surrogates, result)

    # ---- OpenAI chunks ---------------------------------------------------------------------------------

    @keyword("Only The First Chunk Should Carry The Role")
    def only_the_first_chunk_should_carry_the_role(self, result: StreamResult, role: str = "assistant") -> None:
        """Chat streams: the first chunk's delta has ``role`` and no content (``null`` or absent);
        no later chunk has a role."""
        _check(checks.only_first_chunk_carries_role, result, role)

    @keyword("No Chunk Before The Last Should Finish")
    def no_chunk_before_the_last_should_finish(self, result: StreamResult) -> None:
        """``finish_reason`` is ``null`` on every chunk but the finish chunk, which has one.

        The usage chunk (``choices: []``) may follow the finish chunk.
        """
        _check(checks.no_chunk_before_last_finishes, result)

    @keyword("Finish Chunk Should Be")
    def finish_chunk_should_be(self, result: StreamResult, finish_reason: str) -> None:
        """The finish chunk has ``finish_reason`` (``stop``, ``length``…) and, in chat streams, delta ``{}``."""
        _check(checks.finish_chunk_should_be, result, finish_reason)

    @keyword("Every Chunk Should Share Id Model And Object")
    def every_chunk_should_share_id_model_and_object(self, result: StreamResult,
                                                     object: str = "chat.completion.chunk") -> None:
        """Every JSON chunk has the ``id`` and ``model`` of the first one, and ``object`` as given
        (``text_completion`` for ``/v1/completions``)."""
        _check(checks.every_chunk_shares_id_model_and_object, result, object)

    @keyword("Usage Chunk Should Report")
    def usage_chunk_should_report(self, result: StreamResult, **usage) -> None:
        """The last chunk is a usage chunk (``choices: []``) whose ``usage`` has the given fields.

        | Usage Chunk Should Report    ${result}    completion_tokens=4
        """
        _check(checks.usage_chunk_should_report, result, usage)

    @keyword("Stream Should Have No Usage Chunk")
    def stream_should_have_no_usage_chunk(self, result: StreamResult) -> None:
        """No chunk carries a ``usage`` object (OpenAI sends one only with ``stream_options.include_usage``).

        ``"usage": null``, which OpenAI puts on the other chunks when usage is requested, does not count.
        """
        _check(checks.no_usage_chunk, result)

    # ---- OpenAI chunks of one choice -------------------------------------------------------------------

    @keyword("Chunks Of Choice")
    def chunks_of_choice(self, result: StreamResult, index: int) -> list:
        """The choice objects with ``index`` of every chunk of a chat stream, in arrival order (streams with ``n``
        choices interleave them). Fails on a JSON event that has no ``choices`` list."""
        return _check(checks.chunks_of_choice, result, int(index))

    @keyword("Delta Field Of Each")
    def delta_field_of_each(self, choices: list, field: str) -> list:
        """The ``delta.<field>`` (``role``, ``content``) of every choice of `Chunks Of Choice`, in order, ``None``
        where the delta has no such field; fails on a choice without a ``delta`` object."""
        return checks.delta_field_of_each(choices, field)

    @keyword("Joined Delta Text")
    def joined_delta_text(self, choices: list, field: str = "content") -> str:
        """The ``delta.<field>`` (``content``, ``reasoning_content``) of every choice of `Chunks Of Choice`, joined:
        the text streamed in that field. A delta without it, or with ``null``, adds nothing."""
        return checks.joined_delta_text(choices, field)

    @keyword("Delta List Entries")
    def delta_list_entries(self, choices: list, field: str = "tool_calls") -> list:
        """The entries of the list ``delta.<field>`` (``tool_calls``) of every choice of `Chunks Of Choice`, in
        arrival order; a delta without it adds none."""
        return checks.delta_list_entries(choices, field)

    @keyword("Tool Calls Of Deltas")
    def tool_calls_of_deltas(self, deltas: list) -> list:
        """Adds up tool-call deltas (`Delta List Entries`) into whole calls, one per ``index``, and returns them as
        ``{"id", "name", "arguments"}`` dicts in index order: ``id`` and ``name`` come from the delta that opens
        the call, ``arguments`` joins the argument fragments of all its deltas."""
        return checks.tool_calls_of_deltas(deltas)

    # ---- native /completion chunks ---------------------------------------------------------------------

    @keyword("Every Partial Chunk Should Carry One Token")
    def every_partial_chunk_should_carry_one_token(self, result: StreamResult) -> None:
        """Native streams: every chunk before the final one has ``stop: false`` and exactly one ``tokens`` entry.

        Fails on a stream without partial chunks. Check the final chunk with `Final Chunk Should Report`.
        """
        _check(checks.every_partial_chunk_carries_one_token, result)

    @keyword("One Entry Of Each Token Chunk")
    def one_entry_of_each_token_chunk(self, per_chunk: list) -> list:
        """Takes the token entries (``completion_probabilities``, ``logprobs.content``) of every chunk of a
        stream, checks each chunk but the last carries exactly one and the last none, and returns them in order."""
        return checks.one_entry_per_token_chunk(per_chunk)

    @keyword("Final Chunk Should Report")
    def final_chunk_should_report(self, result: StreamResult, **fields) -> None:
        """Native streams: the last chunk has ``stop: true`` and the given top-level fields.

        | Final Chunk Should Report    ${result}    stop_type=limit    tokens_predicted=8
        """
        _check(checks.final_chunk_should_report, result, fields)


def _check(check, result, *args):
    """Runs ``check`` on the stream result; a failure names the result's exchange (``[exchange #12]``)."""
    r = _result(result)
    with naming(r):
        return check(r, *args)


def _result(value) -> StreamResult:
    if not isinstance(value, StreamResult):
        raise TypeError(f"expected a stream result (from 'Stream Request' or 'Stream Requests Concurrently'), "
                        f"got {type(value).__name__}")
    return value
