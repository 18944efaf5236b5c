"""A null chat server for the benchmarks: every answer is a short fixed stream whose writes are stamped.

``POST /v1/chat/completions`` answers request number n with a role chunk and a first content chunk ``"r<n> "``
(one write, stamped with ``time.time()`` and ``time.perf_counter()`` just before it), then ``N_CONTENT`` chunks
``GAP_S`` apart, then finish, usage and ``[DONE]``. ``GET /stamps`` returns and clears the stamps by n (with the
request's ``x-request-id``); ``GET /v1/models`` names the model ``null-model``; ``GET /health`` answers ok (both
for guidellm). A tool's TTFT error for request n is the time it saw the first token minus the stamp: it includes
loopback delivery and both event loops.
"""

from __future__ import annotations

import asyncio
import logging
import time

from aiohttp import web

from tests.fixtures.scripted_server import DONE, chat, serve_forever, start_process, usage

GAP_S = 0.005
N_CONTENT = 4


def make_app() -> web.Application:
    stamps: dict[int, dict] = {}
    counter = {"n": 0}
    role = chat({"role": "assistant", "content": None})
    rest = chat({"content": "b"}).encode()
    tail = (chat({}, "length") + usage(1 + N_CONTENT, prompt=1) + DONE).encode()

    async def complete(request: web.Request) -> web.StreamResponse:
        await request.read()
        counter["n"] += 1
        n = counter["n"]
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        first = (role + chat({"content": f"r{n} "})).encode()
        stamps[n] = {"wall": time.time(), "perf": time.perf_counter(), "rid": request.headers.get("x-request-id")}
        await resp.write(first)
        for _ in range(N_CONTENT):
            await asyncio.sleep(GAP_S)
            await resp.write(rest)
        await resp.write(tail)
        await resp.write_eof()
        return resp

    async def get_stamps(request: web.Request) -> web.Response:
        out = {str(k): v for k, v in stamps.items()}
        stamps.clear()
        return web.json_response(out)

    async def models(request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "null-model", "object": "model", "owned_by": "x"}]})

    async def health(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", complete)
    app.router.add_get("/stamps", get_stamps)
    app.router.add_get("/v1/models", models)
    app.router.add_get("/health", health)
    return app


def _serve(conn) -> None:
    # A client that hangs up (guidellm past its limits) is counted by its own report, not logged per request here.
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
    serve_forever(make_app, conn, backlog=8192)


def start():
    """(base URL, process) of a null server in a process of its own."""
    return start_process(_serve, "null chat server")
