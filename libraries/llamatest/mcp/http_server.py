"""Our echo MCP server over streamable HTTP on 127.0.0.1, in a thread, counting the requests it gets.

It is the same SDK server the stdio fixture runs; llama-server's config can name it by ``url`` (the way
Cursor declares a remote server), and the count shows whether llama-server ever contacted it."""

import asyncio
import importlib.util
import json
import socket
import threading
import time

import uvicorn

from llamatest import deadlines
from llamatest.streaming.sse import data_lines

from .config import SERVERS

POLL_S = 0.05  # between two looks at whether uvicorn has started


def _echo_server():
    spec = importlib.util.spec_from_file_location("llamatest_mcp_echo", SERVERS / "echo_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.server


def json_rpc_reply(body: str):
    """The JSON-RPC reply of a streamable-HTTP answer ``body``: the JSON of its first ``data:`` line when it is an
    event stream, else the whole body as JSON."""
    events = data_lines(body, "data:")
    return json.loads(events[0] if events else body)


class HttpMcpServer:
    """The echo MCP server at ``url`` (``http://127.0.0.1:PORT/mcp``); ``requests`` counts HTTP requests."""

    def __init__(self) -> None:
        self.requests = 0
        self.url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    async def _counting(self, app, scope, receive, send):
        if scope["type"] == "http":
            self.requests += 1
        await app(scope, receive, send)

    def start(self) -> str:
        """Starts serving on a free loopback port and returns the URL once it accepts connections."""
        app = _echo_server().streamable_http_app()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(lambda s, r, w: self._counting(app, s, r, w), log_level="warning",
                                lifespan="on", interface="asgi3")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(self._server.serve(sockets=[sock])),
                                        name="http-mcp", daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{port}/mcp"
        self._wait_started()
        return self.url

    def _wait_started(self) -> None:
        seconds = deadlines.deadline("fixture")
        end = time.monotonic() + seconds
        while not self._server.started and time.monotonic() < end:
            self._thread.join(POLL_S)
        if not self._server.started:
            raise RuntimeError(f"the HTTP MCP server did not start within {seconds:g} s ({self.url})")

    def stop(self) -> None:
        """Stops serving and joins the thread (bounded)."""
        if self._server is not None:
            self._server.should_exit = True
            self._thread.join(deadlines.deadline("mcp_stop"))
            self._server = None
