"""docs/bugs.md lists exactly the tests tagged `bug`: a bug test added, renamed or fixed without its row (or a row
left for a test that is gone) fails here."""

import re
from pathlib import Path

from llamatest import listing

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(?P<suite>[^`]+\.robot)` \| (?P<test>[^|]+?) \|", re.M)


def documented() -> set[tuple[str, str]]:
    text = (ROOT / "docs" / "bugs.md").read_text()
    return {(m["suite"], m["test"].strip()) for m in ROW.finditer(text)}


def tagged() -> set[tuple[str, str]]:
    return {(test.suite_file.removeprefix("suites/"), test.name)
            for test in listing.collect(ROOT / "suites", [], "bug")}


def test_the_bug_table_lists_every_bug_test_and_nothing_else():
    rows, tests = documented(), tagged()
    assert sorted(tests - rows) == [], "bug tests without a row in docs/bugs.md"
    assert sorted(rows - tests) == [], "rows of docs/bugs.md whose test is gone or no longer tagged bug"
