"""A fake multi-slot llama-server for the concurrency tests, served by the fixture server of conftest.py.

Every test takes a fresh key: ``{server}/fake/{key}`` is then a server of its own, with
``POST /completion``, ``POST /v1/chat/completions``, ``GET /slots`` and ``GET /metrics``. Requests get
a free slot or wait in a FIFO queue (``requests_deferred``); each generates ``n_predict`` one-character
tokens, ``mock_pause`` seconds apart, and frees its slot when done or when its client goes away.

Misbehaviour on demand, by request field:
- ``mock_invisible``: its slot never shows as busy in ``/slots``.
- ``mock_lose``: the connection is dropped without an answer.
- ``mock_keep_slot``: a client that goes away leaves the slot busy (for ``HOLD_S``).
- ``mock_twice``: a stream sends its closing chunk twice.
The first request to a key may set ``mock_slots`` (default 2).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field

from aiohttp import web

HOLD_S = 10.0


@dataclass
class Slot:
    id: int
    busy: bool = False
    visible: bool = True
    id_task: int | None = None
    n_decoded: int = 0


@dataclass
class FakeServer:
    slots: list[Slot]
    queue: list[asyncio.Future] = field(default_factory=list)
    predicted_total: int = 0
    tasks: itertools.count = field(default_factory=lambda: itertools.count(1))

    async def take_slot(self) -> Slot:
        """A free slot, or the one the next release hands over (first come, first served)."""
        free = next((s for s in self.slots if not s.busy), None)
        if free is not None:
            return self._assign(free)
        waiter = asyncio.get_running_loop().create_future()
        self.queue.append(waiter)
        try:
            return await waiter
        finally:
            if waiter in self.queue:  # the client went away while queued: the request leaves the queue
                self.queue.remove(waiter)

    def release(self, slot: Slot) -> None:
        slot.busy, slot.visible = False, True
        while self.queue:
            waiter = self.queue.pop(0)
            if not waiter.done():
                waiter.set_result(self._assign(slot))
                return

    def _assign(self, slot: Slot) -> Slot:
        slot.busy, slot.visible, slot.n_decoded, slot.id_task = True, True, 0, next(self.tasks)
        return slot


_SERVERS: dict[str, FakeServer] = {}


def _server(request: web.Request, n_slots: int = 2) -> FakeServer:
    key = request.match_info["key"]
    if key not in _SERVERS:
        _SERVERS[key] = FakeServer([Slot(i) for i in range(n_slots)])
    return _SERVERS[key]


async def slots(request: web.Request) -> web.Response:
    fake = _server(request)
    if request.query.get("fail_on_no_slot") == "1" and all(s.busy for s in fake.slots):
        return web.json_response({"error": {"code": 503, "message": "no slot available",
                                            "type": "unavailable_error"}}, status=503)
    return web.json_response([{"id": s.id, "is_processing": s.busy and s.visible, "id_task": s.id_task,
                               "next_token": [{"n_decoded": s.n_decoded}]} for s in fake.slots])


async def metrics(request: web.Request) -> web.Response:
    fake = _server(request)
    lines = [f"llamacpp:requests_processing {sum(s.busy for s in fake.slots)}",
             f"llamacpp:requests_deferred {len(fake.queue)}",
             f"llamacpp:tokens_predicted_total {fake.predicted_total}"]
    return web.Response(text="# fake\n" + "\n".join(lines) + "\n")


def _chunk(chat: bool, text: str, slot: Slot, k: int, final: bool) -> dict:
    if chat:
        choice = {"index": 0, "delta": {} if final else {"content": text},
                  "finish_reason": "length" if final else None}
        return {"id": "fake", "object": "chat.completion.chunk", "choices": [choice],
                **({"usage": {"completion_tokens": k}} if final else {})}
    return {"content": text, "stop": final, "id_slot": slot.id, "tokens_predicted": k,
            **({"stop_type": "limit"} if final else {})}


async def complete(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    fake = _server(request, body.get("mock_slots", 2))
    if body.get("mock_lose"):
        request.transport.abort()
        return web.Response()
    chat = request.path.endswith("/chat/completions")
    n = body.get("n_predict", body.get("max_tokens", 4))
    pause = body.get("mock_pause", 0.002)
    slot = await fake.take_slot()
    slot.visible = not body.get("mock_invisible")
    kept = False
    try:
        resp = None
        if body.get("stream"):
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)
        for k in range(1, n + 1):
            await asyncio.sleep(pause)
            slot.n_decoded = k
            fake.predicted_total += 1
            if resp is not None:
                await resp.write(f"data: {json.dumps(_chunk(chat, 'x', slot, k, False))}\n\n".encode())
        if resp is None:
            if chat:
                return web.json_response({"choices": [{"index": 0, "message": {"content": "x" * n},
                                                       "finish_reason": "length"}],
                                          "usage": {"completion_tokens": n}})
            return web.json_response({"content": "x" * n, "stop": True, "id_slot": slot.id,
                                      "tokens_predicted": n, "stop_type": "limit"})
        closing = f"data: {json.dumps(_chunk(chat, '', slot, n, True))}\n\n"
        await resp.write((closing * (2 if body.get("mock_twice") else 1)).encode())
        if chat:
            await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp
    except (asyncio.CancelledError, ConnectionResetError):
        if body.get("mock_keep_slot"):
            kept = True
            asyncio.get_running_loop().call_later(HOLD_S, fake.release, slot)
        raise
    finally:
        if not kept:
            fake.release(slot)


def add_routes(app: web.Application) -> None:
    app.router.add_get("/fake/{key}/slots", slots)
    app.router.add_get("/fake/{key}/metrics", metrics)
    app.router.add_post("/fake/{key}/completion", complete)
    app.router.add_post("/fake/{key}/v1/chat/completions", complete)
