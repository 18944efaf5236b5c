"""The load smoke's event-loop lag: the two-user run of suites/21__load/smoke.robot, N times, and why a gap ran late.

Run inside the project venv after set-up, on a quiet machine:

    .venv/bin/python benchmarks/load_smoke_lag.py [--runs 10] [--threads all]

Each run is the smoke's first test through the same path as the keyword (``Plan.run``, so
``pacing.run_load_sync``): 2 users, 100 requests after 2 warm-up ones, 48-token prompts, 32 tokens, against the
``tiny-load`` preset (``--threads all`` drops its ``--threads``: the server takes every core, as before the preset
left the client one). The machine monitor's thread runs, as in Robot. Per run: the loop-lag percentiles the
client_bound flag reads, and every 10-ms sleep that woke more than 10 ms late with the loop thread's own CPU time
and involuntary context switches meanwhile: a gap with little CPU and many switches is a preempted loop (another
process held the cores), a gap whose CPU time is the lag is a callback that blocked it. Nothing here is a
pass/fail test.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from llamatest import machine
from llamatest.load.engine import watchers
from llamatest.load.engine.client import RunState, Target
from llamatest.load.engine.profiles import Profile
from llamatest.load.pipeline import Plan
from llamatest.load.workloads.datasets import Dataset, fixed_length_prompts
from llamatest.models.catalog import resolve_model
from llamatest.server.presets import preset
from llamatest.server.process import ServerPool

OUTPUT = Path(tempfile.gettempdir()) / "llamatest-benchmark"
LATE_S = 0.010  # a gap this late is listed with its CPU time and context switches
GAPS: list[tuple[float, float, float, int]] = []  # (t, lag, loop CPU, involuntary switches) of the current run


async def traced_lag_monitor(run: RunState, out: list[tuple[float, float]]) -> None:
    """``watchers.lag_monitor`` plus the loop thread's CPU time and involuntary switches over each sleep."""
    perf = time.perf_counter
    while True:
        expected = perf() + watchers.LAG_INTERVAL_S
        cpu, switches = time.thread_time(), resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
        await asyncio.sleep(watchers.LAG_INTERVAL_S)
        t = perf()
        lag = max(0.0, t - expected)
        out.append((t - run.t0, lag))
        GAPS.append((t - run.t0, lag, time.thread_time() - cpu,
                     resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw - switches))


def one_run(plan: Plan) -> float:
    """One two-user run; prints its figures and returns its loop-lag p99 in ms."""
    GAPS.clear()
    run = plan.run(Profile(kind="concurrency", users=2, duration_s=6, max_requests=100, warmup_requests=2))
    lags = np.array([lag * 1000.0 for _, lag in run.loop_lag])
    p50, p90, p99 = np.percentile(lags, [50, 90, 99])
    late = [f"{t:.2f} s {lag * 1e3:.1f} ms (cpu {cpu * 1e3:.1f} ms, {n} switches)" for t, lag, cpu, n in GAPS
            if lag > LATE_S]
    share = run.meta["machine"]
    print(f"n={len(lags)} p50 {p50:.2f} p90 {p90:.2f} p99 {p99:.2f} max {lags.max():.2f} ms; window "
          f"{run.window[1] - run.window[0]:.2f} s; own cores {share['own_cores']}, others {share['other_cores']}",
          flush=True)
    print(f"  late gaps: {'; '.join(late) or 'none'}", flush=True)
    return float(p99)


def server_args(threads: str) -> list[str]:
    args = preset("tiny-load").args()
    if threads == "preset":
        return args
    at = args.index("--threads")
    rest = args[:at] + args[at + 2:]
    return rest if threads == "all" else rest + ["--threads", threads]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", default="preset", help="'preset', 'all' (llama-server's default) or a number")
    args = parser.parse_args()
    OUTPUT.mkdir(exist_ok=True)
    watchers.lag_monitor = traced_lag_monitor  # pacing looks it up at each run
    machine.monitor()
    servers = ServerPool()
    try:
        url = servers.start(resolve_model(preset("tiny-load").model), server_args(args.threads), alias="bench",
                            output_dir=OUTPUT).url
        prompts = fixed_length_prompts(url, 40, 48, route="/v1/chat/completions")
        plan = Plan(name="bench", target=Target(base_url=url, route="/v1/chat/completions"),
                    dataset=Dataset("fixed-48-tokens", tuple(prompts), {}), max_tokens=32)
        p99s = np.array([one_run(plan) for _ in range(args.runs)])
        print(f"loop-lag p99 per run: {' '.join(f'{x:.1f}' for x in sorted(p99s))} ms; median "
              f"{np.median(p99s):.1f}, over the 20 ms limit in {int((p99s > 20).sum())} of {len(p99s)}")
    finally:
        servers.stop_all()


if __name__ == "__main__":
    main()
