"""Where a run's time went, from its output.xml: the slowest suite files and tests, and the time spent in suite
set-ups and tear-downs (where servers, fixtures and peers are started and stopped).

run.py prints `console_lines` before the closing line of every run and writes `write` 's ``durations.json``
next to output.xml. The suite-file times of that file are what ``--processes`` splits by (`balanced_groups`):
pabot's ``--chunk`` splits by count, and one slow suite file (the router's, the MCP one) then keeps one
process busy long after the other has finished.
"""

from __future__ import annotations

import heapq
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

FILE_NAME = "durations.json"
TOP = 10


@dataclass
class Durations:
    total_s: float = 0.0
    setup_s: float = 0.0  # suite set-ups and tear-downs, every level
    files: dict[str, float] = field(default_factory=dict)  # suite file (as robot names its source) -> seconds
    tests: dict[str, float] = field(default_factory=dict)  # test full name -> seconds
    serial: dict[str, float] = field(default_factory=dict)  # suite file -> seconds of its tests with a serial tag


def _seconds(item) -> float:
    return item.elapsed_time.total_seconds() if item else 0.0


def read(output_xml: str | Path, root: Path | None = None, serial_tags: tuple[str, ...] = ()) -> Durations:
    """The durations of the run ``output_xml`` records; suite files relative to ``root`` when under it; the
    time of tests tagged with one of ``serial_tags`` (those ``--processes`` runs alone) also per file."""
    from robot.api import ExecutionResult

    suite = ExecutionResult(str(output_xml)).suite
    found = Durations(total_s=_seconds(suite))
    _walk(suite, found, root, set(serial_tags))
    return found


def _walk(suite, found: Durations, root: Path | None, serial_tags: set[str]) -> None:
    found.setup_s += _seconds(suite.setup) + _seconds(suite.teardown)
    key = _relative(Path(suite.source), root) if suite.source and Path(suite.source).is_file() else None
    if key:
        found.files[key] = found.files.get(key, 0.0) + _seconds(suite)
    for test in suite.tests:
        found.tests[test.full_name] = _seconds(test)
        if key and serial_tags & set(test.tags):
            found.serial[key] = found.serial.get(key, 0.0) + _seconds(test)
    for child in suite.suites:
        _walk(child, found, root, serial_tags)


def _relative(path: Path, root: Path | None) -> str:
    try:
        return str(path.resolve().relative_to(root)) if root else str(path)
    except ValueError:
        return str(path)


def slowest(times: dict[str, float], top: int = TOP) -> list[tuple[str, float]]:
    return heapq.nlargest(top, times.items(), key=lambda item: item[1])


def console_lines(found: Durations, parts_s: dict[str, float] | None = None, pabot_s: float | None = None,
                  top: int = TOP) -> list[str]:
    """The run's time (with ``parts_s``, a ``--processes`` run's: its parallel and its serial part's robot times,
    one after the other; ``pabot_s``: what pabot's own start and merge add to the parallel part), the part spent
    in suite set-ups and tear-downs (added up over processes), and the ``top`` slowest files and tests."""
    share = found.setup_s / found.total_s if found.total_s and not parts_s else None
    pabot = f"; pabot's start and merge add {pabot_s:.1f} s" if pabot_s is not None else ""
    parts = f" ({', '.join(f'{name} part {s:.1f} s' for name, s in parts_s.items())}{pabot})" if parts_s else ""
    setups = f"{found.setup_s:.1f} s " + (f"({share:.0%}) of it" if share is not None else "of all processes")
    lines = [f"time: {found.total_s:.1f} s in robot{parts}, {setups} in suite set-ups "
             f"and tear-downs (servers and fixtures started and stopped)"]
    lines += [f"slowest suite files: {', '.join(f'{name} {s:.1f} s' for name, s in slowest(found.files, top))}"]
    lines += [f"slowest tests: {', '.join(f'{name} {s:.1f} s' for name, s in slowest(found.tests, top))}"]
    return lines


def write(found: Durations, directory: Path, name: str = FILE_NAME) -> Path:
    path = directory / name
    path.write_text(json.dumps(asdict(found), indent=1, sort_keys=True), encoding="utf-8")
    return path


