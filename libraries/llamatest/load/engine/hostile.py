"""The noise workload's sender: hostile requests (``workloads.noise``) beside a load profile, never in its way.

`NoiseBeside` runs them from a thread of its own, with its own event loop and aiohttp session, so the measured
requests keep their loop, connector and read stamps to themselves (their loop-lag and CPU watchers still see what
the noise costs the client process). It learns what the server is (`server_facts`: a key, the slot context, an
image projector), starts a sink (``llamatest.media.MediaFixture`` on 127.0.0.1) when media kinds apply, sends the
noise plan, waits for its answers, and then asks ``GET /health``. Every wait is bounded; every request records
what it got (`send`), plain data for ``analysis.noise``.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from llamatest import deadlines
from llamatest.fuzz.run import check_loopback
from llamatest.load.engine.classify import classify_data
from llamatest.load.engine.client import Target
from llamatest.load.workloads import noise
from llamatest.load.workloads.noise import NoiseRequest, NoiseSpec, ServerFacts
from llamatest.media import MediaFixture
from llamatest.streaming.sse import SSEComment, SSEParser
from llamatest.textutil import join_url, parse_json

PAD_BLOCK = 1 << 20  # the over-size body is this block sent again and again (JSON whitespace)
MESSAGE_CHARS = 200
SLOWLORIS_INTERVAL_S = 1.0  # one byte of the request head per interval
SLOWLORIS_HEAD = b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


async def server_facts(session: aiohttp.ClientSession, target: Target, sink_url: str | None) -> ServerFacts:
    """Whether ``/props`` refuses a request without a key, and from ``/props`` with the run's headers the slot
    context and the image projector."""
    timeout = aiohttp.ClientTimeout(total=deadlines.deadline("probe"))
    url = join_url(target.base_url, "/props")
    async with session.get(url, timeout=timeout) as bare:
        has_key = bare.status == 401
    async with session.get(url, headers=target.headers, timeout=timeout) as resp:
        props = await resp.json(content_type=None) if resp.status == 200 else {}
    settings = props.get("default_generation_settings") or {}
    return ServerFacts(has_key=has_key, headers=dict(target.headers), n_ctx=int(settings.get("n_ctx") or 0),
                       vision=bool((props.get("modalities") or {}).get("vision")), sink_url=sink_url)


def _outcome(req: NoiseRequest, t: float, **got: Any) -> dict[str, Any]:
    base = {"kind": req.kind, "t": round(t, 3), "status": None, "error_type": None, "message": None,
            "outcome": "answered", "detail": None, "fetch": req.fetch}
    return {**base, **got}


def _error_of(text: str) -> tuple[str | None, str | None]:
    """The error object's type and message of a JSON answer, (None, None) without one."""
    obj = parse_json(text)
    error = obj.get("error") if isinstance(obj, dict) else None
    if not isinstance(error, dict):
        return None, None
    return error.get("type"), str(error.get("message", ""))[:MESSAGE_CHARS]


async def _padding(size: int):
    block = b" " * PAD_BLOCK
    whole, rest = divmod(size, PAD_BLOCK)
    for _ in range(whole):
        yield block  # the same object every time: no copy while the measured run shares the interpreter
    if rest:
        yield block[:rest]


async def _first_token(resp: aiohttp.ClientResponse) -> bool:
    """Reads the stream until its first event carrying generated text; False when it ended without one."""
    parser = SSEParser(keep_raw=False)
    async for chunk in resp.content.iter_any():
        for item in parser.feed(chunk, 0.0):
            if not isinstance(item, SSEComment) and classify_data(item.data, 0.0, False)[0].is_token:
                return True
    return False


async def _post(session: aiohttp.ClientSession, base_url: str, req: NoiseRequest, t: float) -> dict[str, Any]:
    headers = dict(req.headers)
    data: Any = req.body
    if req.pad_to:
        headers["Content-Length"] = str(req.pad_to)  # a framed body: the server counts it against its limit
        data = _padding(req.pad_to)
    timeout = aiohttp.ClientTimeout(total=deadlines.deadline("exchange"))
    async with session.post(join_url(base_url, req.path), data=data, headers=headers, timeout=timeout) as resp:
        if req.stream and resp.status == 200:
            token = await _first_token(resp)
            resp.close()  # hang up mid-answer: the connection goes, the server must cancel the task
            return _outcome(req, t, status=200, outcome=noise.DROPPED if token else "answered",
                            detail=None if token else "the stream ended before its first token")
        error_type, message = _error_of(await resp.text(errors="replace"))
        return _outcome(req, t, status=resp.status, error_type=error_type, message=message)


