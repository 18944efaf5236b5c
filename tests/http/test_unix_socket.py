"""llamatest.http.unix_socket against a local HTTP server on a Unix socket."""

from __future__ import annotations

import http.server
import json
import socketserver
import threading

import pytest

from llamatest.http import unix_socket


class _Echo(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        answer = json.dumps({"path": self.path, "body": json.loads(body)}).encode()
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def address_string(self):  # a Unix peer has no (host, port)
        return "unix"

    def log_message(self, *args):
        pass


class _UnixHttpServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


@pytest.fixture
def socket_path(tmp_path):
    path = str(tmp_path / "echo.sock")
    server = _UnixHttpServer(path, _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield path
    server.shutdown()
    server.server_close()


def test_a_json_body_goes_over_the_socket_and_the_answer_comes_back(socket_path):
    resp = unix_socket.request(socket_path, "POST", "/completion", {"prompt": "x"}, timeout=5)
    assert (resp.status, resp.json, resp.headers["content-type"]) == (
        201, {"path": "/completion", "body": {"prompt": "x"}}, "application/json")
    assert resp.where == "POST /completion"


def test_a_missing_socket_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        unix_socket.request(str(tmp_path / "none.sock"), "GET", "/health", timeout=5)
