"""A small stand-in for llama-server's routes, for the workload tests, run in a process of its own.

Every character is a token (``/tokenize`` gives code points, ``/detokenize`` joins them back), the chat
template is ``<u>content</u>`` per message (``<s>``/``<a>`` for system and assistant) plus ``<a>``, and the
server has ``SLOTS`` slots that keep their last prompt and answer: a request takes the free slot whose
content shares the longest prefix with its prompt and reports that prefix as ``timings.cache_n`` (0 with
``cache_prompt: false``). Answers are ``max_tokens`` (or ``n_predict``) tokens "x", one per chunk,
``TOKEN_S`` apart. Streams per route as llama-server sends them: chat (``[DONE]``), native ``/infill``,
``/v1/responses`` and ``/v1/messages`` typed events; ``/v1/embeddings``, ``/embedding`` and ``/v1/rerank``
answer one JSON body. ``GET /log`` returns what was asked: ``[{"route", "prompt", "cache_n", "t"}]``.
"""

from __future__ import annotations

import asyncio
import json
import time

from aiohttp import web

from tests.load.scripted_server import serve_forever, start_process

SLOTS = 2
TOKEN_S = 0.002
TAGS = {"system": "s", "user": "u", "assistant": "a"}
STATE: dict = {"slots": [""] * SLOTS, "busy": [False] * SLOTS, "log": []}


def template(messages: list[dict], system: str = "") -> str:
    head = f"<s>{system}</s>" if system else ""
    return head + "".join(f"<{TAGS[m['role']]}>{m['content']}</{TAGS[m['role']]}>" for m in messages) + "<a>"


def prompt_of(route: str, body: dict) -> str:
    if "messages" in body:
        return template(body["messages"], body.get("system", ""))
    if route == "/infill":
        return "<pre>" + body["input_prefix"] + "<suf>" + body["input_suffix"] + "<mid>"
    return body.get("prompt") or body.get("input") or ""


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


async def _take_slot(prompt: str) -> tuple[int, int]:
    while all(STATE["busy"]):
        await asyncio.sleep(0.001)
    free = [i for i in range(SLOTS) if not STATE["busy"][i]]
    best = max(free, key=lambda i: _common(STATE["slots"][i], prompt))
    STATE["busy"][best] = True
    return best, _common(STATE["slots"][best], prompt)


