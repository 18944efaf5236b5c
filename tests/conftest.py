"""A local aiohttp server that plays byte-exact, scripted HTTP/SSE responses for the library tests.

It runs on 127.0.0.1, port 0, in a background thread with its own event loop, so the code under
test (requests, or asyncio.run with aiohttp) runs in the test's thread exactly as it would in Robot.

Routes:
- ``* /echo``          200 JSON describing the request (method, path, query, headers, body).
- ``* /hang``          never answers (until the client goes away).
- ``POST /script``     the JSON body says what to answer (see ``script``).
- ``POST /v1/chat/completions``  an OpenAI-style chat stream with pauses between tokens.
- ``POST /validate``   answers like a llama-server JSON route (see ``validate``), for the fuzzer's tests.
- ``* /reset``         reads the request, then resets the connection (TCP RST), before answering or
                       (``?partial=json`` / ``?partial=sse``) in the middle of the body.
- ``/fake/{key}/…``    a fake multi-slot llama-server per key (see ``tests/concurrency/fake_llama.py``).
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import time

import pytest
from aiohttp import web

from llamatest import machine
from tests.concurrency import fake_llama
from tests.sse_helpers import DONE, sse

HANG_S = 30  # upper bound so a forgotten client can never keep the server busy forever


async def echo(request: web.Request) -> web.Response:
    body = await request.read()
    return web.json_response(
        {
            "method": request.method,
            "path": request.path,
            "query": request.query_string,
            "headers": dict(request.headers),
            "body": body.decode("utf-8", errors="replace"),
        },
        headers={"X-Test-Header": "hello-world"},
    )


async def hang(request: web.Request) -> web.Response:
    await asyncio.sleep(HANG_S)
    return web.Response(text="too late")


async def script(request: web.Request) -> web.StreamResponse:
    """Answer as the request body says.

    ``{"json": obj, "status": 400}``            a normal JSON response (with Content-Length)
    ``{"text": "...", "status": 503}``          a normal text/plain response
    ``{"steps": [...], "status", "content_type", "headers"}``  a chunked stream, step by step:
        "text"                 write UTF-8 bytes as one chunk
        {"hex": "c3"}          write raw bytes
        {"bytewise": "text"}   write the UTF-8 bytes one by one, each drained separately
        {"sleep": 0.1}         pause
        {"cut": true}          drop the connection (no terminating chunk)
        {"hang": true}         stop answering
    """
    spec = await request.json()
    status = spec.get("status", 200)
    if "json" in spec:
        return web.json_response(spec["json"], status=status)
    if "text" in spec:
        return web.Response(text=spec["text"], status=status)

    resp = web.StreamResponse(status=status, headers=spec.get("headers", {}))
    resp.content_type = spec.get("content_type", "text/event-stream")
    await resp.prepare(request)
    for step in spec["steps"]:
        if isinstance(step, str):
            await resp.write(step.encode("utf-8"))
        elif "hex" in step:
            await resp.write(bytes.fromhex(step["hex"]))
        elif "bytewise" in step:
            for byte in step["bytewise"].encode("utf-8"):
                await resp.write(bytes([byte]))  # write() drains; resp.drain() is deprecated
                await asyncio.sleep(0.002)  # give the client a chance to read each byte alone
        elif "sleep" in step:
            await asyncio.sleep(step["sleep"])
        elif "cut" in step:
            request.transport.abort()
            return resp
        elif "hang" in step:
            await asyncio.sleep(HANG_S)
    await resp.write_eof()
    return resp


async def chat(request: web.Request) -> web.StreamResponse:
    """Like llama-server: role chunk, one chunk per token, finish chunk, usage chunk, [DONE]."""
    body = await request.json()
    tokens = body.get("mock_tokens", ["Hello", ",", " world"])
    pause = body.get("mock_pause", 0.05)

    def chunk(delta, finish=None):
        return sse({"id": "c1", "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
    await resp.prepare(request)
    await resp.write(chunk({"role": "assistant", "content": None}).encode())
    for token in tokens:
        await asyncio.sleep(pause)
        await resp.write(chunk({"content": token}).encode())
    await resp.write(chunk({}, "stop").encode())
    usage = {"id": "c1", "choices": [], "usage": {"completion_tokens": len(tokens)}}
    await resp.write((sse(usage) + DONE).encode())
    await resp.write_eof()
    return resp


def llama_error(status: int, type_: str, message: str) -> web.Response:
    return web.json_response({"error": {"code": status, "message": message, "type": type_}}, status=status)


async def validate(request: web.Request) -> web.Response:
    """400 ``invalid_request_error`` for a body that is not a JSON object, 500 ``server_error`` "prompt
    must be a string" when it has a ``prompt`` that is not a string, else 200 with its sorted keys."""
    try:
        body = json.loads(await request.read())
    except ValueError as exc:
        return llama_error(400, "invalid_request_error", f"parse error: {exc}")
    if not isinstance(body, dict):
        return llama_error(400, "invalid_request_error", "the body must be an object")
    if "prompt" in body and not isinstance(body["prompt"], str):
        return llama_error(500, "server_error", "prompt must be a string")
    return web.json_response({"keys": sorted(body)})


