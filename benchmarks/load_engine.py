"""Benchmark (not a test): what the load engine sustains on this machine against a null server.

    .venv/bin/python benchmarks/load_engine.py            # full: 1000 streams held 5 s; 300 req/s for 10 s
    .venv/bin/python benchmarks/load_engine.py --quick    # short: 1000 streams held 2 s; 300 req/s for 3 s

The null server runs in a process of its own (aiohttp) and answers every request with a short fixed SSE
stream, stamping ``time.perf_counter()`` just before each write; the client and the server share the
machine's monotonic clock, so "timing error" is the client's arrival time of each write minus the
server's stamp (it includes the kernel's loopback delivery and both event loops' scheduling).

Measurements:
(a) streams: a ``concurrency`` profile with ``--streams`` users against streams held open ``--hold`` seconds;
    reports the peak number of streams open at once (client records and the server's own count).
(b) rate: an open-loop ``constant`` profile at ``--rate`` req/s for ``--duration`` seconds; reports the
    achieved rate, dropped requests, the schedule lag p99 and the timing error p99.
Note: client and server share the machine's cores, so the figures are a lower bound for the client alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: ``tests`` is importable
from tests.fixtures.scripted_server import DONE, chat, serve_forever, start_process, usage  # noqa: E402

GAP_S = 0.005  # between the content writes of one stream
N_CONTENT = 4  # content writes after the first one


def _serve(conn) -> None:
    from aiohttp import web

    stamps: dict[str, list[float]] = {}
    state = {"open": 0, "peak": 0}
    role_and_first = (chat({"role": "assistant", "content": None}) + chat({"content": "a"})).encode()
    content = chat({"content": "b"}).encode()
    tail = (chat({}, "length") + usage(1 + N_CONTENT, prompt=1) + DONE).encode()

    async def complete(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        hold = float(body.get("hold_s", 0))
        mine: list[float] = []
        stamps[request.headers.get("x-request-id", "")] = mine
        state["open"] += 1
        state["peak"] = max(state["peak"], state["open"])
        try:
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)
            mine.append(time.perf_counter())
            await resp.write(role_and_first)
            if hold:
                await asyncio.sleep(hold)
            for _ in range(N_CONTENT):
                await asyncio.sleep(GAP_S)
                mine.append(time.perf_counter())
                await resp.write(content)
            mine.append(time.perf_counter())
            await resp.write(tail)
            await resp.write_eof()
            return resp
        finally:
            state["open"] -= 1

    async def get_stamps(request: web.Request) -> web.Response:
        out = {"stamps": stamps.copy(), "peak_open": state["peak"]}
        stamps.clear()
        state["peak"] = state["open"]
        return web.json_response(out)

    def make_app() -> web.Application:
        app = web.Application()
        app.router.add_get("/stamps", get_stamps)
        app.router.add_post("/v1/chat/completions", complete)
        return app

    _raise_nofile()
    serve_forever(make_app, conn, backlog=8192)


def _raise_nofile() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def start_null_server() -> tuple[str, multiprocessing.Process]:
    return start_process(_serve, "null SSE server")


def fetch_stamps(url: str) -> dict:
    with urllib.request.urlopen(url + "/stamps", timeout=30) as resp:
        return json.loads(resp.read())


def timing_errors_ms(record, server: dict, write: int | None = None) -> list[float]:
    """Client arrival of each server write minus its stamp, in ms. Write k of a stream starts with event
    index 0 (role + first token), then one event per content write, then finish + usage + done."""
    starts = [0] + [2 + j for j in range(N_CONTENT)] + [2 + N_CONTENT]
    out = []
    for r in record.requests:
        stamps = server["stamps"].get(r.request_id)
        if not r.ok or not stamps or len(r.events) != 2 + N_CONTENT + 3:
            continue
        for j, (k, t_write) in enumerate(zip(starts, stamps, strict=False)):
            if write is None or j == write:
                out.append((r.events[k].t + record.t0_perf - t_write) * 1000)
    return out


def pct(values, q) -> float:
    return float(np.percentile(np.asarray(values), q)) if len(values) else float("nan")


def peak_in_flight(requests) -> int:
    """Most requests open at once, dispatch to close (a request never closed stays open)."""
    from llamatest.load.analysis.metrics import concurrency

    return concurrency([(r.t_dispatched, r.t_closed if r.t_closed is not None else float("inf"))
                        for r in requests if r.t_dispatched is not None])[1]


def errors_of(requests) -> dict[str, int]:
    return dict(Counter(r.error for r in requests if r.error))


def bench_streams(url: str, n: int, hold: float, keep_alive: bool = False) -> dict:
    from llamatest.load.engine.client import Target
    from llamatest.load.engine.pacing import run_load_sync
    from llamatest.load.engine.profiles import Profile

    profile = Profile("concurrency", users=n, max_requests=n, duration_s=hold + 60, drain_timeout_s=30)
    target = Target(url, timeout_ttft_s=60, timeout_stall_s=hold + 30, keep_alive=keep_alive)
    started = time.perf_counter()
    record = run_load_sync(target, profile, lambda i: {"hold_s": hold, "max_tokens": 5}, telemetry=False)
    wall = time.perf_counter() - started
    server = fetch_stamps(url)
    errs = timing_errors_ms(record, server)
    lag = [x for _, x in record.loop_lag]
    dispatched = [r.t_dispatched for r in record.requests if r.t_dispatched is not None]
    return {"streams": n, "hold_s": hold, "peak_in_flight": peak_in_flight(record.requests),
            "server_peak_open": server["peak_open"], "ok": sum(r.ok for r in record.requests),
            "errors": errors_of(record.requests), "all_sent_within_s": max(dispatched) - min(dispatched),
            "timing_error_p50_ms": pct(errs, 50), "timing_error_p99_ms": pct(errs, 99),
            "timing_error_max_ms": max(errs) if errs else float("nan"),
            "loop_lag_p99_ms": pct(lag, 99) * 1000, "cpu_max_pct": max((c for _, c in record.cpu), default=0.0),
            "wall_s": wall,
            "timing_error_p50_p99_ms_by_write": [
                [round(pct(e, 50), 3), round(pct(e, 99), 3)]
                for e in (timing_errors_ms(record, server, j) for j in range(N_CONTENT + 2))],
            "server_write_spread_ms_by_write": [
                round((max(v[j] for v in server["stamps"].values()) - min(v[j] for v in server["stamps"].values()))
                      * 1000, 1) for j in range(N_CONTENT + 2)]}


def bench_rate(url: str, rate: float, duration: float, keep_alive: bool = False) -> dict:
    from llamatest.load.engine.client import Target
    from llamatest.load.engine.pacing import run_load_sync
    from llamatest.load.engine.profiles import Profile

    profile = Profile("rate", rate=rate, duration_s=duration, drain_timeout_s=30)
    record = run_load_sync(Target(url, keep_alive=keep_alive), profile, lambda i: {"hold_s": 0, "max_tokens": 5},
                           telemetry=False)
    server = fetch_stamps(url)
    w0, w1 = record.window
    measured = record.measured
    sent = [r for r in measured if r.t_dispatched is not None]
    in_window = [r for r in sent if w0 <= r.t_dispatched < w1]
    lag = [(r.t_dispatched - r.t_scheduled) * 1000 for r in sent]
    errs = timing_errors_ms(record, server)
    loop_lag = [x for _, x in record.loop_lag]
    return {"target_rate": rate, "duration_s": duration, "scheduled": len(measured), "sent": len(sent),
            "achieved_rate": len(in_window) / (w1 - w0), "dropped": sum(r.dropped for r in measured),
            "ok": sum(r.ok for r in measured), "errors": errors_of(measured),
            "schedule_lag_p50_ms": pct(lag, 50), "schedule_lag_p99_ms": pct(lag, 99),
            "timing_error_p50_ms": pct(errs, 50), "timing_error_p99_ms": pct(errs, 99),
            "timing_error_max_ms": max(errs) if errs else float("nan"), "timing_samples": len(errs),
            "loop_lag_p99_ms": pct(loop_lag, 99) * 1000,
            "timing_error_p50_p99_ms_by_write": [
                [round(pct(e, 50), 3), round(pct(e, 99), 3)]
                for e in (timing_errors_ms(record, server, j) for j in range(N_CONTENT + 2))],
            "cpu_max_pct": max((c for _, c in record.cpu), default=0.0)}


def table(rows: list[tuple[str, str, str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short run (streams held 2 s, rate for 3 s)")
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=None, help="seconds each stream is held open (default 5)")
    parser.add_argument("--rate", type=float, default=300.0)
    parser.add_argument("--duration", type=float, default=None, help="seconds of the rate run (default 10)")
    parser.add_argument("--keep-alive", action="store_true",
                        help="reuse connections (the engine's default is a new connection per request)")
    parser.add_argument("--json", action="store_true", help="also print the raw figures as JSON")
    args = parser.parse_args(argv)
    hold = args.hold if args.hold is not None else (2.0 if args.quick else 5.0)
    duration = args.duration if args.duration is not None else (3.0 if args.quick else 10.0)
    nofile = _raise_nofile()
    url, proc = start_null_server()
    try:
        streams = bench_streams(url, args.streams, hold, args.keep_alive)
        rate = bench_rate(url, args.rate, duration, args.keep_alive)
    finally:
        proc.terminate()
        proc.join(5)
    ok = "yes" if streams["peak_in_flight"] >= 1000 else "NO"
    rows = [("measurement", "figure", "target met"),
            (f"(a) concurrent open streams ({args.streams} users, held {hold:g} s)",
             f"peak {streams['peak_in_flight']} (server saw {streams['server_peak_open']}), "
             f"{streams['ok']} ok, errors {streams['errors'] or 0}", f"{ok} (>= 1000)"),
            ("(a) timing error p50 / p99 / max",
             f"{streams['timing_error_p50_ms']:.3f} / {streams['timing_error_p99_ms']:.3f} / "
             f"{streams['timing_error_max_ms']:.3f} ms", ""),
            (f"(b) open loop constant {args.rate:g} req/s, {duration:g} s",
             f"achieved {rate['achieved_rate']:.1f} req/s, {rate['ok']}/{rate['scheduled']} ok, "
             f"dropped {rate['dropped']}, errors {rate['errors'] or 0}",
             "yes" if rate["achieved_rate"] >= 0.99 * args.rate and not rate["errors"] else "NO"),
            ("(b) schedule lag p50 / p99", f"{rate['schedule_lag_p50_ms']:.3f} / {rate['schedule_lag_p99_ms']:.3f} ms",
             ""),
            ("(b) timing error p50 / p99 / max",
             f"{rate['timing_error_p50_ms']:.3f} / {rate['timing_error_p99_ms']:.3f} / "
             f"{rate['timing_error_max_ms']:.3f} ms ({rate['timing_samples']} writes)",
             "yes" if rate["timing_error_p99_ms"] < 1.0 else "NO"),
            ("(b) event-loop lag p99, client CPU max",
             f"{rate['loop_lag_p99_ms']:.2f} ms, {rate['cpu_max_pct']:.0f} %", "")]
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, open files limit {nofile}; "
          f"the null server shares the cores; {'keep-alive' if args.keep_alive else 'a new connection per request'}")
    print(table(rows))
    if args.json:
        print(json.dumps({"streams": streams, "rate": rate}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
