"""Foundation benchmarks: tiny-model server start time and generation speed.

Run inside the project venv after set-up:

    .venv/bin/python tests/benchmark.py [--starts 10] [--tokens 4000]

Prints one line per figure (median and range). The README keeps the figures; nothing here
is a pass/fail test.
"""

from __future__ import annotations

import argparse
import statistics
import time

import requests

from LlamaServerLibrary import LlamaServerLibrary


def describe(name: str, values: list[float], unit: str) -> str:
    return (f"{name}: median {statistics.median(values):.3f} {unit} "
            f"(min {min(values):.3f}, max {max(values):.3f}, n={len(values)})")


def start_times(servers: LlamaServerLibrary, count: int) -> list[float]:
    """Seconds from spawn to the first /health 200, over `count` fresh starts."""
    times = []
    for _ in range(count):
        servers.start_preset_server("tiny-1-slot", alias="bench")
        times.append(servers.server_start_seconds("bench"))
        servers.stop_llama_server("bench")
    return times


def generation_speed(servers: LlamaServerLibrary, tokens: int, runs: int, flags: tuple = ()) -> tuple[list, list]:
    """(server-reported predicted tokens/s, client wall-clock tokens/s) on one slot."""
    url = servers.start_preset_server("tiny-1-slot", *flags, n_ctx=tokens + 64, alias="bench")
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
        servers.stop_llama_server("bench")
    return reported, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10, help="server starts to time")
    parser.add_argument("--tokens", type=int, default=4000, help="tokens per generation run")
    parser.add_argument("--runs", type=int, default=5, help="generation runs")
    args = parser.parse_args()
    servers = LlamaServerLibrary()
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
        servers.close()


if __name__ == "__main__":
    main()
