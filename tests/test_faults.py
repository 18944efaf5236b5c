"""Faults the suite itself must survive: each one ends in a clear failure, never in a hang or a pass.

Against the local fixture server (``tests/fixtures/http_server.py``), a socket that accepts connections and never
answers, and the fake llama-server (``tests/fixtures/fake_llama_server.py``):

- a server killed while a request waits: the request fails at once, and `Server Should Be Running`
  names the exit code and the log tail;
- a server that accepts a connection and never answers: both clients fail at their deadline;
- a server that stops in the middle of a stream: `Stream Request` fails when the connection is cut,
  and a stream that ends without ``[DONE]`` fails `Stream Should End With Done Marker`;
- a connection reset (TCP RST), before the answer or in the middle of it: both clients fail at once.

Cases the library tests already prove are not repeated here: a hanging handler and a trickling body
(``tests/http/test_http_session.py``), a stream cut inside an event or hanging after some events
(``tests/streaming/test_stream_client.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import threading
import time

import pytest

import LlamaServerLibrary as server_facade
from llamatest.http.session import ExchangeFailed
from StreamingLibrary import StreamingLibrary
from tests.fixtures import FAKE_LLAMA_SERVER as FAKE

pytestmark = pytest.mark.timing  # timestamps and deadlines: see the timing marker in pyproject.toml


def delta(text: str) -> str:
    return f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': text}}]})}\n\n"


def stream(path: str, body, server: str, timeout: float = 5.0):
    return asyncio.run(StreamingLibrary().stream_request(path, body, server=server, timeout=timeout))


def failure(func, *args, **kwargs) -> tuple[str, float]:
    """The AssertionError message of ``func(...)`` and how long it took to come."""
    start = time.perf_counter()
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    # Without the number of the judged exchange (" [exchange #12]"; tests/http/test_failure_messages.py checks it).
    return re.sub(r" \[exchange #\d+\]$", "", str(info.value)), time.perf_counter() - start


@pytest.fixture
def mute_url():
    """A server that accepts every connection and then never reads, writes or closes it."""
    listener = socket.create_server(("127.0.0.1", 0))
    held = []

    def accept():
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()
    for conn in held:
        conn.close()


# ----- a server that accepts a connection and never answers ---------------------------------------------


def test_session_fails_at_its_deadline_when_nothing_answers(http, mute_url):
    message, took = failure(http.post, mute_url + "/completion", json={"prompt": "x"}, timeout=0.5)
    assert message == "POST /completion: no answer within 0.5 s"
    assert 0.5 <= took < 2


def test_stream_request_fails_at_its_deadline_when_nothing_answers(mute_url):
    message, took = failure(stream, "/v1/chat/completions", {"stream": True}, mute_url, timeout=0.5)
    assert message == "POST /v1/chat/completions: no complete answer within 0.5 s (0 events received)"
    assert 0.5 <= took < 2


# ----- a connection reset ------------------------------------------------------------------------------


@pytest.mark.parametrize("partial", ["", "?partial=json", "?partial=sse"])
def test_session_fails_at_once_on_a_reset(http, server, partial):
    message, took = failure(http.post, server + "/reset" + partial, json={"prompt": "x"}, timeout=10)
    assert message == f"POST /reset{partial}: connection reset by the server ({server}/reset{partial})"
    assert took < 2


def test_stream_request_fails_at_once_on_a_reset_before_the_answer(server):
    message, took = failure(stream, "/reset", {"stream": True}, server, timeout=10)
    assert message.startswith("POST /reset: transport error: ")
    assert "Connection reset by peer" in message
    assert took < 2


def test_stream_request_fails_at_once_on_a_reset_in_the_middle(server):
    message, took = failure(stream, "/reset?partial=sse", {"stream": True}, server, timeout=10)
    assert message == "POST /reset: connection closed before the response was complete (1 events received)"
    assert took < 2


# ----- a server that stops in the middle of a stream ------------------------------------------------------


def test_stream_cut_between_events_fails_the_request(server):
    steps = [delta("a"), delta("b"), {"sleep": 0.05}, {"cut": True}]
    message, took = failure(stream, "/script", {"steps": steps}, server)
    assert message == "POST /script: connection closed before the response was complete (2 events received)"
    assert took < 2


def test_stream_cut_between_events_is_no_complete_stream(server):
    lib = StreamingLibrary()
    result = asyncio.run(lib.stream_requests_concurrently("/script", [{"steps": [delta("a"), {"cut": True}]}],
                                                          server=server, timeout=5))[0]
    assert result.text == "a" and not result.ended_with_done
    message, _ = failure(lib.stream_should_end_with_done_marker, result)
    assert message == "stream has no [DONE] marker (1 events; last: '" + delta("a")[6:-2] + "')"
    message, _ = failure(lib.stream_should_have_no_error, result)
    assert message.startswith("POST /script: connection closed before the response was complete")


def test_stream_that_ends_early_without_done_fails_the_done_check(server):
    lib = StreamingLibrary()
    result = stream("/script", {"steps": [delta("a"), delta("b")]}, server)  # the HTTP exchange is complete
    message, _ = failure(lib.stream_should_end_with_done_marker, result)
    assert message.startswith("stream has no [DONE] marker (2 events; last: ")


def test_stream_that_ends_with_an_error_event_fails_both_checks(server):
    lib = StreamingLibrary()
    error = 'data: {"error": {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}}\n\n'
    result = stream("/script", {"steps": [delta("a"), error]}, server)
    message, _ = failure(lib.stream_should_have_no_error, result)
    assert message.startswith('event 1 is an error: \'{"error": {"code": 500')
    failure(lib.stream_should_end_with_done_marker, result)


# ----- a llama-server killed while a request waits ----------------------------------------------------------


@pytest.fixture
def servers(monkeypatch, tmp_path, pid_registry):
    """LlamaServerLibrary on the fake llama-server, with its logs in the test's folder."""
    monkeypatch.setenv("LLAMA_SERVER_BIN", str(FAKE))
    for name in ("LLAMA_SERVER_URL", "FAKE_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(server_facade, "output_dir", lambda *_: tmp_path)
    monkeypatch.setattr(server_facade, "current_suite", lambda: "Faults")
    monkeypatch.setattr(server_facade, "open_session", lambda alias, url: None)
    lib = server_facade.LlamaServerLibrary()
    yield lib
    lib.close()


def in_background(func, *args, **kwargs) -> dict:
    """Runs ``func`` in a thread; the dict gets its ``error`` (or ``value``) and when it came (``t``)."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = func(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - the test inspects whatever it was
            outcome["error"] = exc
        outcome["t"] = time.perf_counter()

    outcome["thread"] = threading.Thread(target=run, daemon=True)
    outcome["thread"].start()
    return outcome


def kill_while_waiting(servers, request) -> tuple[dict, float]:
    """Freezes the fake (SIGSTOP: it stops answering, as a busy server would), starts ``request(url)``, lets
    it wait, then kills the server; returns the request's outcome and the time of the kill."""
    url = servers.start_llama_server(str(FAKE.parent / "model.gguf"))
    os.kill(servers._pool.local("suite").proc.pid, signal.SIGSTOP)
    outcome = in_background(request, url)
    time.sleep(0.3)
    assert "t" not in outcome, "the request should still be waiting for the frozen server"
    killed = time.perf_counter()
    servers.kill_llama_server()
    outcome["thread"].join(timeout=10)
    return outcome, killed


def test_session_request_fails_at_once_when_the_server_is_killed(servers, http):
    outcome, killed = kill_while_waiting(servers, lambda url: http.get(url + "/health", timeout=20))
    assert isinstance(outcome.get("error"), ExchangeFailed), outcome
    assert str(outcome["error"]).startswith("GET /health: connection reset by the server (")
    assert outcome["t"] - killed < 2


def test_stream_request_fails_at_once_when_the_server_is_killed(servers):
    outcome, killed = kill_while_waiting(servers, lambda url: stream("/completion", {"stream": True}, url, 20))
    assert isinstance(outcome.get("error"), AssertionError), outcome
    assert str(outcome["error"]).startswith("POST /completion: transport error: ")
    assert outcome["t"] - killed < 2


def test_server_should_be_running_names_the_crash_and_the_log_tail(servers, http):
    kill_while_waiting(servers, lambda url: http.get(url + "/health", timeout=20))
    message, _ = failure(servers.server_should_be_running)
    assert message.startswith("llama-server 'suite' exited with code -9:\n$ ")
    assert "main: server is listening on http://127.0.0.1:" in message
    assert servers.stop_llama_server() == -9
