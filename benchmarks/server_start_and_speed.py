"""Foundation benchmarks: tiny-model server start time and generation speed.

Run inside the project venv after set-up:

    .venv/bin/python benchmarks/server_start_and_speed.py [--starts 10] [--tokens 4000]

Prints one line per figure (median and range). docs/numbers.md keeps the figures; nothing here
is a pass/fail test.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import requests

from llamatest.models.catalog import resolve_model
from llamatest.server.presets import preset
from llamatest.server.process import ServerPool

OUTPUT = Path(tempfile.gettempdir()) / "llamatest-benchmark"


def describe(name: str, values: list[float], unit: str) -> str:
    return (f"{name}: median {statistics.median(values):.3f} {unit} "
            f"(min {min(values):.3f}, max {max(values):.3f}, n={len(values)})")


def start_bench(servers: ServerPool, flags: tuple = (), **options):
    """The tiny-1-slot preset's server, with options and flags added."""
    chosen = preset("tiny-1-slot").with_options(**options)
    return servers.start(resolve_model(chosen.model), [*chosen.args(), *flags], alias="bench", output_dir=OUTPUT)


def start_times(servers: ServerPool, count: int) -> list[float]:
    """Seconds from spawn to the first /health 200, over `count` fresh starts."""
    times = []
    for _ in range(count):
        times.append(start_bench(servers).started_s)
        servers.stop("bench")
    return times


def generation_speed(servers: ServerPool, tokens: int, runs: int, flags: tuple = ()) -> tuple[list, list]:
    """(server-reported predicted tokens/s, client wall-clock tokens/s) on one slot."""
    url = start_bench(servers, flags, n_ctx=tokens + 64).url
    reported, wall = [], []
    try:
        for _ in range(runs):
            body = {"prompt": "hello", "n_predict": tokens, "temperature": 0, "cache_prompt": False}
            started = time.perf_counter()
            out = requests.post(url + "/completion", json=body, timeout=120).json()
            elapsed = time.perf_counter() - started
            reported.append(out["timings"]["predicted_per_second"])
            wall.append(out["tokens_predicted"] / elapsed)
    finally:
        servers.stop("bench")
    return reported, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10, help="server starts to time")
    parser.add_argument("--tokens", type=int, default=4000, help="tokens per generation run")
    parser.add_argument("--runs", type=int, default=5, help="generation runs")
    args = parser.parse_args()
    servers = ServerPool()
    OUTPUT.mkdir(exist_ok=True)
    try:
        print(describe("tiny server start to ready", start_times(servers, args.starts), "s"))
        # Flash attention is on by default ("auto"); on tiny shapes it is the slower kernel.
        for tokens in (500, args.tokens):
            for flags in ((), ("--flash-attn", "off")):
                reported, wall = generation_speed(servers, tokens, args.runs, flags)
                label = f"tiny generation, {tokens} tokens, 1 slot, flags [{' '.join(flags)}]"
                print(describe(f"{label}, server timings", reported, "tok/s"))
                print(describe(f"{label}, client wall clock", wall, "tok/s"))
    finally:
        servers.stop_all()


if __name__ == "__main__":
    main()
