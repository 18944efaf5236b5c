"""The requests side of the RequestsLibrary sessions for llama-servers: a whole-exchange deadline and its log.

RequestsLibrary is the HTTP layer QA engineers know (``POST On Session    suite    /completion    json=…``).
What it lacks is mounted into its session here, as a requests transport adapter, so that it applies to
every request of the session, the domain keywords' and a suite's own:

- a deadline for the whole exchange: requests' ``timeout`` bounds each socket wait, so a server that
  trickles a byte now and then would never time out; the adapter stops reading at the deadline;
- one collapsed log block per exchange (request body, response headers and body) instead of
  RequestsLibrary's two INFO lines, which move to TRACE, and urllib3's DEBUG lines, which are dropped;
- a one-line failure that names the exchange (``POST /completion: no answer within 0.5 s``,
  ``… connection refused``) instead of a urllib3 traceback, and no retries;
- UTF-8 for bodies without a charset (requests would guess, or assume ISO-8859-1 for ``text/*``);
- a number per exchange (``exchange #12``, `llamatest.http.exchanges`) in its log block and on the
  response (``resp.exchange_id``), and a status mismatch that says why: RequestsLibrary's own check says
  ``Url: http://127.0.0.1:33119/detokenize Expected status: 500 != 200``; ours says
  ``POST /detokenize: status was 500, expected 200; error server_error: "…" [exchange #12]``.

Only requests here, no Robot: the adapter hands each block to the ``log`` it is mounted with
(`robot_glue.log_html`, Robot's logger). Opening the RequestsLibrary session, moving its log lines to
TRACE and rewording its status check are Robot glue, in ``robot_glue`` (`robot_glue.open_session`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import requests
from requests.adapters import HTTPAdapter

from llamatest import deadlines
from llamatest.http.exchanges import Exchange, json_documents, label, register, with_label
from llamatest.http.explain import status_mismatch
from llamatest.http.logblock import exchange_html, failed_exchange_html, request_html
from llamatest.http.response import path_of
from llamatest.neterrors import failure_kind

# urllib3 would add two DEBUG lines to the log per request ("Starting new HTTP connection", the status
# line), for every readiness poll too; the exchange block says all of it.
logging.getLogger("urllib3").setLevel(logging.WARNING)


LogHtml = Callable[[str], None]  # writes one HTML block to the log


def _no_log(block: str) -> None:
    """Outside a run (a script, a benchmark) the blocks go nowhere."""


class ExchangeFailed(AssertionError):
    """A request that got no complete answer: a timeout, a refused or a broken connection."""

    ROBOT_SUPPRESS_NAME = True  # the message names the exchange; the class name would only add noise


class StatusMismatch(AssertionError):
    """A session's answer had another status than the one the request expected."""

    ROBOT_SUPPRESS_NAME = True


class DeadlineAdapter(HTTPAdapter):
    """A transport adapter that reads the whole body within the request's timeout and logs the exchange."""

    def __init__(self, default_timeout: float | None = None, log: LogHtml | None = None):
        super().__init__(max_retries=0)  # a test must see the first failure, not a retried one
        self.default_timeout = default_timeout  # None: the "exchange" deadline, scaled at each request
        self.log = log or _no_log

    def send(self, request, stream=False, timeout=None, **kwargs):
        deadline = total_timeout(timeout, deadlines.or_default(self.default_timeout, "exchange"))
        # One connection per exchange: llama-server (after a stream, or a router's proxied answer) may close a
        # connection it offered to keep alive, and a request sent on it meanwhile would be reset.
        request.headers["Connection"] = "close"
        where = f"{request.method} {request.path_url}"
        sent = request_html(request.body, request.headers.get("Content-Type", ""))
        start = time.perf_counter()
        try:
            resp = super().send(request, stream=True, timeout=deadline, **kwargs)
            if "charset=" not in resp.headers.get("Content-Type", "").lower():
                resp.encoding = "utf-8"  # llama-server speaks UTF-8
            if not stream:
                resp._content = read_within(resp, start, deadline)
        except requests.RequestException as exc:
            error = describe_failure(where, request.url, exc, deadline)
            exchange = _register(request, error=error)
            self.log(failed_exchange_html(where, sent, error, exchange))
            # No label in the message: tests match these lines exactly; the failed block is the last one logged.
            raise ExchangeFailed(error) from None
        if not stream:
            exchange = _register(request, status=resp.status_code, answer=resp.text,
                                 documents=json_documents(resp.text))
            resp.exchange_id = exchange.id
            self.log(exchange_html(where, sent, resp.status_code, dict(resp.headers), resp.text,
                                   time.perf_counter() - start, exchange))
        return resp


def _register(request: requests.PreparedRequest, **outcome) -> Exchange:
    return register(request.method or "GET", request.url or "", request.headers, request.body, **outcome)


def total_timeout(timeout, default: float) -> float:
    """requests' timeout (None, a number, or a (connect, read) pair) as one number of seconds."""
    if timeout is None:
        return default
    if isinstance(timeout, tuple):
        return float(max(t for t in timeout if t is not None)) if any(t is not None for t in timeout) else default
    return float(timeout)


def read_within(resp: requests.Response, start: float, deadline: float) -> bytes:
    chunks = []
    try:
        for chunk in resp.iter_content(65536):
            chunks.append(chunk)
            if time.perf_counter() - start > deadline:
                raise requests.Timeout()
    finally:
        resp.close()
    return b"".join(chunks)


def describe_failure(where: str, url: str, exc: Exception, deadline: float) -> str:
    return {
        "refused": f"{where}: connection refused ({url}): is the server running?",
        "timeout": f"{where}: no answer within {deadline} s",
        "reset": f"{where}: connection reset by the server ({url})",
        "cut": f"{where}: the server closed the connection before the answer was complete ({url})",
    }.get(failure_kind(exc), f"{where}: connection failed ({url}): {type(exc).__name__}")


def mount(session: requests.Session, timeout: float | None = None, log: LogHtml | None = None) -> requests.Session:
    """Mounts the deadline adapter for both schemes; ``log`` gets each exchange block (none without it)."""
    adapter = DeadlineAdapter(timeout, log)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def explained_status(resp: requests.Response, expected_status, msg: str | None = None) -> str:
    """The failure of a status check on a session's response: method, path, statuses, the server's error."""
    expected = "a status below 400" if expected_status is None else expected_status
    method = resp.request.method if resp.request is not None else "?"
    message = status_mismatch(f"{method} {path_of(resp.url)}", resp.status_code, expected, resp.text)
    return with_label(f"{msg}: {message}" if msg else message, label(resp.exchange_id))
