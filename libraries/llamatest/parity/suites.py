"""The test names of our suites, as Robot Framework reads them, for checking the parity table's references.

Robot is imported where the suites are read, so that the rest of ``parity`` (and the package) imports without it."""

from __future__ import annotations

from pathlib import Path


def suite_tests(root: Path, folder: str = "suites") -> set[tuple[str, str]]:
    """(``suites/AREA/file.robot``, test name) for every test under ``root/folder``."""
    from robot.api import TestSuiteBuilder

    root = root.resolve()
    built = TestSuiteBuilder(included_extensions=("robot",)).build(str(root / folder))
    found, pending = set(), [built]
    while pending:
        suite = pending.pop()
        pending.extend(suite.suites)
        found.update((Path(test.source).relative_to(root).as_posix(), test.name) for test in suite.tests)
    return found
