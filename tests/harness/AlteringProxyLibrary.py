"""A reverse proxy on 127.0.0.1 that alters the numbers of a real server's JSON answers: a server made wrong on
purpose, for the harness cases of the numeric reference (reference_faults.robot).

Every ``logprob``, ``relevance_score`` and ``score`` and every element of an ``embedding`` of an answer passes
through the current alteration: ``scale`` (times ``factor``), ``clamp`` (into ``[-limit, limit]``), ``round``
(to ``digits`` decimals), ``shift`` (each item of a list takes the numbers of the next item: a token's
log-probabilities, a document's score or an input's vector from the wrong sequence), or ``none``. Ids,
indexes and texts are left as they were, so only the numbers are wrong.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable

import aiohttp
from aiohttp import web
from robot.api.deco import keyword, library

from llamatest import deadlines

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}
SCALARS = ("logprob", "relevance_score", "score")
# The fields that carry one item's numbers: what `shift` moves from an item to the one before it.
CARRIERS = ("logprob", "top_logprobs", "relevance_score", "score", "embedding")


def _map_numbers(value, change: Callable[[float], float]):
    """`value` with every number (at any depth) passed through `change`."""
    if isinstance(value, list):
        return [_map_numbers(item, change) for item in value]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return change(float(value))


def _alter_numbers(body, change: Callable[[float], float]):
    """`body` with the numbers of `SCALARS` and of ``embedding`` fields passed through `change`."""
    if isinstance(body, list):
        return [_alter_numbers(item, change) for item in body]
    if not isinstance(body, dict):
        return body
    return {key: _map_numbers(value, change) if key in (*SCALARS, "embedding") else _alter_numbers(value, change)
            for key, value in body.items()}


def _shift(body):
    """Each item of a list of items that carry numbers takes the numbers of the next one (the last, the first's)."""
    if isinstance(body, dict):
        return {key: _shift(value) for key, value in body.items()}
    if not isinstance(body, list):
        return body
    items = [_shift(item) for item in body]
    if len(items) > 1 and all(isinstance(item, dict) and any(k in item for k in CARRIERS) for item in items):
        moved = items[1:] + items[:1]
        return [{**item, **{k: other[k] for k in CARRIERS if k in item and k in other}}
                for item, other in zip(items, moved, strict=True)]
    return items


def alter(body, alteration: str, factor: float = 1.01, limit: float = 1.0, digits: int = 2):
    """`body` (a parsed JSON answer) altered as `alteration` says (see the module)."""
    changes = {"scale": lambda x: x * factor, "clamp": lambda x: min(max(x, -limit), limit),
               "round": lambda x: round(x, digits)}
    if alteration == "none":
        return body
    if alteration == "shift":
        return _shift(body)
    return _alter_numbers(body, changes[alteration])


@library(scope="SUITE")
class AlteringProxyLibrary:
    def __init__(self):
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runners: list[web.AppRunner] = []
        self._alteration: dict = {"alteration": "none"}

    @keyword("Start Altering Proxy")
    def start_altering_proxy(self, upstream: str) -> str:
        """Starts a proxy in front of ``upstream`` (a base URL) and returns its own base URL. Every proxy of the
        suite applies the alteration last set (`Alter Numbers`); none at first."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="altering-proxy", daemon=True)
            self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._serve(upstream.rstrip("/")), self._loop)
        return future.result(timeout=deadlines.deadline("fixture"))

    @keyword("Alter Numbers")
    def alter_numbers(self, alteration: str, factor: float = 1.01, limit: float = 1.0, digits: int = 2) -> None:
        """From now on the proxies answer with their numbers altered: ``scale``, ``clamp``, ``round``, ``shift``,
        or ``none``."""
        self._alteration = {"alteration": alteration, "factor": float(factor), "limit": float(limit),
                            "digits": int(digits)}

    @keyword("Stop Altering Proxies")
    def stop_altering_proxies(self) -> None:
        if self._loop is None:
            return
        for runner in self._runners:
            asyncio.run_coroutine_threadsafe(runner.cleanup(), self._loop).result(timeout=deadlines.deadline("fixture"))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=deadlines.deadline("fixture"))
        self._loop, self._thread, self._runners = None, None, []

    async def _serve(self, upstream: str) -> str:
        client = aiohttp.ClientSession()

        async def forward(request: web.Request) -> web.Response:
            headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS | {"host"}}
            async with client.request(request.method, upstream + request.path_qs, data=await request.read(),
                                      headers=headers) as up:
                raw = await up.read()
                kept = {k: v for k, v in up.headers.items() if k.lower() not in HOP_HEADERS}
            if up.content_type == "application/json":
                raw = json.dumps(alter(json.loads(raw), **self._alteration)).encode()
            return web.Response(status=up.status, body=raw, headers=kept)

        async def close(_app: web.Application) -> None:
            await client.close()

        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", forward)
        app.on_cleanup.append(close)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runners.append(runner)
        return f"http://127.0.0.1:{runner.addresses[0][1]}"
