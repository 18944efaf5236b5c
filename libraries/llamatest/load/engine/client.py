"""One request of a load run, timed at the socket: where it goes, the body sent, the answer read and classified.

Pure asyncio + aiohttp (`pacing` runs the requests on one event loop; `watchers` run beside them):
- Each socket read is timed in the connection protocol's ``data_received``, as soon as the event loop sees
  it (not when the reading coroutine gets its turn), and split into SSE events (``SSEParser``); events
  parsed from one read share its time and are marked ``coalesced``. Only the classification is kept,
  never the raw text, so a long run stays small.
- A new connection per request unless ``Target.keep_alive`` (llama-server closes streamed connections).
- Per-phase timeouts (connect, first token, stall between events, total) instead of one total timeout,
  each with its own error class; every wait is bounded, so a run always ends.
- The body of request ``index`` comes from the run's `RequestBodies` (``llamatest.load.workloads.bodies``);
  the engine adds ``stream`` (and ``stream_options.include_usage`` on OpenAI routes) and an ``x-request-id``.
- Routes answered in one JSON body (embeddings, rerank: ``routes.JSON_ROUTES``) are sent without
  ``stream``; their answer must hold one result per input, and only its arrival is timed.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp.client_proto import ResponseHandler
from aiohttp.streams import EMPTY_PAYLOAD

from llamatest.load.engine.classify import FINISH_OUTCOMES, classify_data, generated_text
from llamatest.load.engine.profiles import Profile
from llamatest.load.engine.record import LoadEvent, RequestRecord
from llamatest.load.workloads import routes
from llamatest.load.workloads.bodies import RequestBodies, prompt_hash
from llamatest.streaming.sse import SSEComment, SSEParser
from llamatest.textutil import join_url, parse_json

READ_BUFSIZE = 1 << 20  # aiohttp's 64 KiB default throttles long streams
ERROR_BODY_CHARS = 300


@dataclass(frozen=True)
class Target:
    """Where to send: the server's base URL, the route, and the per-phase timeouts.

    ``headers`` (e.g. ``Authorization``) are sent with every request and never recorded.
    ``keep_alive`` reuses connections between requests. It is off by default: llama-server closes the
    connection after a streamed answer while announcing keep-alive, so a request sent at once on the
    reused connection fails to write; a new connection per request (its connect time is part of TTFB)
    is also what independent users do.
    """

    base_url: str
    route: str = "/v1/chat/completions"
    headers: dict[str, str] = field(default_factory=dict)
    timeout_connect_s: float = 10.0
    timeout_ttft_s: float = 60.0  # dispatch -> first token (headers included)
    timeout_stall_s: float = 30.0  # after the first token: longest silence (pings do not count as progress)
    timeout_total_s: float = 300.0
    keep_alive: bool = False
    keep_text: bool = False  # keep each answer's text (``RequestRecord.text``): the answer check compares them

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://; got {self.base_url!r}")
        if not self.route.startswith("/"):
            raise ValueError(f"route must start with '/'; got {self.route!r}")
        for name in ("timeout_connect_s", "timeout_ttft_s", "timeout_stall_s", "timeout_total_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"{name} must be a number of seconds > 0; got {value!r}")

    @property
    def url(self) -> str:
        return join_url(self.base_url, self.route)

    @property
    def openai(self) -> bool:
        return self.route.startswith("/v1/")

    def as_dict(self) -> dict[str, Any]:
        """What the run record keeps: no header values (they may hold an API key)."""
        return {"base_url": self.base_url, "route": self.route, "header_names": sorted(self.headers),
                "timeout_connect_s": self.timeout_connect_s, "timeout_ttft_s": self.timeout_ttft_s,
                "timeout_stall_s": self.timeout_stall_s, "timeout_total_s": self.timeout_total_s,
                "keep_alive": self.keep_alive, "keep_text": self.keep_text}


def prepare_body(body: dict[str, Any], openai: bool, streamed: bool = True) -> dict[str, Any]:
    """The request body as sent: ``stream: true``; OpenAI routes also ask for the usage chunk. A route
    answered in one JSON body (``streamed=False``) gets the body as it is."""
    out = dict(body)
    if not streamed:
        return out
    out["stream"] = True
    if openai:
        options = dict(out.get("stream_options") or {})
        options.setdefault("include_usage", True)
        out["stream_options"] = options
    return out


def set_error(rec: RequestRecord, cls: str, detail: str, *, overwrite: bool = True) -> None:
    """Records why ``rec`` failed, its detail cut to ``ERROR_BODY_CHARS``. ``overwrite=False`` keeps an
    error recorded earlier (the first one wins)."""
    if overwrite or rec.error is None:
        rec.error, rec.error_detail = cls, detail[:ERROR_BODY_CHARS]


def _n_requested(body: dict[str, Any]) -> int | None:
    for key in ("max_completion_tokens", "max_tokens", "max_output_tokens", "n_predict"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


class _Stream:
    """One response body turned into ``LoadEvent``s as its bytes arrive: ``feed(bytes, t)`` per socket read."""

    __slots__ = ("rec", "parser", "first_token", "final", "finish", "on_progress", "t_eof", "t0", "texts")

    def __init__(self, rec: RequestRecord, t0: float, on_progress: Callable[[], None], keep_text: bool = False) -> None:
        self.rec = rec
        self.texts: list[str] | None = [] if keep_text else None
        self.t0 = t0
        self.parser = SSEParser(keep_raw=False)
        self.first_token = False
        self.final = False
        self.finish: str | None = None
        self.on_progress = on_progress  # called after events that show the answer is moving
        self.t_eof: float | None = None

    def feed(self, chunk: bytes, t: float) -> None:
        """The bytes of one socket read, arrived at ``t`` (seconds from t0). Never raises."""
        try:
            self._feed(chunk, t)
        except Exception as exc:  # e.g. RecursionError from absurdly nested JSON
            self._fail(f"client failed to read an event: {exc!r}")

    def _feed(self, chunk: bytes, t: float) -> None:
        rec = self.rec
        items = self.parser.feed(chunk, t)
        if not items:
            return
        events = rec.events
        coalesced = False
        progressed = False
        for item in items:
            if isinstance(item, SSEComment):
                events.append(LoadEvent(t, "ping", coalesced=coalesced))
                coalesced = True
                continue
            ev, is_final, not_json = classify_data(item.data, t, coalesced)
            coalesced = True
            events.append(ev)
            progressed = True
            if ev.is_token:
                self.first_token = True
                if self.texts is not None:
                    self.texts.append(generated_text(item.data))
            elif ev.kind == "error":
                set_error(rec, "sse_error_event", item.data, overwrite=False)
            elif not_json:
                self._fail(f"event data is not a JSON object: {item.data[:200]!r}")
            if ev.finish_reason:
                self.finish = ev.finish_reason
            if is_final and not self.final:
                self.final = True
                rec.t_done = t
        if progressed and (self.first_token or self.final):
            self.on_progress()

    def _fail(self, detail: str) -> None:
        set_error(self.rec, "protocol_error", detail, overwrite=False)


class _StampedHandler(ResponseHandler):
    """aiohttp's connection protocol, taking each socket read as soon as the event loop sees it.

    A coroutine reading the body gets its turn only after every other callback that became ready in the
    same loop iteration (with 1000 streams written at once, tens of milliseconds later), and every wake-up
    costs a task step. So reads are handled here, in ``data_received``, stamped on arrival:
    - before the engine claims a response (its headers are being read), ``rx_sink[payload]`` collects
      ``(t, total_bytes, eof)`` per read, the first being the read that completed the headers;
    - once claimed (``rx_sink[payload]`` is a ``_Stream``), each read's bytes are taken from the payload
      and parsed here, and the engine only waits for the end of the body.
    """

    def __init__(self, *args: Any, rx_sink: dict, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rx_sink = rx_sink
        self._current = None  # body of the response being received; kept when aiohttp lets go of it

    def feed_data(self, data: Any, size: int = 0) -> None:
        # aiohttp hands each parsed response (message, payload) to its reader through here
        self._current = data[1]
        super().feed_data(data, size)

    def data_received(self, data: bytes) -> None:
        t = time.perf_counter()
        super().data_received(data)
        payload = self._current
        if payload is None or payload is EMPTY_PAYLOAD or not data:
            return
        entry = self._rx_sink.get(payload)
        if entry.__class__ is _Stream:
            try:
                if payload.exception() is None:
                    chunk = payload.read_nowait(-1)
                    if chunk:
                        entry.feed(chunk, t - entry.t0)
            except Exception as exc:  # never break aiohttp's connection handling; the request records it
                entry._fail(f"client failed on a read: {exc!r}")
            if payload.is_eof() and entry.t_eof is None:
                entry.t_eof = t - entry.t0
        elif entry is None:
            self._rx_sink[payload] = [(t, payload.total_bytes, payload.is_eof())]
        else:
            entry.append((t, payload.total_bytes, payload.is_eof()))


def stamp_reads(connector: aiohttp.TCPConnector, sink: dict) -> bool:
    """Makes ``connector`` create ``_StampedHandler`` protocols; False (reads timed when the reader wakes)
    when this aiohttp builds its protocols some other way."""
    factory = getattr(connector, "_factory", None)
    if not (isinstance(factory, functools.partial) and factory.func is ResponseHandler):
        return False
    connector._factory = functools.partial(_StampedHandler, *factory.args, rx_sink=sink, **factory.keywords)
    return True


class RunState:
    """State of one run (one worker's share)."""

    def __init__(self, target: Target, profile: Profile, body_for: RequestBodies, worker: int,
                 t0_perf: float) -> None:
        self.target = target
        self.profile = profile
        self.body_for = body_for
        self.worker = worker
        self.t0 = t0_perf
        self.run_id = uuid.uuid4().hex[:8]
        # index -> the hash of body_for(index)'s prompt, when the body maker knows it (datasets.BodySpec)
        self.prompt_hash_of: Callable[[int], str] | None = getattr(body_for, "prompt_hash", None)
        self.route_of: Callable[[int], str] | None = getattr(body_for, "route_of", None)
        # multi-turn workloads: session -> number of turns, and (session, turn) -> body
        self.turns: Callable[[int], int] | None = getattr(body_for, "turns", None)
        self.turn_body: Callable[[int, int], dict] | None = getattr(body_for, "turn_body", None)
        self.sessions_started = 0
        self.records: list[RequestRecord] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self.url = target.url
        self.headers = {"Content-Type": "application/json", **target.headers}
        self.session: aiohttp.ClientSession | None = None
        self.rx: dict = {}  # response payload -> [(t, total_bytes, eof)] or its _Stream (see _StampedHandler)

    def now(self) -> float:
        return time.perf_counter() - self.t0

    def new_record(self, t_scheduled: float, phase: str, session: int | None = None,
                   turn: int | None = None) -> RequestRecord:
        """The next request of the run: its index is its position in the schedule (warmup included)."""
        index = len(self.records)
        route = self.route_of(index) if self.route_of is not None else self.target.route
        rec = RequestRecord(index=index, t_scheduled=t_scheduled, phase=phase, worker=self.worker,
                            route=route, request_id=f"{self.run_id}-{self.worker}-{index}",
                            session=session, turn=turn)
        self.records.append(rec)
        return rec

    # ----- one request -----

    async def send(self, rec: RequestRecord) -> None:
        """Sends one request and records its whole life. Never raises (except cancellation, after
        recording why)."""
        self.in_flight += 1
        if self.in_flight > self.peak_in_flight:
            self.peak_in_flight = self.in_flight
        try:
            await self._send(rec)
        finally:
            self.in_flight -= 1

    def _body(self, rec: RequestRecord) -> dict[str, Any]:
        """The body of ``rec`` as sent, and what the record keeps of it."""
        if rec.session is not None:
            raw = self.turn_body(rec.session, rec.turn or 0)
        else:
            raw = self.body_for(rec.index)
        route = rec.route
        body = prepare_body(raw, route in (routes.CHAT, routes.OPENAI_COMPLETIONS), routes.streamed(route))
        hash_of = self.prompt_hash_of if rec.session is None else None
        rec.prompt_hash = hash_of(rec.index) if hash_of is not None else prompt_hash(body)
        rec.n_requested = _n_requested(body)
        rec.n_inputs = None if routes.streamed(route) else routes.n_inputs(body)
        expected = getattr(self.body_for, "prompt_tokens_of", None)
        if expected is not None and rec.session is None:
            rec.n_prompt_expected = expected(rec.index)
        return body

    async def _send(self, rec: RequestRecord) -> None:
        data = self._encoded(rec)
        if data is None:
            return
        headers = {**self.headers, "x-request-id": rec.request_id}
        loop = asyncio.get_running_loop()
        rec.t_dispatched = time.perf_counter() - self.t0
        start = loop.time()
        phases = _Phases(start + self.target.timeout_total_s)
        exchange = _Exchange()
        try:
            async with asyncio.timeout_at(phases.until(start + self.target.timeout_ttft_s, "timeout_ttft")) as cm:
                await self._exchange(rec, data, headers, cm, phases, exchange)
        except asyncio.CancelledError:
            set_error(rec, "drain_timeout", "still open when the drain timeout ended the run", overwrite=False)
            raise
        except Exception as exc:  # one odd request must not end the run unrecorded
            _record_failure(rec, exc, phases.phase, loop.time() - start, time.perf_counter() - self.t0)
            return
        finally:
            if exchange.payload is not None:
                self.rx.pop(exchange.payload, None)
            if exchange.stream is not None:
                rec.invalid_utf8_lines = exchange.stream.parser.invalid_utf8_lines
                if exchange.stream.texts is not None:
                    rec.text = "".join(exchange.stream.texts)
        if rec.error is None and exchange.stream is not None:
            _judge_stream(rec, exchange.stream)

    def _encoded(self, rec: RequestRecord) -> bytes | None:
        """The body of ``rec`` as JSON bytes (its seed recorded); None, with the error set, when it cannot be made."""
        try:
            body = self._body(rec)
            seed = body.get("seed")
            rec.seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
            return json.dumps(body).encode()
        except Exception as exc:  # a broken body maker must not sink the run
            set_error(rec, "protocol_error", f"body_for({rec.index}) failed: {exc!r}")
            return None

    async def _exchange(self, rec: RequestRecord, data: bytes, headers: dict, cm, phases: _Phases,
                        exchange: _Exchange) -> None:
        """One request and its answer, read under ``cm`` (the phase deadlines); errors go to ``rec``."""
        target, t0, perf = self.target, self.t0, time.perf_counter
        url = self.url if rec.route == target.route else join_url(target.base_url, rec.route)
        async with self.session.post(url, data=data, headers=headers) as resp:
            rec.t_headers = perf() - t0
            exchange.payload = payload = resp.content
            rx = self.rx.get(payload)  # None when reads are not stamped
            if rx:
                rec.t_headers = rx[0][0] - t0
            rec.status = resp.status
            if resp.status != 200:
                text = await resp.content.read(4096)
                set_error(rec, _http_error(resp.status), text.decode("utf-8", "replace"))
                rec.t_closed = perf() - t0
                return
            if not routes.streamed(rec.route):
                await _read_json_answer(rec, resp, t0)
                return
            if resp.content_type != "text/event-stream":
                text = await resp.content.read(4096)
                set_error(rec, "protocol_error", f"expected text/event-stream, got {resp.content_type}: "
                                                  + text.decode("utf-8", "replace"))
                rec.t_closed = perf() - t0
                return
            loop, stall = asyncio.get_running_loop(), target.timeout_stall_s

            def moving() -> None:
                if not cm.expired():  # (a read may still come in while a timeout unwinds)
                    cm.reschedule(phases.until(loop.time() + stall, "timeout_stall"))

            exchange.stream = stream = _Stream(rec, t0, moving, target.keep_text)
            if rx is not None:
                await self._read_stamped(rec, stream, payload, rx)
            else:  # reads timed when this coroutine wakes
                while chunk := await payload.readany():
                    stream.feed(chunk, perf() - t0)
                rec.t_closed = perf() - t0

    async def _read_stamped(self, rec: RequestRecord, stream: _Stream, payload, rx: list) -> None:
        """Stamped reads: take what came so far at its read times, then let the protocol feed the stream."""
        t0, perf = self.t0, time.perf_counter
        buffered = payload.read_nowait(-1) if payload.exception() is None else b""
        pos = 0
        for t_read, total, eof in rx:
            if total > pos:
                stream.feed(buffered[pos:total], t_read - t0)
                pos = total
            if eof and stream.t_eof is None:
                stream.t_eof = t_read - t0
        if pos < len(buffered):  # cannot happen: every read is stamped; be safe
            stream.feed(buffered[pos:], perf() - t0)
        self.rx[payload] = stream
        if not payload.is_eof():
            await payload.wait_eof()
        rec.t_closed = stream.t_eof if stream.t_eof is not None else perf() - t0


class _Phases:
    """Which deadline a request is under: its phase's own, or the total when that comes first."""

    def __init__(self, total_deadline: float):
        self.total_deadline = total_deadline
        self.phase = "timeout_ttft"

    def until(self, phase_deadline: float, phase: str) -> float:
        if phase_deadline < self.total_deadline:
            self.phase = phase
            return phase_deadline
        self.phase = "timeout_total"
        return self.total_deadline


@dataclass
class _Exchange:
    """What one request's reading left behind, for the cleanup after it."""

    payload: Any = None
    stream: _Stream | None = None


def _record_failure(rec: RequestRecord, exc: Exception, phase: str, elapsed_s: float, now: float) -> None:
    """The error class of an exception that ended a request; a timeout overwrites an error the stream recorded."""
    if isinstance(exc, TimeoutError):
        # aiohttp's own ServerTimeoutError: only sock_connect is set
        cls = "timeout_connect" if isinstance(exc, aiohttp.ServerTimeoutError) else phase
        set_error(rec, cls, f"{cls} after {elapsed_s:.3f} s ({len(rec.events)} events)")
    elif isinstance(exc, aiohttp.ClientConnectorError):
        set_error(rec, "connect_error", str(exc))
    elif isinstance(exc, (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError, aiohttp.ClientOSError,
                          ConnectionError)):
        set_error(rec, "connect_error" if rec.t_headers is None else "truncated_stream",
                   f"{type(exc).__name__}: {exc}")
        rec.t_closed = now
    elif isinstance(exc, aiohttp.ClientError):
        set_error(rec, "protocol_error", f"{type(exc).__name__}: {exc}")
    else:
        set_error(rec, "protocol_error", f"unexpected client error {type(exc).__name__}: {exc}")


def _judge_stream(rec: RequestRecord, stream: _Stream) -> None:
    """The outcome of a stream that ended without a transport error."""
    if not stream.final and stream.finish is None:
        set_error(rec, "truncated_stream", "the stream ended without a finish reason or a final event")
    elif not stream.first_token:
        set_error(rec, "empty_output", "no token-bearing event")
    else:
        rec.outcome = FINISH_OUTCOMES.get(stream.finish or "", "finish_other")


async def _read_json_answer(rec: RequestRecord, resp: aiohttp.ClientResponse, t0: float) -> None:
    """The whole answer of a route that does not stream: timed on arrival, kept as one ``response`` event
    (its usage only), and checked to hold one result per input (else ``bad_answer``)."""
    text = await resp.read()
    rec.t_done = rec.t_closed = time.perf_counter() - t0
    answer = parse_json(text.decode("utf-8", "replace"))
    if resp.content_type != "application/json" or answer is None:
        set_error(rec, "protocol_error", f"expected a JSON answer, got {resp.content_type}: "
                   + text[:200].decode("utf-8", "replace"))
        return
    problem = routes.json_answer_problem(rec.route, answer, rec.n_inputs)
    if problem is not None:
        set_error(rec, "bad_answer", problem)
        return
    usage = answer.get("usage") if isinstance(answer, dict) else None
    rec.events.append(LoadEvent(rec.t_done, "response", usage=routes.normalized_usage(usage)))
    rec.outcome = "answered"


def _http_error(status: int) -> str:
    if status == 429:
        return "http_429"
    if status == 503:
        return "http_503"
    if 400 <= status < 500:
        return "http_4xx"
    if status >= 500:
        return "http_5xx"
    return "protocol_error"
