"""Sends mutated requests to a loopback llama-server, one at a time, each with a deadline, and sums up.

The run stops at ``count`` requests, at ``max_seconds``, or as soon as the server refuses a connection
(it is gone: every further request would be refused too). Answers are classified by status; a 5xx
whose error message contains one of the ``documented_5xx`` texts is a known, documented server
behaviour, any other is a finding. A request that gets no complete answer within its deadline is a
hang, one whose connection fails (refused, reset, closed early) a transport error.
"""

from __future__ import annotations

import ipaddress
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests

from llamatest import deadlines
from llamatest.fuzz.mutate import Mutation, Mutator
from llamatest.http.session import read_within
from llamatest.neterrors import failure_kind
from llamatest.textutil import parse_json

LOOPBACK_V4 = ipaddress.ip_network("127.0.0.0/8")
LOOPBACK_V6 = ipaddress.ip_address("::1")
HEADERS = {"Content-Type": "application/json", "Connection": "close"}
NO_ANSWER = "no answer"
TRANSPORT_ERROR = "transport error"


class FuzzTargetRefused(ValueError):
    """The fuzzer sends only to the machine it runs on."""


def check_loopback(url: str) -> str:
    """Returns ``url`` when its host is loopback (127.0.0.0/8, ``localhost``, ``::1``); raises otherwise."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        host = None
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        address = None
    loopback = address == LOOPBACK_V6 or (address is not None and address.version == 4 and address in LOOPBACK_V4)
    if host != "localhost" and not loopback:
        raise FuzzTargetRefused(f"refusing to fuzz {url}: the fuzzer sends only to loopback hosts "
                                f"(127.0.0.0/8, localhost, ::1), not to {host or 'a URL without a host'}")
    return url


@dataclass(frozen=True)
class Outcome:
    """What one mutated request got: a status (and the error object's type and message), or a failure."""

    mutation: Mutation
    status: int | None
    elapsed: float
    error_type: str | None = None
    message: str | None = None
    failure: str | None = None

    @property
    def label(self) -> str:
        """The status as text, or ``no answer`` / ``transport error``."""
        if self.status is not None:
            return str(self.status)
        return NO_ANSWER if self.failure and self.failure.startswith("no answer") else TRANSPORT_ERROR


@dataclass(repr=False)
class FuzzSummary:
    """The run: where, the bounds, and what came back."""

    url: str
    seed: int
    count: int
    max_seconds: float
    timeout: float
    documented_5xx: tuple[str, ...]
    server: str | None = None  # the server alias, when the run was addressed by alias
    outcomes: list[Outcome] = field(default_factory=list)
    elapsed: float = 0.0
    stopped_by: str = "count"

    def __repr__(self) -> str:  # Robot logs it on assignment: the counts, not 500 outcomes
        counts = ", ".join(f"{n} × {label}" for label, n in self.statuses.most_common())
        return f"<fuzz summary: {self.sent} of {self.count} requests to {self.url} in {self.elapsed:.1f} s: {counts}>"

    @property
    def sent(self) -> int:
        return len(self.outcomes)

    @property
    def statuses(self) -> Counter:
        """Requests per status label, in first-seen order."""
        return Counter(o.label for o in self.outcomes)

    @property
    def known_5xx(self) -> list[Outcome]:
        """The 5xx answers whose message contains one of the ``documented_5xx`` texts."""
        return [o for o in self.outcomes if _is_5xx(o) and self._is_documented(o)]

    @property
    def undocumented_5xx(self) -> list[Outcome]:
        """Every other 5xx answer: a finding."""
        return [o for o in self.outcomes if _is_5xx(o) and not self._is_documented(o)]

    @property
    def hangs(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.label == NO_ANSWER]

    @property
    def transport_errors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.label == TRANSPORT_ERROR]

    def _is_documented(self, outcome: Outcome) -> bool:
        return any(text in (outcome.message or "") for text in self.documented_5xx)


def fuzz(url: str, body: dict, count: int = 500, seed: int = 1, max_seconds: float = 60.0, timeout: float | None = None,
         documented_5xx=(), server: str | None = None, mutator: Mutator | None = None,
         headers: dict | None = None) -> FuzzSummary:
    """POSTs ``count`` mutations of ``body`` to ``url`` (loopback only) and returns the summary; ``headers`` (an
    external server's key) go with every request; ``timeout`` (each request's, default the ``exchange``
    deadline) is fixed when the run starts."""
    check_loopback(url)
    timeout = deadlines.or_default(timeout, "exchange")
    if count < 0 or max_seconds <= 0 or timeout <= 0:
        raise ValueError("count must be at least 0, max_seconds and timeout above 0")
    summary = FuzzSummary(url=url, seed=seed, count=count, max_seconds=float(max_seconds), timeout=float(timeout),
                          documented_5xx=tuple(documented_5xx), server=server)
    mutator = mutator or Mutator(seed)
    start = time.perf_counter()
    with requests.Session() as session:
        session.headers.update(headers or {})
        for mutation in mutator.mutations(body, count):
            if time.perf_counter() - start >= max_seconds:
                summary.stopped_by = "time"
                break
            outcome = send(session, url, mutation, timeout)
            summary.outcomes.append(outcome)
            if outcome.failure and outcome.failure.startswith("connection refused"):
                summary.stopped_by = "server gone"
                break
    summary.elapsed = time.perf_counter() - start
    return summary


def send(session: requests.Session, url: str, mutation: Mutation, timeout: float) -> Outcome:
    """One POST on a new connection, with a deadline for the whole exchange; never raises for what the server does.

    A new connection each time keeps the requests independent: llama-server closes a connection after a
    streamed answer although it announced keep-alive, so a request that reused it could be reset.
    """
    start = time.perf_counter()
    try:
        resp = session.post(url, data=mutation.data, headers=HEADERS, timeout=timeout, stream=True)
        content = read_within(resp, start, timeout)
    except requests.RequestException as exc:
        return Outcome(mutation, None, time.perf_counter() - start, failure=_failure(exc, timeout))
    elapsed = time.perf_counter() - start
    error = parse_json(content.decode("utf-8", errors="replace"))
    error = error.get("error") if isinstance(error, dict) else None
    if isinstance(error, dict):
        return Outcome(mutation, resp.status_code, elapsed, error.get("type"), str(error.get("message")))
    message = None if resp.status_code < 400 else content[:200].decode("utf-8", errors="replace")
    return Outcome(mutation, resp.status_code, elapsed, message=message)


def _failure(exc: Exception, timeout: float) -> str:
    return {"refused": "connection refused", "timeout": f"no answer within {timeout} s",
            "reset": "connection reset"}.get(failure_kind(exc), f"connection failed: {type(exc).__name__}")


def _is_5xx(outcome: Outcome) -> bool:
    return outcome.status is not None and outcome.status >= 500
