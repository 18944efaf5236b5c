"""What the suites hold, read from the .robot files alone: no server, no set-up beyond Robot itself.

``run.py --list [TAG]`` prints it, so a newcomer sees which tests exist (and which the default run leaves
out) before writing one that is already there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ListedTest:
    suite_file: str  # relative to the folder listed from
    name: str
    tags: tuple[str, ...]
    excluded_by: tuple[str, ...]  # the default exclusions (selection.args) that leave it out


def collect(source: Path, default_excludes: Iterable[str], tag: str | None = None) -> list[ListedTest]:
    """Every test under ``source`` (with ``tag``: those whose tags match the pattern, as robot's --include)."""
    from robot.api import TestSuiteBuilder
    from robot.model import TagPatterns

    suite = TestSuiteBuilder(process_curdir=False).build(str(source))
    include = TagPatterns([tag]) if tag else None
    excludes = [(name, TagPatterns([name])) for name in default_excludes]
    found = []
    for test in _tests(suite):
        if include is not None and not include.match(test.tags):
            continue
        by = tuple(name for name, pattern in excludes if pattern.match(test.tags))
        found.append(ListedTest(_relative(test.source, source), test.name, tuple(test.tags), by))
    return found


def _tests(suite):
    yield from suite.tests
    for child in suite.suites:
        yield from _tests(child)


def _relative(path, source: Path) -> str:
    base = source if source.is_dir() else source.parent
    try:
        return str(Path(path).relative_to(base.parent))
    except ValueError:
        return str(path)


def render(tests: list[ListedTest], tag: str | None = None) -> str:
    """Suite files with their test counts; with a tag, each matching test and its tags too."""
    lines, by_file = [], {}
    for test in tests:
        by_file.setdefault(test.suite_file, []).append(test)
    for suite_file, members in by_file.items():
        left_out = sum(1 for t in members if t.excluded_by)
        note = f", {left_out} not in the default run" if left_out else ""
        lines.append(f"{suite_file}  ({_count(len(members))}{note})")
        if tag:
            lines += [f"    {t.name}  [{', '.join(t.tags)}]"
                      + (f"  (not in the default run: {', '.join(t.excluded_by)})" if t.excluded_by else "")
                      for t in members]
    default = sum(1 for t in tests if not t.excluded_by)
    what = f"matching {tag!r}" if tag else "in all"
    lines.append(f"{_count(len(tests))} {what} in {len(by_file)} suite files; {default} of them in the default run")
    return "\n".join(lines)


def _count(n: int) -> str:
    return f"{n} test" if n == 1 else f"{n} tests"
