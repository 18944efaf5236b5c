"""The concurrent keyword's own CPU time per chunk, with 64 streams open at once.

Runs ``run_batch`` (the engine of ``Send Concurrent Completions``) against a server in another
process, so that only the client's CPU is counted (``time.process_time()`` of this process: the event
loop reading and parsing every stream, and the slot sampler's thread). By default the server is the
fake multi-slot llama-server of the unit tests, started in a subprocess; ``--url`` measures against a
running llama-server instead (start it with ``--parallel 64`` or more for 64 streams at once).

    .venv/bin/python benchmarks/concurrent_keyword_cpu.py
    .venv/bin/python benchmarks/concurrent_keyword_cpu.py --url http://127.0.0.1:8080 --tokens 200
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import requests

from llamatest.concurrency.batch import Options, run_batch
from llamatest.concurrency.bodies import build_bodies

ROOT = Path(__file__).resolve().parents[1]
FAKE_SERVER = """
import sys
from aiohttp import web
from tests.fixtures import fake_llama_slots
app = web.Application()
fake_llama_slots.add_routes(app)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, handler_cancellation=True)
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_fake() -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", FAKE_SERVER, str(port)], cwd=ROOT)
    url = f"http://127.0.0.1:{port}/fake/{uuid.uuid4().hex}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            requests.get(url + "/slots", timeout=1)
            return proc, url
        except requests.ConnectionError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the fake server did not start within 20 s")


def peak_open(batch) -> int:
    """The most streams open at one moment, from each request's start and end."""
    marks = sorted([(r.t0, 1) for r in batch.results] + [(r.t0 + (r.t_end or 0), -1) for r in batch.results])
    peak = current = 0
    for _, step in marks:
        current += step
        peak = max(peak, current)
    return peak


def measure(url: str, streams: int, tokens: int, watch: bool, fake: bool) -> str:
    fields = {"n_predict": tokens}
    if fake:
        fields |= {"mock_slots": streams, "mock_pause": 0.004}
    bodies = build_bodies("native", [f"user {i}" for i in range(streams)], fields=fields)
    cpu, wall = time.process_time(), time.perf_counter()
    batch = asyncio.run(run_batch(url, "/completion", bodies, Options(watch=watch, timeout=120, settle=2)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    events = sum(len(r.events) for r in batch.results)
    failed = sum(1 for r in batch.results if r.error or r.status != 200)
    samples = len(batch.timeline.slots) if batch.timeline else 0
    return (f"{streams} streams (peak {peak_open(batch)} open at once), {events} chunks, {failed} failed, "
            f"sampler {'on' if watch else 'off'} ({samples} slot samples): {wall:.2f} s wall, {cpu:.3f} s CPU, "
            f"{cpu / max(events, 1) * 1e6:.1f} µs CPU per chunk")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running llama-server (default: the fake server in a subprocess)")
    parser.add_argument("--streams", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=200, help="chunks per stream")
    args = parser.parse_args()
    proc = None
    url = args.url
    if url is None:
        proc, url = start_fake()
    try:
        for watch in (False, True):
            print(measure(url, args.streams, args.tokens, watch, fake=proc is not None))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
