#!/usr/bin/env python3
"""A stand-in for llama-server, for the tests of the server handling (stdlib only, starts in ~50 ms).

Takes llama-server's command line (``--host``, ``--port``, ``--model``, ``--version``; other flags
are accepted and ignored) and serves ``GET /health`` (200 ``{"status": "ok"}``) and ``GET /props``
(``{"build_info": "b0-fake", "model_path": MODEL}``). Tests point ``LLAMA_SERVER_BIN`` at this file.

``FAKE_MODE`` chooses the behaviour:

- ``ok`` (default): logs like llama-server, exits 0 on SIGTERM.
- ``exit3-on-term``: exits 3 on SIGTERM.
- ``ignore-term``: ignores SIGTERM (only SIGKILL ends it).
- ``crash-at-start``: fails to load the model and exits 1 before listening.
- ``bind-fail-once``: the first start (no ``$FAKE_MARKER`` file yet) creates the marker, says it
  couldn't bind and exits 1; later starts work.
- ``never-ready``: listens, but ``/health`` answers 503 "Loading model" for ever.

A port that is really taken fails like llama-server too ("couldn't bind HTTP server socket").
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MODE = os.environ.get("FAKE_MODE", "ok")
TERM_EXIT_CODES = {"exit3-on-term": 3}  # any other mode exits 0


def say(line: str) -> None:
    print(line, flush=True)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("-m", "--model", default="")
    parser.add_argument("--version", action="store_true")
    args, _ = parser.parse_known_args()
    return args


class Handler(BaseHTTPRequestHandler):
    model = ""

    def do_GET(self):  # noqa: N802 - the name http.server calls
        if self.path == "/health" and MODE == "never-ready":
            self.answer(503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}})
        elif self.path == "/health":
            self.answer(200, {"status": "ok"})
        elif self.path == "/props":
            self.answer(200, {"build_info": "b0-fake", "model_path": self.model})
        else:
            self.answer(404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})

    def answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        say(f"srv  log_server_request: request: {self.command} {self.path} {self.client_address[0]} {args[1]}")


def on_term(signum, frame):
    say("srv    operator(): operator(): cleaning up before exit...")
    os._exit(TERM_EXIT_CODES.get(MODE, 0))


def main() -> int:
    args = parse_args()
    if args.version:
        say("version: 0 (fake)")
        say("built with fake-cc for fake-arch")
        return 0
    say("build: 0 (fake) with fake-cc for fake-arch")
    say(f"main: loading model '{args.model}'")
    if MODE == "crash-at-start":
        say(f"llama_model_load: error loading model: failed to read magic of '{args.model}'")
        say("main: exiting due to model loading error")
        return 1
    marker = Path(os.environ.get("FAKE_MARKER", "/nonexistent/fake-marker"))
    if MODE == "bind-fail-once" and not marker.exists():
        marker.touch()
        say(f"main: couldn't bind HTTP server socket, hostname: {args.host}, port: {args.port}")
        return 1
    try:
        httpd = ThreadingHTTPServer((args.host, args.port), Handler)
    except OSError:
        say(f"main: couldn't bind HTTP server socket, hostname: {args.host}, port: {args.port}")
        return 1
    Handler.model = args.model
    signal.signal(signal.SIGTERM, signal.SIG_IGN if MODE == "ignore-term" else on_term)
    say(f"main: server is listening on http://{args.host}:{args.port} - starting the main loop")
    httpd.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
