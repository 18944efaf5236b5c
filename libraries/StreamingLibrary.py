"""Async streaming (SSE) keywords for llama-server, built on aiohttp."""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
import time

import aiohttp
from robot.api import logger
from robot.api.deco import keyword, library
from robot.utils import DotDict

from llamatest.report import html as _htmllog
from llamatest.streaming.sse import SSEComment, SSEParser, is_done
from llamatest.textutil import join_url, parse_json, short_repr

_REPR_LIMIT = 200
_short = functools.partial(short_repr, limit=_REPR_LIMIT)  # streams get longer excerpts


@library(scope="GLOBAL", version="0.1")
class StreamingLibrary:
    """Streams llama-server responses (Server-Sent Events) and records their timing.

    %TOC%

    = Usage =

    | ***** Settings *****
    | Library    StreamingLibrary
    |
    | ***** Test Cases *****
    | Chat Stream Ends With Done Marker
    |     VAR    &{body}    messages=${MESSAGES}    stream=${True}    max_tokens=${8}
    |     ${result} =    Stream Request    ${BASE_URL}    /v1/chat/completions    ${body}    timeout=30
    |     Stream Status Should Be    ${result}    200
    |     Stream Content Type Should Be    ${result}    text/event-stream
    |     Stream Should End With Done Marker    ${result}
    |     Stream Should Have No Error    ${result}
    |
    | Two Streams Run Side By Side
    |     ${results} =    Stream Requests Concurrently    ${BASE_URL}    /completion    ${BODIES}    timeout=60
    |     Stream Should Have No Error    ${results}[0]
    |     Stream Should Have No Error    ${results}[1]

    The keywords are ``async``: Robot timeouts cannot stop them, so each keyword enforces its own
    ``timeout`` (seconds, covering connect, headers and the whole body). A timeout, a transport
    error or a stream cut in the middle of an event is recorded in ``error``; `Stream Request`
    fails on it, `Stream Requests Concurrently` leaves the check to the caller.

    Each request is logged as one collapsed block: a summary table and the received event lines
    with their arrival times. Nothing is logged per chunk.

    = Result =

    A ``DotDict``; all times are seconds from the start of the request:
    | =Key=           | =Value=                                                                  |
    | status          | HTTP status, ``int`` (``None`` if no answer)                             |
    | headers         | ``dict`` with lower-case header names                                    |
    | content_type    | the ``Content-Type`` header, ``""`` if none                              |
    | events          | list of ``{t, event, data, json}``; ``json`` is the parsed data or ``None`` |
    | comments        | list of arrival times of ``:`` comment (keep-alive) lines                |
    | done_count      | number of ``data: [DONE]`` events (kept in ``events``, ``json`` None)    |
    | ended_with_done | ``True`` when the last event is ``[DONE]``                               |
    | text            | generated text (see below)                                               |
    | t_headers       | response headers received                                                |
    | t_first_event   | first event received, or ``None``                                        |
    | t_first_text    | first event carrying non-empty text (TTFT), or ``None``                  |
    | t_end           | end of the exchange                                                      |
    | gaps            | times between successive text-bearing events                            |
    | body            | whole body when the response is not ``text/event-stream``, else ``None`` |
    | json_body       | ``body`` parsed as JSON, or ``None``                                     |
    | error           | ``None``, or one line about a timeout, transport error or cut stream     |
    | truncated_tail  | bytes of an unterminated last event, ``b""`` if none                     |

    ``text`` concatenates OAI chat ``choices[0].delta.content``, OAI completion ``choices[0].text``
    and native ``/completion`` ``content`` over the JSON events.
    """

    @keyword("Stream Request")
    async def stream_request(self, base: str, path: str, body, headers: dict | None = None,
                             timeout: float = 30) -> DotDict:
        """POSTs ``body`` as JSON and reads the streamed answer; returns the `Result`.

        Fails only when the result has an ``error``; status and content are left to assertions.
        """
        async with _client_session() as session:
            result = await stream_one(session, join_url(base, path), body, headers, timeout)
        logger.info(_result_html(f"POST /{path.lstrip('/')}", result, body), html=True)
        if result.error:
            raise AssertionError(result.error)
        return result

    @keyword("Stream Requests Concurrently")
    async def stream_requests_concurrently(self, base: str, path: str, bodies: list, headers: dict | None = None,
                                           timeout: float = 60) -> list:
        """Sends one streamed request per body, all at once; returns the results in the order of ``bodies``.

        Does not fail on individual errors: check each result.
        """
        url = join_url(base, path)
        started = time.perf_counter()
        async with _client_session() as session:
            results = await asyncio.gather(*(stream_one(session, url, b, headers, timeout) for b in bodies))
        wall = time.perf_counter() - started
        rows = [[i, r.status, len(r.events), r.done_count, _secs(r.t_first_text), _secs(r.t_end), len(r.text),
                 r.error or ""] for i, r in enumerate(results)]
        table = _htmllog.table(["#", "status", "events", "[DONE]", "TTFT", "total", "text chars", "error"], rows)
        errors = sum(1 for r in results if r.error)
        summary = f"POST /{path.lstrip('/')} × {len(bodies)} concurrently ({errors} errors, {wall:.3f} s)"
        logger.info(_htmllog.details(summary, table), html=True)
        return list(results)

    @keyword("Stream Json Events")
    def stream_json_events(self, result: dict) -> list:
        """The parsed JSON of every event except ``[DONE]``; fails if an event is not JSON."""
        objects = []
        for index, event in enumerate(result["events"]):
            if event["data"] == "[DONE]":
                continue
            if event["json"] is None:
                raise AssertionError(f"event {index} is not JSON: {_short(event['data'])}")
            objects.append(event["json"])
        return objects

    @keyword("Stream Status Should Be")
    def stream_status_should_be(self, result: dict, status: int) -> None:
        """Fails unless the HTTP status is ``status``; shows the error or body otherwise."""
        if result["status"] != status:
            if result["error"]:
                detail = result["error"]
            elif result["body"] is not None:
                detail = f"body: {_short(result['body'])}"
            else:
                detail = f"{len(result['events'])} events"
            raise AssertionError(f"stream status was {result['status']}, expected {status}; {detail}")

    @keyword("Stream Content Type Should Be")
    def stream_content_type_should_be(self, result: dict, prefix: str) -> None:
        """Checks that ``Content-Type`` starts with ``prefix``, e.g. ``text/event-stream``."""
        if not result["content_type"].startswith(prefix):
            raise AssertionError(f"content type was {result['content_type']!r}, expected it to start with {prefix!r}")

    @keyword("Stream Should End With Done Marker")
    def stream_should_end_with_done_marker(self, result: dict) -> None:
        """Exactly one ``data: [DONE]``, and it is the last event."""
        events = result["events"]
        if result["done_count"] == 0:
            last = _short(events[-1]["data"]) if events else "none"
            raise AssertionError(f"stream has no [DONE] marker ({len(events)} events; last: {last})")
        if result["done_count"] > 1:
            raise AssertionError(f"stream has {result['done_count']} [DONE] markers, expected 1")
        if not result["ended_with_done"]:
            raise AssertionError(f"[DONE] is not the last event; the last is {_short(events[-1]['data'])}")

    @keyword("Stream Should Have No Done Marker")
    def stream_should_have_no_done_marker(self, result: dict) -> None:
        """For routes that never send ``[DONE]`` (native ``/completion``, ``/v1/responses``, ``/v1/messages``)."""
        if result["done_count"]:
            raise AssertionError(f"stream has {result['done_count']} [DONE] marker(s), expected none")

    @keyword("Stream Should Have No Error")
    def stream_should_have_no_error(self, result: dict) -> None:
        """No recorded ``error``, no JSON error body and no JSON event with an ``error`` key."""
        if result["error"]:
            raise AssertionError(result["error"])
        if isinstance(result["json_body"], dict) and "error" in result["json_body"]:
            raise AssertionError(f"response is an error (status {result['status']}): {_short(result['body'])}")
        for index, event in enumerate(result["events"]):
            if isinstance(event["json"], dict) and "error" in event["json"]:
                raise AssertionError(f"event {index} is an error: {_short(event['data'])}")

    @keyword("Streamed Text Should Be")
    def streamed_text_should_be(self, result: dict, expected: str) -> None:
        """Exact compare of the concatenated generated text."""
        text = result["text"]
        if text != expected:
            at = len(os.path.commonprefix([text, expected]))
            raise AssertionError(f"streamed text was {_short(text)} ({len(text)} chars), expected {_short(expected)} "
                                 f"({len(expected)} chars); first difference at char {at}")