async def reset(request: web.Request) -> web.StreamResponse:
    """Reads the request and resets the connection: at once, or after the headers and part of the body."""
    await request.read()
    resp = web.StreamResponse()
    partial = request.query.get("partial")
    if partial == "json":
        resp.content_type = "application/json"
        resp.content_length = 1000
        await resp.prepare(request)
        await resp.write(b'{"content": "partial')
    elif partial == "sse":
        resp.content_type = "text/event-stream"
        await resp.prepare(request)
        await resp.write(sse({"content": "a"}).encode())
    await asyncio.sleep(0.05)  # let the client read what was sent, so that the reset comes in the middle
    sock = request.transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close() sends RST
    request.transport.abort()
    return resp


def make_app() -> web.Application:
    app = web.Application()
    app.router.add_route("*", "/echo", echo)
    app.router.add_route("*", "/hang", hang)
    app.router.add_post("/script", script)
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_post("/validate", validate)
    app.router.add_route("*", "/reset", reset)
    fake_llama.add_routes(app)
    return app


@pytest.fixture(scope="session")
def server():
    """Base URL of the fixture server, e.g. ``http://127.0.0.1:41234``."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fixture-server", daemon=True)
    thread.start()

    def run(coro):
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=10)

    async def start():
        # handler_cancellation: a handler stops when its client disconnects (hang, slow streams).
        runner = web.AppRunner(make_app(), handler_cancellation=True, shutdown_timeout=1)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    runner = run(start())
    port = runner.addresses[0][1]
    yield f"http://127.0.0.1:{port}"
    run(runner.cleanup())
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    loop.close()


@pytest.fixture
def closed_port_url():
    """A URL on 127.0.0.1 where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def logged(monkeypatch):
    """Collects what the libraries log (they all log through robot.api.logger)."""
    from robot.api import logger

    messages = []
    monkeypatch.setattr(logger, "info", lambda msg, html=False: messages.append((msg, html)))
    return messages


@pytest.fixture
def http():
    """A requests session with the project's deadline adapter, as RequestsLibrary sessions have."""
    import requests

    from llamatest.http.session import mount

    with mount(requests.Session()) as session:
        yield session


@pytest.fixture
def pid_registry(tmp_path, monkeypatch):
    """An empty pid registry of the test's own (``$LLAMATEST_PID_DIR``), for tests that start processes."""
    directory = tmp_path / "pids"
    monkeypatch.setenv("LLAMATEST_PID_DIR", str(directory))
    return directory


# ---- timing tests on a busy machine --------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Starts the clock of a `timing` test for `pytest_runtest_makereport`."""
    if item.get_closest_marker("timing"):
        machine.monitor()
        item.stash[_STARTED] = time.monotonic()
    return (yield)


_STARTED = pytest.StashKey[float]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A `timing` test that failed an assertion while other processes kept the machine busy is not judged: the
    same rule as the suites' (TimingVerdictListener), so a shared machine never fails the self-test."""
    report = yield
    start = item.stash.get(_STARTED, None)
    if (report.when == "call" and report.failed and start is not None and call.excinfo is not None
            and call.excinfo.errisinstance(AssertionError)):
        share = machine.monitor().share_since(start)
        if share.busy:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0,
                               f"not judged, the machine was busy: {share.describe()}")
    return report
