"""Two HTTP/1.1 requests on one raw TCP connection: does the server answer the second one?

HTTP/1.1 connections are persistent unless a side says ``Connection: close``. A client that got a whole
answer without that header may send its next request on the same connection at once (aiohttp and requests
do). ``two_requests`` does exactly that, byte by byte on a plain socket (no client library that would
silently reconnect), with one deadline for both exchanges, and reports what the server did with the
second request: answered it, or closed the connection (and how long after the first answer ended).

Bodies are read by ``Content-Length`` or ``Transfer-Encoding: chunked`` (chunks joined); an answer with
neither ends at the close of the connection, and then nothing can follow it.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from llamatest import deadlines
from llamatest.htmllog import details, pre
from llamatest.http.exchanges import Exchange, json_documents, recent, register
from llamatest.http.logblock import exchange_html, record_html
from llamatest.http.response import Response, path_of
from llamatest.textutil import join_url

READ_SIZE = 65536


@dataclass(frozen=True)
class Reuse:
    """The outcome of ``two_requests``: the first answer, and the second one or why there was none."""

    first: Response
    second: Response | None
    error: str = ""  # why the second request got no answer ("" when it got one)
    closed_after_s: float | None = None  # when the server closed the connection, from the end of the first answer
    unanswered_id: int | None = None  # the exchange number of a second request that got no answer (`numbered`)

    @property
    def announced_close(self) -> bool:
        """The first answer's headers say ``Connection: close`` (the server may then close the connection)."""
        return "close" in self.first.header_tokens("connection")


class _Closed(Exception):
    """The server closed the connection (``received``: bytes of the unfinished answer it sent before)."""

    def __init__(self, received: int):
        super().__init__("closed")
        self.received = received


class _Deadline(TimeoutError):
    """No complete answer before the deadline (the message names the exchange)."""


