"""How long the multi-user suite's requests must be: how much two requests sent at once overlap on two slots,
and whether six long requests dispatched in order keep a queue, for each generation length.

Run inside the project venv after set-up (quiet, then beside CPU hogs to see what a busy machine spoils):

    .venv/bin/python benchmarks/multi_user_overlap.py [--lengths 32,64,128,256,1900] [--runs 5] [--queued 0]

For each length and shape it sends the batch the suite sends (`run_batch`, the 5 ms /slots and /metrics
sampler) against the `tiny-2-slots-metrics` preset (``--preset``) and prints the medians and worst cases of what the
suite's checks read (six in order: all of each length, or the four that wait of ``--queued``): the skew
between the first two sends, the time both slots were busy (server side, from the slot samples), the /slots
samples showing both busy, the /metrics busy slots per decode, the wall time, and how many runs the suite's
own checks passed (`all_slots_were_busy`; for six in order `requests_were_deferred` and `served_in_order`),
with the reason of the first that did not, and the cores other processes used meanwhile. Nothing here is a
pass/fail test.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from llamatest import machine
from llamatest.concurrency import checks
from llamatest.concurrency.batch import Batch, Options, run_batch
from llamatest.concurrency.bodies import build_bodies, route_path
from llamatest.models.catalog import resolve_model
from llamatest.server.presets import preset
from llamatest.server.process import ServerPool

OUTPUT = Path(tempfile.gettempdir()) / "llamatest-benchmark"
TWO = ["Once upon a time, in a village at the edge of a great forest", "The committee met on a rainy Tuesday"]
SIX = ["first user", "second user", "third user", "fourth user", "fifth user", "sixth user"]
SHAPES = {  # name: (route, stream, prompts, dispatch, checks)
    "two streamed": ("native", True, TWO, "together", (checks.all_slots_were_busy,)),
    "two plain": ("native", False, TWO, "together", (checks.all_slots_were_busy,)),
    "two chat streamed": ("chat", True, TWO, "together", (checks.all_slots_were_busy,)),
    "six together": ("native", True, SIX, "together", (checks.requests_were_deferred,)),
    "six in order": ("native", True, SIX, "in_order", (checks.requests_were_deferred, checks.served_in_order)),
}


def both_busy_s(batch: Batch) -> float:
    """Seconds from the first to the last /slots sample that showed every slot busy (0 when none did)."""
    busy = [s.t for s in batch.timeline.slots if s.all_busy]
    return busy[-1] - busy[0] if busy else 0.0


def verdict(batch: Batch, shape: str) -> str:
    """``pass``, or the first check's failure (``not judged`` when the machine spoiled it)."""
    for check in SHAPES[shape][4]:
        try:
            check(batch)
        except machine.NotJudged as exc:
            return f"not judged: {str(exc)[:300]}"
        except AssertionError as exc:
            return f"fail: {str(exc)[:300]}"
    return "pass"


async def one_batch(url: str, shape: str, n: int, queued: int) -> Batch:
    """The shape's batch; six in order with ``queued``: ``n`` tokens for the first two, ``queued`` for the others."""
    route, stream, prompts, dispatch, _ = SHAPES[shape]
    lengths = [n, n] + [queued] * 4 if dispatch == "in_order" and queued else [n]
    bodies = build_bodies(route, prompts, stream=stream, n_predicts=lengths)
    return await run_batch(url, route_path(route), bodies, Options(metrics=True, dispatch=dispatch))


def describe(shape: str, n: int, batches: list[Batch]) -> str:
    skews = [abs(b.timeline.requests[1].sent - b.timeline.requests[0].sent) * 1000 for b in batches]
    busy = [both_busy_s(b) * 1000 for b in batches]
    samples = [sum(s.all_busy for s in b.timeline.slots) for b in batches]
    per_decode = [b.timeline.batch_busy_slots_per_decode() or 0.0 for b in batches]
    walls = [b.wall_s for b in batches]
    verdicts = [verdict(b, shape) for b in batches]
    passed = verdicts.count("pass")
    other = next((v for v in verdicts if v != "pass"), "")
    return (f"{shape:18} n={n:5}: wall {statistics.median(walls):.2f} s (max {max(walls):.2f}); send skew "
            f"{statistics.median(skews):.1f} ms (max {max(skews):.1f}); both busy {statistics.median(busy):.0f} ms "
            f"(min {min(busy):.0f}) in {min(samples)}-{max(samples)} samples; busy slots/decode "
            f"{min(per_decode):.3f}-{max(per_decode):.3f}; checks passed {passed}/{len(batches)} {other[:300]}")


async def measure(url: str, shapes: list[str], lengths: list[int], runs: int, queued: int) -> None:
    monitor = machine.monitor()  # the sampler the checks' not-judged verdicts read
    for shape in shapes:
        for n in lengths:
            start = time.monotonic()
            batches = [await one_batch(url, shape, n, queued) for _ in range(runs)]
            share = monitor.share_since(start)
            print(f"{describe(shape, n, batches)}; others {share.cores:.2f} cores, ours {share.ours:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="32,64,128,256,1900", help="n_predict values, comma-separated")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated, of: {', '.join(SHAPES)}")
    parser.add_argument("--runs", type=int, default=5, help="batches per length and shape")
    parser.add_argument("--preset", default="tiny-2-slots-metrics",
                        help="a preset with two slots and --metrics (tiny-2-slots-context-shift: the context shift "
                             "suite)")
    parser.add_argument("--queued", type=int, default=0,
                        help="six in order: n_predict of the four that wait (0: as the first two)")
    args = parser.parse_args()
    OUTPUT.mkdir(exist_ok=True)
    servers = ServerPool()
    chosen = preset(args.preset)
    try:
        url = servers.start(resolve_model(chosen.model), chosen.args(), alias="bench", output_dir=OUTPUT).url
        asyncio.run(measure(url, args.shapes.split(","), [int(n) for n in args.lengths.split(",")],
                            args.runs, args.queued))
    finally:
        servers.stop_all()


if __name__ == "__main__":
    main()
