"""A scripted SSE server for the load-engine tests, run in a process of its own.

Every POST (any path: ``/v1/chat/completions``, ``/v1/completions``, ``/completion``) answers as its JSON
body's ``script`` says, a list of steps:
- ``[delay_s, "raw SSE text"]``: sleep, then write the bytes (one write).
- ``{"delay": s, "headers": true}``: sleep, then send the status line and headers alone.
- ``{"delay": s, "status": 500, "json": {...}}``: sleep, then answer with that status and JSON body (must be
  the first step).
- ``{"delay": s, "close": true}``: sleep, then drop the connection (no terminating chunk).
- ``{"delay": s}``: just sleep (a stall).
``GET /props`` answers build, model path and slots like llama-server (``PUT /props`` changes them).
The body's ``content_type`` (default ``text/event-stream``) sets the media type. The server stamps
``time.perf_counter()`` just before each write; ``GET /stamps/{x-request-id}`` returns
``{"headers": t, "steps": [t or null per step], "end": t}``. The same clock serves both processes (Linux
``CLOCK_MONOTONIC``), so a test compares the client's times with the server's directly.

A separate process keeps the server from competing with the client for the GIL, which would otherwise
delay the client's reads by up to the interpreter's switch interval (5 ms).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.sse_helpers import DONE, sse

STAMPS: dict[str, dict[str, Any]] = {}


async def scripted(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    rid = request.headers.get("x-request-id", "")
    stamps: dict[str, Any] = {"headers": None, "steps": [], "end": None, "body": body}
    STAMPS[rid] = stamps
    resp = web.StreamResponse()
    resp.content_type = body.get("content_type", "text/event-stream")
    perf = time.perf_counter
    for step in body.get("script", []):
        if isinstance(step, list):
            step = {"delay": step[0], "data": step[1]}
        delay = step.get("delay", 0)
        if delay:
            await asyncio.sleep(delay)
        if "status" in step:
            stamps["headers"] = perf()
            stamps["steps"].append(stamps["headers"])
            return web.json_response(step.get("json", {}), status=step["status"])
        if "close" in step:
            stamps["steps"].append(perf())
            request.transport.abort()
            return resp
        if step.get("headers") or ("data" in step and not resp.prepared):
            stamps["headers"] = perf()
            await resp.prepare(request)
        if "data" in step:
            t = perf()
            await resp.write(step["data"].encode("utf-8"))
            stamps["steps"].append(t)
        else:
            stamps["steps"].append(None)
    if not resp.prepared:
        stamps["headers"] = perf()
        await resp.prepare(request)
    stamps["end"] = perf()
    await resp.write_eof()
    return resp


async def stamps(request: web.Request) -> web.Response:
    return web.json_response(STAMPS.pop(request.match_info["rid"], None))


METRICS_TEXT = """# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# HELP llamacpp:n_decode_total Total number of llama_decode() calls
# TYPE llamacpp:n_decode_total counter
llamacpp:n_decode_total 42
"""


async def metrics(request: web.Request) -> web.Response:
    """A fixed scrape, like llama-server's ``/metrics`` with ``--metrics``. No token counter: a fixed one would
    disagree with the tokens the client counted (the answer checks' ``counter_mismatch``)."""
    return web.Response(text=METRICS_TEXT, content_type="text/plain")


PROPS: dict[str, Any] = {"build_info": "b0-scripted", "model_path": "", "total_slots": 2}


async def props(request: web.Request) -> web.Response:
    """Like llama-server's ``GET /props`` (build, model path, slots); ``PUT /props`` merges a JSON object
    into what it answers (a test points ``model_path`` at a file it made)."""
    if request.method == "PUT":
        PROPS.update(await request.json())
    return web.json_response(PROPS)


async def slots(request: web.Request) -> web.Response:
    return web.json_response([{"id": 0, "id_task": 7, "is_processing": True, "n_ctx": 512},
                              {"id": 1, "id_task": -1, "is_processing": False, "n_ctx": 512}])


def make_app() -> web.Application:
    app = web.Application(client_max_size=16 * 1024 * 1024)
    app.router.add_get("/stamps/{rid}", stamps)
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/slots", slots)
    app.router.add_get("/props", props)
    app.router.add_put("/props", props)
    app.router.add_post("/{tail:.*}", scripted)
    return app


def serve_forever(make: Callable[[], web.Application], conn, backlog: int = 4096) -> None:
    """Serves ``make()`` on 127.0.0.1 at a free port, sent through ``conn`` once it listens, until the
    process ends (the body of a ``start_process`` server)."""
    async def main() -> None:
        runner = web.AppRunner(make(), handler_cancellation=True, shutdown_timeout=0.5, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0, backlog=backlog).start()
        conn.send(runner.addresses[0][1])
        while True:
            await asyncio.sleep(3600)

    asyncio.run(main())


def _serve(conn) -> None:
    serve_forever(make_app, conn)


def start() -> tuple[str, multiprocessing.Process]:
    """Starts the server in a new process; returns its base URL and the process (terminate it when done)."""
    return start_process(_serve, "scripted-sse-server")


def start_process(serve, name: str) -> tuple[str, multiprocessing.Process]:
    """Runs ``serve(conn)`` in a new (spawned) process; ``serve`` sends its port through ``conn`` once it
    listens on 127.0.0.1. Returns the base URL and the process."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=serve, args=(child,), daemon=True, name=name)
    proc.start()
    if not parent.poll(30):
        proc.terminate()
        raise RuntimeError(f"the {name} did not start within 30 s")
    return f"http://127.0.0.1:{parent.recv()}", proc


# ----- stream builders (sse and DONE come from tests/sse_helpers.py) -----

def chat(delta: dict, finish: str | None = None, **extra: Any) -> str:
    return sse({"id": "x", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})


def text(content: str, finish: str | None = None) -> str:
    return sse({"id": "x", "object": "text_completion", "choices": [{"index": 0, "text": content,
                                                                      "finish_reason": finish}]})


def usage(completion: int, prompt: int = 5, timings: dict | None = None) -> str:
    obj: dict[str, Any] = {"id": "x", "choices": [], "usage": {"completion_tokens": completion,
                                                                 "prompt_tokens": prompt,
                                                                 "total_tokens": prompt + completion}}
    if timings is not None:
        obj["timings"] = timings
    return sse(obj)


def native(content: str, tokens: list[int], stop: bool = False, **extra: Any) -> str:
    return sse({"content": content, "tokens": tokens, "stop": stop, **extra})


PING = ": ping\n\n"

# DONE and sse are re-exported: the tests import every stream builder from here.
__all__ = ["DONE", "PING", "chat", "make_app", "native", "serve_forever", "sse", "start", "start_process", "text",
           "usage"]
