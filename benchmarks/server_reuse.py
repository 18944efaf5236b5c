"""What keeping servers across suite files could save: the suite set-ups and tear-downs of a run, grouped by the
set-up call that starts each suite file's servers (keyword and arguments).

    python3 run.py && .venv/bin/python benchmarks/server_reuse.py               # results/output.xml
    .venv/bin/python benchmarks/server_reuse.py /tmp/ciclone/results/output.xml

Two bounds, both generous (they count a kept server as free, with no reset or check between files):
- *consecutive*: a suite file whose set-up call is the one of the file run just before it keeps that file's
  servers, so its set-up and the previous file's tear-down are saved;
- *any*: a pool that keeps every server for the whole run, so every repeated set-up call and its tear-down are saved.
Prints the run's set-up and tear-down seconds, both bounds, and the ten costliest set-ups (what starting less
would have to address instead: calibrations and fixtures rather than llama-server's own start).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class SuiteStart:
    source: str
    call: tuple[str, ...]  # the set-up keyword's name and arguments ("" for a file without a set-up)
    setup_s: float
    teardown_s: float


def starts(output_xml: Path) -> list[SuiteStart]:
    """The suite files of the run, in run order, with their set-up calls and times."""
    from robot.api import ExecutionResult

    found: list[SuiteStart] = []

    def walk(suite) -> None:
        if suite.source and Path(suite.source).is_file():
            setup = suite.setup
            call = (setup.name, *map(str, setup.args)) if setup else ("",)
            found.append(SuiteStart(str(suite.source), call, _seconds(setup), _seconds(suite.teardown)))
        for child in suite.suites:
            walk(child)

    walk(ExecutionResult(str(output_xml)).suite)
    return found


def _seconds(item) -> float:
    return item.elapsed_time.total_seconds() if item else 0.0


def _shown(source: str) -> str:
    path = Path(source)
    return str(path.relative_to(ROOT)) if ROOT in path.parents else source


def bounds(found: list[SuiteStart]) -> tuple[tuple[int, float], tuple[int, float]]:
    """``((files, seconds) saved by consecutive reuse, (files, seconds) saved by a run-long pool)``."""
    consecutive = [(b.setup_s + a.teardown_s) for a, b in zip(found, found[1:], strict=False)
                   if b.call == a.call and b.call != ("",)]
    seen: set[tuple[str, ...]] = set()
    pooled = []
    for item in found:
        if item.call in seen:
            pooled.append(item.setup_s + item.teardown_s)
        elif item.call != ("",):
            seen.add(item.call)
    return (len(consecutive), sum(consecutive)), (len(pooled), sum(pooled))


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else ROOT / "results" / "output.xml"
    if not path.is_file():
        print(f"{path}: no output.xml there; run python3 run.py first, or name one", file=sys.stderr)
        return 2
    found = starts(path)
    (n_next, s_next), (n_any, s_any) = bounds(found)
    print(f"{len(found)} suite files: set-ups {sum(f.setup_s for f in found):.1f} s, "
          f"tear-downs {sum(f.teardown_s for f in found):.1f} s")
    print(f"kept for the next file with the same set-up: {n_next} files, at most {s_next:.1f} s saved")
    print(f"kept for the whole run: {n_any} files, at most {s_any:.1f} s saved")
    print("costliest set-ups:")
    for item in sorted(found, key=lambda f: -f.setup_s)[:10]:
        print(f"{item.setup_s:7.2f} s  {_shown(item.source)}  {' '.join(item.call)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
