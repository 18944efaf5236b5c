"""Flake count: the default run N times in a row, optionally beside CPU hogs, and what each run ended with.

    .venv/bin/python benchmarks/flake_count.py --runs 10
    .venv/bin/python benchmarks/flake_count.py --runs 3 --hogs 2

Each run is ``python3 run.py -d DIR/run-K`` (robot options after ``--`` are passed on). The hogs are busy
loops (``while True: pass``), started before the first run and killed after the last one (and when this
script is interrupted), never outliving it. It prints one line per run (its closing line, wall time, robot's
time, the failed and skipped tests with their messages' first line) and a total with robot's lowest, median and
highest time (issue 27's targets); it exits 1 when any run failed.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLOSING = re.compile(r"^robot: (\d+) passed, (\d+) failed, (\d+) skipped$", re.M)
ROBOT_TIME = re.compile(r"^\[run\.py\] time: ([\d.]+) s in robot", re.M)  # issue 27's measure
HOG = "while True: pass"


def not_passed(output_xml: Path) -> list[str]:
    from robot.api import ExecutionResult

    rows: list[str] = []

    def walk(suite) -> None:
        rows.extend(f"{t.status} {t.name}: {t.message.splitlines()[0][:200] if t.message else ''}"
                    for t in suite.tests if t.status != "PASS")
        for child in suite.suites:
            walk(child)

    walk(ExecutionResult(str(output_xml)).suite)
    return rows


def one_run(k: int, outdir: Path, robot_args: list[str], timeout: float) -> tuple[tuple[int, int, int] | None, float,
                                                                                 float | None]:
    start = time.monotonic()
    proc = subprocess.run([sys.executable, str(ROOT / "run.py"), "-d", str(outdir), *robot_args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    took = time.monotonic() - start
    found = CLOSING.findall(proc.stdout)
    counts = tuple(int(x) for x in found[-1]) if found else None
    said = "robot: {} passed, {} failed, {} skipped".format(*counts) if counts else f"no closing line: " \
        f"{proc.stdout[-300:]!r}"
    timed = ROBOT_TIME.findall(proc.stdout)
    robot_s = float(timed[-1]) if timed else None
    in_robot = f" ({robot_s:.1f} s in robot)" if robot_s is not None else ""
    print(f"run {k}: {said} in {took:.0f} s{in_robot}", flush=True)
    if (outdir / "output.xml").exists():
        for row in not_passed(outdir / "output.xml"):
            print(f"    {row}", flush=True)
    return counts, took, robot_s


def robot_span(times: list[float]) -> str:
    """Robot's time over the runs that gave one: lowest, median and highest."""
    if not times:
        return "no robot time"
    return f"robot {min(times):.1f}-{max(times):.1f} s (median {statistics.median(times):.1f})"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--hogs", type=int, default=0, help="busy loops beside the runs")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per run")
    parser.add_argument("--outdir", type=Path, default=None)
    parser.add_argument("robot_args", nargs="*")
    args = parser.parse_args(argv)
    outdir = args.outdir or Path(tempfile.mkdtemp(prefix="llamatest-flakes-"))
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hogs)]
    totals, failed_runs, walls, robot_times = [0, 0, 0], 0, [], []
    try:
        for k in range(1, args.runs + 1):
            counts, took, robot_s = one_run(k, outdir / f"run-{k}", args.robot_args, args.timeout)
            walls.append(took)
            robot_times += [robot_s] if robot_s is not None else []
            if counts is None or counts[1]:
                failed_runs += 1
            for i, n in enumerate(counts or (0, 0, 0)):
                totals[i] += n
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait(timeout=10)
    print(f"{args.runs} runs with {args.hogs} hog(s): {failed_runs} run(s) with failures; tests "
          f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped; wall {min(walls):.0f}-{max(walls):.0f} s; "
          f"{robot_span(robot_times)}; outputs in {outdir}")
    return 1 if failed_runs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