def load(path: Path) -> Durations | None:
    """A ``durations.json`` of an earlier run; None when there is none or it cannot be read. Keys an older
    version wrote and this one does not know are left out."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Durations(**{key: value for key, value in data.items() if key in Durations.__dataclass_fields__})
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def remember(found: Durations, path: Path) -> None:
    """Adds this run's suite-file figures to the ones ``path`` keeps from earlier runs (a run of one suite file
    must not forget the others); the newest figure of a file wins. Suite files outside the checkout (absolute
    paths: a user's own suite, a pytest's temporary one) are not kept: ``--processes`` splits only the project's."""
    kept = load(path) or Durations()
    for name in ("files", "serial"):
        getattr(kept, name).update({k: v for k, v in getattr(found, name).items() if not Path(k).is_absolute()})
    for key in found.files:  # a file whose serial tests are gone must not keep their time
        if key not in found.serial:
            kept.serial.pop(key, None)
    kept.tests, kept.total_s, kept.setup_s = {}, 0.0, 0.0
    write(kept, path.parent, path.name)


def merged(base: Durations | None, newer: Durations | None) -> Durations | None:
    """``base``'s suite-file figures with ``newer``'s in their place where it has them."""
    if base is None or newer is None:
        return newer or base
    serial = {key: value for key, value in base.serial.items() if key not in newer.files}
    return Durations(files={**base.files, **newer.files}, serial={**serial, **newer.serial})


def parallel_weights(found: Durations) -> dict[str, float]:
    """Each suite file's time without its serial tests (``--processes`` runs those alone, after pabot)."""
    return {key: max(0.0, seconds - found.serial.get(key, 0.0)) for key, seconds in found.files.items()}


def balanced_groups(times: dict[str, float], groups: int) -> list[list[str]]:
    """``times``' keys in ``groups`` lists of about equal total time: longest first, each to the lightest list
    (the LPT rule, within 4/3 of the best split)."""
    loads = [(0.0, index) for index in range(groups)]
    chosen: list[list[str]] = [[] for _ in range(groups)]
    for key in sorted(times, key=lambda k: (-times[k], k)):
        total, index = heapq.heappop(loads)
        chosen[index].append(key)
        heapq.heappush(loads, (total + times[key], index))
    return [group for group in chosen if group]


def suite_name(path: Path, top: Path) -> str:
    """The full name robot gives the suite file ``path`` in a run of the folder ``top`` (``Suites.Router.Router
    Lru``). It is worked out from the path, not kept from a run: a run of other paths names its root otherwise."""
    from robot.running import TestSuite

    parts = path.relative_to(top.parent).parts
    return ".".join(TestSuite.name_from_source(Path(*parts[:end])) for end in range(1, len(parts) + 1))


def selected_files(top: Path, options: dict) -> set[Path]:
    """The suite files under ``top`` with a test that robot's selection ``options`` (as robot's parser gives
    them: include, exclude, test, suite) keeps. A file of the figures without one must not weigh on a group."""
    from robot.errors import DataError
    from robot.running import TestSuiteBuilder

    suite = TestSuiteBuilder(included_extensions=("robot",)).build(str(top))
    try:
        suite.configure(include_tags=options.get("include"), exclude_tags=options.get("exclude"),
                        include_tests=options.get("test"), include_suites=options.get("suite"))
    except DataError:  # robot's "contains no tests matching": nothing to run
        return set()
    return {Path(test.source).resolve() for test in suite.all_tests}


def by_folder(weights: dict[str, float], groups: int) -> dict[tuple[str, ...], float]:
    """Suite files as units of the split: a folder's files together, so that one process pays what they share
    (the SDK suites import the openai and anthropic SDKs, 2 s of CPU, once per process); a folder that weighs
    over half of a group's share is split into its files, which the balance needs."""
    share = sum(weights.values()) / max(groups, 1) / 2
    folders: dict[str, list[str]] = {}
    for key in sorted(weights):
        folders.setdefault(str(Path(key).parent), []).append(key)
    units: dict[tuple[str, ...], float] = {}
    for keys in folders.values():
        total = sum(weights[key] for key in keys)
        units.update({tuple(keys): total} if total <= share else {(key,): weights[key] for key in keys})
    return units


def pabot_ordering(found: Durations, groups: int, root: Path, top: Path, selected: set[Path]) -> str:
    """A pabot ``--ordering`` file's text for a run of the folder ``top``: the ``selected`` suite files the
    figures know (keys relative to ``root``) in ``groups`` balanced groups of `by_folder` units, each group run
    in one robot process (``{`` ... ``}``). Selected files the figures do not know are left out: pabot runs
    them after."""
    weights = {key: seconds for key, seconds in parallel_weights(found).items() if (root / key).resolve() in selected}
    lines: list[str] = []
    for group in balanced_groups(by_folder(weights, groups), groups):
        files = [key for unit in group for key in unit]
        lines += ["{", *(f"--suite {suite_name((root / key).resolve(), top.resolve())}" for key in files), "}"]
    return "\n".join(lines) + "\n"