async def stream_one(session: aiohttp.ClientSession, url: str, body, headers: dict | None,
                     deadline_s: float) -> DotDict:
    """POSTs ``body`` as JSON and records the streamed answer. Never raises for timeouts or
    transport errors: they go to ``error``, so concurrent requests keep their own results."""
    start = time.perf_counter()

    def now() -> float:
        return time.perf_counter() - start

    r = DotDict(status=None, headers={}, content_type="", events=[], comments=[], done_count=0,
                ended_with_done=False, text="", t_headers=None, t_first_event=None, t_first_text=None,
                t_end=None, gaps=[], body=None, json_body=None, error=None, truncated_tail=b"")
    parser = None
    try:
        async with asyncio.timeout(deadline_s):
            async with session.post(url, json=body, headers=headers) as resp:
                r.t_headers = now()
                r.status = resp.status
                r.headers = {k.lower(): v for k, v in resp.headers.items()}
                r.content_type = r.headers.get("content-type", "")
                if r.content_type.startswith("text/event-stream"):
                    parser = SSEParser()
                    async for chunk in resp.content.iter_any():
                        for item in parser.feed(chunk, now()):
                            _record(r, item)
                else:
                    r.body = (await resp.read()).decode("utf-8", errors="replace")
                    r.json_body = parse_json(r.body)
    except TimeoutError:
        r.error = f"no complete answer within {float(deadline_s)} s ({len(r.events)} events received)"
    except aiohttp.ClientPayloadError:
        r.error = f"connection closed before the response was complete ({len(r.events)} events received)"
    except (aiohttp.ClientError, OSError) as exc:
        r.error = f"transport error: {type(exc).__name__}: {exc}".splitlines()[0]
    except Exception as exc:  # one bad request must not sink a concurrent batch
        r.error = f"unexpected error: {type(exc).__name__}: {exc}".splitlines()[0]
    r.t_end = now()
    if parser is not None:
        parser.close(r.t_end)
        r.truncated_tail = parser.trailing
        if parser.trailing and not r.error:
            r.error = f"stream ended inside an event ({len(parser.trailing)} bytes unterminated)"
    _summarise(r)
    return DotDict(r)  # converts the dicts set after creation (json_body, headers) too