class _Conn:
    """A socket with a read buffer and an absolute deadline (``time.monotonic``).

    ``received`` counts the bytes of the current answer (`start_answer` resets it), whether parsed or buffered.
    """

    def __init__(self, sock: socket.socket, deadline: float, where: str):
        self.sock, self.deadline, self.where = sock, deadline, where
        self.buffer = b""
        self.received = 0
        self.eof_at: float | None = None

    def start_answer(self) -> None:
        """The next bytes belong to a new answer: those already buffered are its first."""
        self.received = len(self.buffer)

    def _fill(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _Deadline(f"{self.where}: no complete answer before the deadline")
        self.sock.settimeout(left)
        try:
            data = self.sock.recv(READ_SIZE)
        except TimeoutError:
            raise _Deadline(f"{self.where}: no complete answer before the deadline") from None
        except ConnectionResetError:
            data = b""
        if not data:
            self.eof_at = time.monotonic()
            raise _Closed(self.received)
        self.buffer += data
        self.received += len(data)

    def read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def read_exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self._fill()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read_to_close(self) -> bytes:
        try:
            while True:
                self._fill()
        except _Closed:
            data, self.buffer = self.buffer, b""
            return data


def request_bytes(method: str, url: str, body=None, headers: dict | None = None) -> bytes:
    """An HTTP/1.1 request; a dict or list body is sent as JSON, a str or bytes as it is."""
    lines = [f"{method} {path_of(url)} HTTP/1.1", f"Host: {urlsplit(url).netloc}"]
    payload = b""
    if body is not None:
        payload, content_type = _payload(body)
        if content_type:
            lines.append(f"Content-Type: {content_type}")
        lines.append(f"Content-Length: {len(payload)}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


def _payload(body) -> tuple[bytes, str]:
    """The bytes of a body, and its Content-Type when it is sent as JSON."""
    if isinstance(body, (dict, list)):
        return json.dumps(body).encode(), "application/json"
    return (body.encode() if isinstance(body, str) else bytes(body)), ""


def read_response(conn: _Conn, method: str, url: str, started: float) -> Response:
    """One whole answer from ``conn``; raises ``_Closed`` when the connection ends before it is complete."""
    conn.start_answer()
    head = conn.read_until(b"\r\n\r\n")
    status_line, *header_lines = head.decode("iso-8859-1").split("\r\n")
    try:
        status = int(status_line.split(" ", 2)[1])
    except (IndexError, ValueError):
        raise AssertionError(f"{conn.where}: not an HTTP status line: {status_line!r}") from None
    headers: dict[str, str] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        body = b""
    elif "chunked" in headers.get("transfer-encoding", "").lower():
        body = b""
        while True:
            size_line = conn.read_until(b"\r\n")
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                conn.read_until(b"\r\n")  # no trailers expected: the empty line that ends the body
                break
            body += conn.read_exactly(size)
            conn.read_exactly(2)
    elif "content-length" in headers:
        body = conn.read_exactly(int(headers["content-length"]))
    else:
        body = conn.read_to_close()
    return Response(method=method, url=url, status=status, text=body.decode("utf-8", errors="replace"),
                    headers=headers, elapsed=time.monotonic() - started)


def two_requests(base_url: str, first: tuple[str, str, object], second: tuple[str, str, object] = ("GET", "/health",
                 None), *, timeout: float | None = None, headers: dict | None = None) -> Reuse:
    """Sends ``first`` (method, path, body), reads its whole answer, then at once sends ``second`` on the same
    connection and reads its answer. ``timeout`` covers everything; ``headers`` go with both (an external
    server's key: they are not logged).

    Raises ``AssertionError`` when the first answer does not arrive whole (connection refused, closed early,
    deadline). The second request's fate is in the result: ``second`` is its answer, or ``None`` with
    ``error`` saying what happened and ``closed_after_s`` when the server closed the connection.
    """
    timeout = deadlines.or_default(timeout, "exchange")
    deadline = time.monotonic() + timeout
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    urls = [join_url(base_url, path) for _, path, _ in (first, second)]
    where = f"{first[0]} {first[1]}"
    try:
        sock = socket.create_connection((host, port), timeout=max(deadline - time.monotonic(), 0.01))
    except OSError as exc:
        raise AssertionError(f"{where}: cannot connect to {host}:{port}: {exc}") from None
    with sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = _Conn(sock, deadline, where)
        started = time.monotonic()
        try:
            sock.sendall(request_bytes(first[0], urls[0], first[2], headers))
            answer = read_response(conn, first[0], urls[0], started)
        except _Closed as closed:
            raise AssertionError(f"{where}: the server closed the connection before its answer was complete "
                                 f"({closed.received} bytes received)") from None
        except _Deadline as exc:  # its message names the exchange already
            raise AssertionError(str(exc)) from None
        except OSError as exc:
            raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from None
        ended = time.monotonic()
        if conn.eof_at is not None:  # an answer that ran to the close of the connection
            return Reuse(answer, None, "the first answer had no length: it ended with the connection", 0.0)
        conn.where = f"{second[0]} {second[1]} (on the same connection)"
        try:
            sock.sendall(request_bytes(second[0], urls[1], second[2], headers))
            return Reuse(answer, read_response(conn, second[0], urls[1], time.monotonic()))
        except _Closed as closed:
            got = f" after {closed.received} bytes of an answer" if closed.received else " without answering it"
            return Reuse(answer, None, f"the server closed the connection{got}", _since(conn.eof_at, ended))
        except TimeoutError as exc:
            return Reuse(answer, None, str(exc))
        except OSError as exc:  # the send hit a connection the server had already closed
            return Reuse(answer, None, f"the request could not be sent: {type(exc).__name__}: {exc}",
                         _since(conn.eof_at, ended))


def _since(t: float | None, start: float) -> float | None:
    return None if t is None else max(0.0, t - start)


def second_request_should_be_answered(reuse: Reuse, status: int | None = None, unless_announced: bool = False) -> None:
    """Fails unless the second request got an answer (with ``status``, when given).

    ``unless_announced``: a first answer that said ``Connection: close`` may end the connection, so then an
    unanswered second request passes (the server kept its word either way).

    The message names what the first answer promised: a server that answered without ``Connection: close``
    has kept the connection open for the next request (HTTP/1.1 persistent connections), so closing it
    instead is a defect, not the client's mistake.
    """
    first = reuse.first
    if reuse.second is None and unless_announced and reuse.announced_close:
        return
    if reuse.second is None:
        promise = ("it said Connection: close" if reuse.announced_close else
                   "its headers did not say Connection: close"
                   + (f" (Keep-Alive: {first.headers['keep-alive']})" if "keep-alive" in first.headers else ""))
        when = ""
        if reuse.closed_after_s is not None:
            when = f"; the connection closed {reuse.closed_after_s * 1000:.1f} ms after the first answer ended"
        raise AssertionError(f"{first.where} answered {first.status} and {promise}, but the next request on the "
                             f"same connection got no answer: {reuse.error}{when}")
    if status is not None and reuse.second.status != int(status):
        raise AssertionError(f"{reuse.second.where} on the reused connection answered {reuse.second.status}, "
                             f"expected {int(status)}")


def numbered(reuse: Reuse, first_body=None, second_url: str = "") -> Reuse:
    """The same outcome with an exchange number on each answer: the first with its request body, the second
    (also when it got no answer: ``second_url`` names it) as following the first on its connection."""
    first = _number(reuse.first, first_body)
    if reuse.second is None:
        unanswered = register("GET", second_url, error=reuse.error, follows=first.exchange_id) if second_url else None
        return dataclasses.replace(reuse, first=first, unanswered_id=unanswered.id if unanswered else None)
    return dataclasses.replace(reuse, first=first, second=_number(reuse.second, None, first.exchange_id))


def _number(resp: Response, body, follows: int | None = None) -> Response:
    payload, content_type = _payload(body) if body is not None else (None, "")
    exchange = register(resp.method, resp.url, {"Content-Type": content_type} if content_type else {}, payload,
                        status=resp.status, answer=resp.text, documents=json_documents(resp.text), follows=follows)
    return dataclasses.replace(resp, exchange_id=exchange.id)


def reuse_html(reuse: Reuse) -> str:
    """One collapsed log block: each answer as any HTTP exchange is logged, or what became of the second request."""
    first = reuse.first
    if reuse.second is None:
        outcome = f"no answer to the second request: {reuse.error}"
        unanswered = recent(reuse.unanswered_id) if reuse.unanswered_id is not None else None
        second_html = pre(outcome) + record_html(unanswered)
    else:
        outcome = f"{reuse.second.where} → {reuse.second.status}"
        second_html = _exchange_html(reuse.second)
    summary = f"{first.where} → {first.status}, then on the same connection: {outcome}"
    return details(summary, _exchange_html(first) + second_html)


def _exchange_html(resp: Response) -> str:
    return exchange_html(resp.where, "", resp.status, resp.headers, resp.text, resp.elapsed, _exchange_of(resp))


def _exchange_of(resp: Response) -> Exchange | None:
    # The record of a numbered answer, for its block; `numbered` registered it moments ago.
    return recent(resp.exchange_id) if resp.exchange_id is not None else None
