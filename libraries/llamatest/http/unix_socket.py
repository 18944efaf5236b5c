"""One HTTP exchange over a Unix domain socket (llama-server's ``--host PATH.sock``), stdlib only.

requests and aiohttp's default connectors speak TCP only; http.client needs just another ``connect``.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from urllib.parse import quote

from llamatest import deadlines
from llamatest.http.response import Response


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def request(path: str, method: str, url_path: str, body=None, headers: dict | None = None,
            timeout: float | None = None) -> Response:
    """Sends ``method url_path`` (a dict or list ``body`` as JSON) to the server listening on ``path``."""
    headers = dict(headers or {})
    payload = None
    if body is not None:
        payload = json.dumps(body).encode() if isinstance(body, (dict, list)) else str(body).encode()
        headers.setdefault("Content-Type", "application/json")
    connection = _UnixConnection(path, deadlines.or_default(timeout, "exchange"))
    started = time.monotonic()
    try:
        connection.request(method, url_path, body=payload, headers=headers)
        answer = connection.getresponse()
        text = answer.read().decode("utf-8", errors="replace")
    finally:
        connection.close()
    return Response(method=method, url=f"http+unix://{quote(path, safe='')}{url_path}", status=answer.status, text=text,
                    headers={name.lower(): value for name, value in answer.getheaders()},
                    elapsed=time.monotonic() - started)
