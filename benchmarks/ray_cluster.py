"""A constant rate from one process, then from two Ray workers on a two-node cluster of this machine, then again
with the second node killed mid-run: the timing error of each and what the lost run reported.

Run inside the project venv after set-up, on a quiet machine:

    .venv/bin/python benchmarks/ray_cluster.py [--rate 8] [--duration 15] [--lose-after 3]

It starts the ``tiny-load`` server and the cluster itself (``llamatest.load.engine.raycluster``: two nodes of one
CPU each) and stops both. Per run it prints the requests sent per Ray node, the lateness of each send against its
schedule (dispatched - scheduled, p50 / p99) and TTFT p50 / p95; for the node-loss run also how long the run took
against the profile's own length and the ``worker_lost`` flag's detail. Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

from llamatest.load.analysis.summary import summarize
from llamatest.load.engine import raycluster
from llamatest.load.engine.client import Target
from llamatest.load.engine.distributed import run_distributed
from llamatest.load.engine.pacing import run_load_sync
from llamatest.load.engine.profiles import Profile
from llamatest.load.output.textreport import fmt
from llamatest.load.workloads.datasets import body_maker, fixed_length_prompts
from llamatest.models.catalog import resolve_model
from llamatest.server.presets import preset
from llamatest.server.process import ServerPool

OUTPUT = Path(tempfile.gettempdir()) / "llamatest-benchmark"
ROUTE = "/v1/chat/completions"


def line(label: str, run, seconds: float) -> str:
    """Requests per node, schedule lateness and TTFT of ``run`` (``seconds``: the run's wall time)."""
    s = summarize(run)
    lag, ttft = s["client"]["schedule_lag_ms"], s["metrics"]["ttft_ms"]
    per_node = Counter()  # two workers on one node add up (what SPREAD should have prevented)
    for worker in run.workers:
        if worker.get("node_id"):
            per_node[str(worker["node_id"])[:12]] += worker.get("requests", 0)
    nodes = ", ".join(f"{node}: {n}" for node, n in sorted(per_node.items())) or f"this process: {len(run.requests)}"
    return (f"{label}: {s['counts']['succeeded']} of {s['counts']['attempted']} ok in {seconds:.1f} s; requests by "
            f"node {nodes}; lateness p50 {fmt(lag['p50'], 2)} / p99 {fmt(lag['p99'], 2)} ms; TTFT p50 "
            f"{fmt(ttft['p50'])} / p95 {fmt(ttft['p95'])} ms; worker_lost: {s['flags']['worker_lost']['detail']}")


def timed(call):
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


OPTIONS = (("--rate", 8.0, "requests/s of the constant rate"), ("--duration", 15.0, "seconds of each run"),
           ("--lose-after", 3.0, "seconds into its run the second node dies"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag, default, text in OPTIONS:
        parser.add_argument(flag, type=float, default=default, help=f"{text} (default {default:g})")
    args = parser.parse_args()
    OUTPUT.mkdir(exist_ok=True)
    servers = ServerPool()
    chosen = preset("tiny-load")
    url = servers.start(resolve_model(chosen.model), chosen.args(), alias="bench", output_dir=OUTPUT).url
    cluster = None
    try:
        spec = body_maker(fixed_length_prompts(url, 400, 48, route=ROUTE), route=ROUTE, max_tokens=16)
        target = Target(base_url=url, route=ROUTE)
        profile = Profile(kind="rate", rate=args.rate, arrival="constant", duration_s=args.duration, seed=1)
        run, took = timed(lambda: run_load_sync(target, profile, spec))
        print(line("one process", run, took))
        cluster, took = timed(lambda: raycluster.start_cluster(2))
        print(f"two-node cluster started in {took:.1f} s at {cluster.address}")
        sharded = lambda: run_distributed(target, profile, spec, workers=2, address=cluster.address)  # noqa: E731
        run, took = timed(sharded)
        print(line("two nodes", run, took))
        raycluster.lose_node_during_run(cluster, 1, args.lose_after)
        run, took = timed(sharded)
        print(line(f"node 1 lost {args.lose_after:g} s into its run", run, took))
        print(f"profile length {args.duration:g} s; the lost run took {took:.1f} s from the call (actors' start, "
              "clock rounds and the 1-s start lead included)")
    finally:
        if cluster is not None:
            print(f"cluster stopped: {raycluster.stop_cluster(cluster)}")
        servers.stop_all()


if __name__ == "__main__":
    main()