async def _slowloris(base_url: str, req: NoiseRequest, t: float, seconds: float) -> dict[str, Any]:
    """Sends the request head one byte a second and gives up after ``seconds``; what came back first, if anything."""
    parts = urlsplit(base_url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
    answer = asyncio.ensure_future(reader.read(64))
    n = max(1, math.ceil(seconds / SLOWLORIS_INTERVAL_S))
    try:
        for i in range(n):
            writer.write(SLOWLORIS_HEAD[i % len(SLOWLORIS_HEAD):][:1])
            await writer.drain()
            done, _ = await asyncio.wait({answer}, timeout=SLOWLORIS_INTERVAL_S)
            if done:
                head = answer.result()
                if not head:
                    return _outcome(req, t, outcome="closed_by_server", detail=f"after {i + 1} bytes")
                status = head.split(b" ", 2)[1] if head.startswith(b"HTTP/") else b""
                return _outcome(req, t, status=int(status) if status.isdigit() else None,
                                detail=head[:MESSAGE_CHARS].decode("latin-1"))
        return _outcome(req, t, outcome=noise.GAVE_UP, detail=f"{n} bytes, one every {SLOWLORIS_INTERVAL_S:g} s")
    finally:
        answer.cancel()
        writer.close()


async def send(session: aiohttp.ClientSession, base_url: str, req: NoiseRequest, t: float,
               spec: NoiseSpec) -> dict[str, Any]:
    """One hostile request and what it got; never raises (a failure is its outcome)."""
    try:
        if req.kind == "slowloris":
            return await _slowloris(base_url, req, t, spec.slowloris_s)
        return await _post(session, base_url, req, t)
    except (aiohttp.ClientError, OSError, TimeoutError, ValueError) as exc:
        outcome = "no_answer" if isinstance(exc, TimeoutError) else "transport_error"
        return _outcome(req, t, outcome=outcome, detail=f"{type(exc).__name__}: {exc}"[:MESSAGE_CHARS])


async def _health(session: aiohttp.ClientSession, target: Target) -> int | None:
    try:
        async with session.get(join_url(target.base_url, "/health"),
                               timeout=aiohttp.ClientTimeout(total=deadlines.deadline("probe"))) as resp:
            return resp.status
    except (aiohttp.ClientError, OSError, TimeoutError):
        return None


async def run_noise(target: Target, spec: NoiseSpec, sink: MediaFixture | None) -> dict[str, Any]:
    """Sends ``spec``'s noise at its offsets from now and returns the record: the spec, the kinds skipped and why,
    each request's outcome, ``/health`` afterwards and the sink's fetch count."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as session:
        facts = await server_facts(session, target, sink.url if sink else None)
        sends, skipped = noise.plan(spec, facts)
        t0 = time.perf_counter()
        tasks = []
        for i, (offset, kind) in enumerate(sends):
            await asyncio.sleep(max(0.0, t0 + offset - time.perf_counter()))
            req = noise.request(kind, i, facts)
            tasks.append(asyncio.create_task(send(session, target.base_url, req, time.perf_counter() - t0, spec)))
        outcomes = list(await asyncio.gather(*tasks))
        health = await _health(session, target)
    return {"spec": spec.as_dict(), "skipped": skipped, "has_key": facts.has_key, "vision": facts.vision,
            "outcomes": outcomes, "health_status": health,
            "fetched": len(sink.requests) if sink else 0}


class NoiseBeside:
    """``with NoiseBeside(target, spec): <run the profile>``; afterwards ``record`` holds `run_noise`'s result.

    The noise starts when the block starts and ends within ``spec.duration_s`` plus the slowest answer; leaving the
    block waits for it (bounded) and stops the sink."""

    def __init__(self, target: Target, spec: NoiseSpec) -> None:
        check_loopback(target.base_url)
        self.target = target
        self.spec = spec
        self.record: dict[str, Any] | None = None
        self._error: BaseException | None = None
        self._sink: MediaFixture | None = None
        self._thread = threading.Thread(target=self._main, name="load-noise", daemon=True)

    def _main(self) -> None:
        try:
            self.record = asyncio.run(run_noise(self.target, self.spec, self._sink))
        except BaseException as exc:  # handed to the caller's thread by __exit__
            self._error = exc

    def __enter__(self) -> NoiseBeside:
        if set(self.spec.kinds) & set(noise.MEDIA_KINDS):
            self._sink = MediaFixture()
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        bound = (self.spec.duration_s + self.spec.slowloris_s + deadlines.deadline("exchange")
                 + 3 * deadlines.deadline("probe"))
        self._thread.join(timeout=bound)
        if self._sink is not None:
            self._sink.stop()
        if self._thread.is_alive():
            raise TimeoutError(f"the noise beside the run did not end within {bound:g} s")
        if self._error is not None:
            raise self._error