def sse(obj, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return (head + "data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n").encode()


def _chunks(route: str, n: int, n_prompt: int, cache_n: int) -> list[bytes]:
    timings = {"prompt_n": n_prompt - cache_n, "cache_n": cache_n, "predicted_n": n, "prompt_ms": 1.0,
               "predicted_ms": n * TOKEN_S * 1000}
    usage = {"prompt_tokens": n_prompt, "completion_tokens": n, "total_tokens": n_prompt + n,
             "prompt_tokens_details": {"cached_tokens": cache_n}}
    if route == "/v1/responses":
        return ([sse({"type": "response.output_text.delta", "delta": "x"}, "response.output_text.delta")] * n
                + [sse({"type": "response.completed", "timings": timings, "response": {"status": "completed", "usage": {
                    "input_tokens": n_prompt, "output_tokens": n,
                    "input_tokens_details": {"cached_tokens": cache_n}}}}, "response.completed")])
    if route == "/v1/messages":
        start = {"type": "message_start", "message": {"usage": {"input_tokens": n_prompt - cache_n,
                                                                 "cache_read_input_tokens": cache_n}}}
        delta = {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "x"}}
        return ([sse(start, "message_start")] + [sse(delta, "content_block_delta")] * n
                + [sse({"type": "message_delta", "delta": {"stop_reason": "max_tokens"},
                        "usage": {"output_tokens": n}}, "message_delta"),
                   sse({"type": "message_stop"}, "message_stop")])
    if route in ("/infill", "/completion"):
        return ([sse({"content": "x", "tokens": [120], "stop": False})] * n
                + [sse({"content": "", "stop": True, "stop_type": "limit", "timings": timings})])
    return ([sse({"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}]})] * n
            + [sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}),
               sse({"choices": [], "usage": usage, "timings": timings}), sse("[DONE]")])


async def generate(request: web.Request) -> web.StreamResponse:
    route = request.path
    body = await request.json()
    prompt = prompt_of(route, body)
    n = body.get("max_tokens") or body.get("max_output_tokens") or body.get("n_predict") or 4
    slot, cache_n = await _take_slot(prompt)
    if body.get("cache_prompt") is False:
        cache_n = 0
    STATE["log"].append({"route": route, "prompt": prompt, "cache_n": cache_n, "t": time.perf_counter()})
    resp = web.StreamResponse()
    resp.content_type = "text/event-stream"
    await resp.prepare(request)
    try:
        for chunk in _chunks(route, n, len(prompt) + 1, cache_n):  # + 1: the BOS token
            await resp.write(chunk)
            await asyncio.sleep(TOKEN_S)
    finally:
        STATE["slots"][slot] = prompt + "x" * n
        STATE["busy"][slot] = False
    await resp.write_eof()
    return resp


async def answer(request: web.Request) -> web.Response:
    route = request.path
    body = await request.json()
    STATE["log"].append({"route": route, "prompt": "", "cache_n": 0, "t": time.perf_counter()})
    await asyncio.sleep(0.005)
    if route == "/v1/rerank":
        docs = body["documents"]
        return web.json_response({"results": [{"index": i, "relevance_score": 0.5} for i in range(len(docs))],
                                  "usage": {"prompt_tokens": sum(len(d) for d in docs)}})
    texts = body.get("input") if route == "/v1/embeddings" else body.get("content")
    texts = texts if isinstance(texts, list) else [texts]
    if route == "/v1/embeddings":
        return web.json_response({"data": [{"index": i, "embedding": [0.1, 0.2]} for i in range(len(texts))],
                                  "usage": {"prompt_tokens": sum(len(t) for t in texts)}})
    return web.json_response([{"index": i, "embedding": [[0.1, 0.2]]} for i in range(len(texts))])


async def tokenize(request: web.Request) -> web.Response:
    body = await request.json()
    extra = [1] if body.get("add_special") else []
    return web.json_response({"tokens": extra + [ord(c) for c in body["content"]]})


async def detokenize(request: web.Request) -> web.Response:
    body = await request.json()
    return web.json_response({"content": "".join(chr(t) for t in body["tokens"] if t != 1)})


async def apply_template(request: web.Request) -> web.Response:
    return web.json_response({"prompt": template((await request.json())["messages"])})


async def props(request: web.Request) -> web.Response:
    return web.json_response({"build_info": "b0-workloads", "model_path": "", "total_slots": SLOTS})


async def log(request: web.Request) -> web.Response:
    out = web.json_response(STATE["log"])
    if request.query.get("clear"):
        STATE["log"] = []
        STATE["slots"] = [""] * SLOTS
    return out


def make_app() -> web.Application:
    app = web.Application(client_max_size=16 * 1024 * 1024)
    for route in ("/tokenize", "/detokenize", "/apply-template"):
        app.router.add_post(route, {"/tokenize": tokenize, "/detokenize": detokenize,
                                    "/apply-template": apply_template}[route])
    for route in ("/v1/embeddings", "/embedding", "/v1/rerank"):
        app.router.add_post(route, answer)
    for route in ("/v1/chat/completions", "/v1/responses", "/v1/messages", "/infill", "/completion"):
        app.router.add_post(route, generate)
    app.router.add_get("/props", props)
    app.router.add_get("/log", log)
    return app


def _serve(conn) -> None:
    serve_forever(make_app, conn)


def start():
    """Starts the server in a new process; returns its base URL and the process (terminate it when done)."""
    return start_process(_serve, "workload-server")