def _record(r: DotDict, item) -> None:
    if isinstance(item, SSEComment):
        r.comments.append(item.t)
    else:
        obj = None if is_done(item) else parse_json(item.data)
        r.events.append(DotDict(t=item.t, event=item.event, data=item.data, json=obj))


def _summarise(r: DotDict) -> None:
    """Fill in the fields derived from the events."""
    r.done_count = sum(1 for e in r.events if e.data == "[DONE]")
    r.ended_with_done = bool(r.events) and r.events[-1].data == "[DONE]"
    r.t_first_event = r.events[0].t if r.events else None
    texts = [(e.t, _text_of(e.json)) for e in r.events]
    texts = [(t, text) for t, text in texts if text]
    r.text = "".join(text for _, text in texts)
    r.t_first_text = texts[0][0] if texts else None
    r.gaps = [b[0] - a[0] for a, b in itertools.pairwise(texts)]


def _text_of(obj) -> str | None:
    """Generated text of one chunk: OAI chat delta, OAI completion text, or native `content`."""
    if not isinstance(obj, dict):
        return None
    choices = obj.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        choice = choices[0]
        value = choice["delta"].get("content") if isinstance(choice.get("delta"), dict) else choice.get("text")
    else:
        value = obj.get("content")
    return value if isinstance(value, str) else None


def _client_session() -> aiohttp.ClientSession:
    # No connection cap (limit=0) and no aiohttp total timeout: the keyword's deadline governs.
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=None))


def _secs(t) -> str:
    return "–" if t is None else f"{t:.3f} s"


def _result_html(title: str, r: DotDict, request_body) -> str:
    rows = [["status", r.status], ["content type", r.content_type or "–"], ["events", len(r.events)],
            ["comments", len(r.comments)], ["[DONE] markers", r.done_count], ["TTFT", _secs(r.t_first_text)],
            ["total time", _secs(r.t_end)], ["text length", f"{len(r.text):,} chars"]]
    if r.error:
        rows.append(["error", r.error])
    parts = [_htmllog.table(["", ""], rows), _htmllog.labelled("request", _htmllog.json_block(request_body))]
    if r.body is not None:
        parts.append(_htmllog.labelled("response body", _htmllog.json_block(r.body)))
    if r.events or r.comments:
        lines = sorted([(e.t, f"{e.t:8.3f}  " + _event_lines(e)) for e in r.events]
                       + [(t, f"{t:8.3f}  :") for t in r.comments], key=lambda pair: pair[0])
        parts.append(_htmllog.details(f"raw events ({len(r.events)})", _htmllog.pre("\n".join(x for _, x in lines))))
    if r.truncated_tail:
        parts.append(_htmllog.labelled("unterminated tail", _htmllog.pre(r.truncated_tail.decode("utf-8", "replace"))))
    status = r.status if r.status is not None else "no answer"
    summary = f"{title} → {status} ({len(r.events)} events, {_secs(r.t_end)})"
    return _htmllog.details(summary, "".join(parts))


def _event_lines(event) -> str:
    prefix = "" if event.event == "message" else f"event: {event.event} | "
    return prefix + " | ".join(f"data: {line}" for line in event.data.split("\n"))
