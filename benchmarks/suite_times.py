"""Where the default run's time goes, per suite folder: from the durations.json a run leaves next to its output.xml.

    python3 run.py && .venv/bin/python benchmarks/suite_times.py              # results/durations.json
    .venv/bin/python benchmarks/suite_times.py /tmp/flakes/quiet/run-7/durations.json

Prints robot's total, the part in suite set-ups and tear-downs, and each suite folder's seconds, slowest first
(the figures docs/numbers.md keeps).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "libraries"))

from llamatest.report import durations  # noqa: E402


def folders(found: durations.Durations) -> list[tuple[str, float]]:
    """Seconds per suite folder (the folder under suites/ a file lies in), slowest first."""
    per: dict[str, float] = defaultdict(float)
    for path, seconds in found.files.items():
        parts = Path(path).parts
        per[parts[1] if len(parts) > 2 and parts[0] == "suites" else str(Path(path).parent)] += seconds
    return sorted(per.items(), key=lambda item: -item[1])


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else ROOT / "results" / durations.FILE_NAME
    found = durations.load(path)
    if found is None:
        print(f"{path}: no durations.json there; run python3 run.py first, or name one", file=sys.stderr)
        return 2
    print(f"robot {found.total_s:.1f} s, suite set-ups and tear-downs {found.setup_s:.1f} s")
    for folder, seconds in folders(found):
        print(f"{seconds:7.1f} s  {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
