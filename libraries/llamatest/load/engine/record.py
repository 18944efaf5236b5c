"""The raw truth of a load run: one event log per request, and the run that holds them.

Every metric is derived from these records (``metrics.py``); nothing else is measured. Times are
seconds from the run's ``t0`` (a ``time.perf_counter()`` value kept in ``RunRecord.t0_perf``), so
records of one run, and of workers merged onto the driver's clock, share one time axis.
Records round-trip through plain dicts (``as_dict``/``from_dict``): that is the ``requests.jsonl``
line format. A Ray worker ships its ``RunRecord`` to the driver as it is (pickled).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# What an SSE event is, for timing (``LoadEvent.kind``): ping, role, progress, content, reasoning, tool_call,
# finish, usage, error, done, other. Only TOKEN_KINDS carry generated tokens.
TOKEN_KINDS = frozenset({"content", "reasoning", "tool_call"})

# Error classes (``RequestRecord.error``): connect_error, timeout_connect, timeout_ttft, timeout_stall,
# timeout_total, http_429, http_503, http_4xx, http_5xx, sse_error_event, protocol_error, truncated_stream,
# empty_output, bad_answer, dropped, drain_timeout. "bad_answer": a 200 of an embeddings or rerank route
# without one result per input. "dropped": due while max_in_flight requests were open, never sent.
# "drain_timeout": still open when the drain after the window ended, and cut by the engine (counted in
# RunRecord.drain_timed_out). Outcomes of a request that finished (``RequestRecord.outcome``): the values of
# classify.FINISH_OUTCOMES, or finish_other.


@dataclass
class LoadEvent:
    """One SSE event (or ``:`` comment, kind ``ping``) of one request, classified."""

    t: float  # arrival, seconds from the run's t0
    kind: str  # see the kinds above
    n_chars: int = 0  # characters of generated text (content, reasoning or tool-call arguments)
    n_tokens: int | None = None  # exact tokens in this chunk when the server says so (native ``tokens``)
    coalesced: bool = False  # parsed from the same socket read as the previous event
    finish_reason: str | None = None
    usage: dict | None = None  # OpenAI ``usage`` as sent
    timings: dict | None = None  # llama-server ``timings`` as sent

    @property
    def is_token(self) -> bool:
        return self.kind in TOKEN_KINDS and self.n_chars > 0


@dataclass
class RequestRecord:
    """Everything one request did, from its scheduled time to the close of its connection."""

    index: int  # position in the run's schedule (warmup requests included)
    t_scheduled: float  # when the profile meant to send it
    phase: str = "measure"  # "warmup" requests are reported apart and never in the statistics
    worker: int = 0
    route: str = ""
    request_id: str = ""  # sent as x-request-id
    prompt_hash: str = ""
    seed: int | None = None
    n_requested: int | None = None  # output tokens asked for (max_tokens / n_predict)
    n_prompt_expected: int | None = None  # prompt tokens the dataset built, when it knows
    n_inputs: int | None = None  # texts embedded or documents reranked (routes answered in one JSON body)
    session: int | None = None  # multi-turn workloads: the conversation this request is a turn of
    turn: int | None = None  # ... and which turn (0 first)
    t_dispatched: float | None = None  # None when the request was dropped and never sent
    t_headers: float | None = None
    t_done: float | None = None  # [DONE], or the route's final event (native stop:true)
    t_closed: float | None = None
    status: int | None = None
    error: str | None = None  # an error class (above), None when the request succeeded
    error_detail: str | None = None
    outcome: str | None = None  # an outcome (above) for a request that finished
    events: list[LoadEvent] = field(default_factory=list)
    invalid_utf8_lines: int = 0  # stream lines that were not valid UTF-8
    text: str | None = None  # the generated text, kept only when the target asks (Target.keep_text)

    @property
    def dropped(self) -> bool:
        return self.error == "dropped"

    @property
    def ok(self) -> bool:
        return self.error is None and self.t_closed is not None

    @property
    def token_events(self) -> list[LoadEvent]:
        return [e for e in self.events if e.is_token]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RequestRecord:
        data = {k: v for k, v in d.items() if k in _REQUEST_FIELDS}
        data["events"] = [LoadEvent(**e) for e in d.get("events", [])]
        return cls(**data)


@dataclass
class RunRecord:
    """One profile run (or one worker's share of it): the requests plus what watched the client and server."""

    profile: dict[str, Any]  # Profile.as_dict()
    target: dict[str, Any]  # base URL, route, request parameters (never an API key)
    t0_wall: float  # time.time() at t0: anchors the time series to the wall clock
    t0_perf: float  # time.perf_counter() at t0
    window: tuple[float, float] = (0.0, 0.0)  # measurement window (after warmup), seconds from t0
    requests: list[RequestRecord] = field(default_factory=list)
    loop_lag: list[tuple[float, float]] = field(default_factory=list)  # (t, overshoot s) of a 10 ms sleeper
    cpu: list[tuple[float, float]] = field(default_factory=list)  # (t, client process CPU %) samples
    # Server samples, about one a second: {"t": s, "metrics": {"llamacpp:requests_processing": 1.0, ...} or None,
    # "slots": [{"id", "is_processing", "id_task"}, ...] or None, "errors": [...] only when a scrape failed}.
    # The last sample is taken after the drain.
    telemetry: list[dict[str, Any]] = field(default_factory=list)
    in_flight_at_window_end: int = 0
    drain_timed_out: int = 0  # requests still open when drain_timeout ended them
    workers: list[dict[str, Any]] = field(default_factory=list)  # per worker: id, host, pid, clock offset ± bound
    meta: dict[str, Any] = field(default_factory=dict)  # dataset, server build, seeds: whatever the caller adds

    @property
    def measured(self) -> list[RequestRecord]:
        return [r for r in self.requests if r.phase == "measure"]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunRecord:
        data = {k: v for k, v in d.items() if k in _RUN_FIELDS}
        data["window"] = tuple(d.get("window", (0.0, 0.0)))
        data["requests"] = [RequestRecord.from_dict(r) for r in d.get("requests", [])]
        data["loop_lag"] = [tuple(x) for x in d.get("loop_lag", [])]
        data["cpu"] = [tuple(x) for x in d.get("cpu", [])]
        return cls(**data)


# The field names from_dict keeps (anything else in a dict is ignored).
_REQUEST_FIELDS = frozenset(f.name for f in fields(RequestRecord))
_RUN_FIELDS = frozenset(f.name for f in fields(RunRecord))
