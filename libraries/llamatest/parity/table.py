"""docs/upstream-parity.md: one row per upstream test function, read back and written out.

A row's third cell is the counterpart(s), ``suites/AREA/file.robot: Test Name`` in backticks, or
``planned: suites/AREA/file.robot`` (another branch adds it; the doc test fails on it), or ``not covered: why``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from llamatest.parity.upstream import UpstreamTest

HEADING = re.compile(r"^## (test_\w+\.py)\s*$")
ROW = re.compile(r"^\| `(test_\w+)` \| (\d+) \| (.*) \|\s*$")
SUITE_REF = re.compile(r"`(suites/[^`:]+\.robot): ([^`]+)`")
PLANNED, NOT_COVERED, TODO = "planned:", "not covered:", "TODO"

INTRO = """# Parity with llama.cpp's own server tests

llama.cpp ships a pytest suite for llama-server (`tools/server/tests/unit/*.py`). This table lists
every test function of the pinned sdist (`requirements-server.txt`), with the number of pytest cases its
`parametrize` decorators make, and the llamatest test(s) that check the same behaviour, or why none
does. `tests/docs/test_upstream_parity.py` fails when a function or a case count is missing here, or
when a named suite test does not exist. When the pin moves, regenerate the rows (existing cells are
kept, new functions get `TODO`) and fill them in:

    .venv/bin/python -m llamatest.parity docs/upstream-parity.md

Set-up keeps the pinned sdist's test files in the cache (`$LLAMATEST_CACHE/upstream-tests/VERSION`).
A cell is `suites/…/file.robot: Test Name` (one or more) or `not covered: reason`; a
`planned: suites/…/file.robot` cell (a suite still on a branch) fails the check until it is filled in.
"""


@dataclass
class Row:
    file: str
    function: str
    cases: int
    cell: str

    @property
    def key(self) -> tuple[str, str]:
        return self.file, self.function

    @property
    def refs(self) -> list[tuple[str, str]]:
        return SUITE_REF.findall(self.cell)

    @property
    def kind(self) -> str:
        if self.cell.startswith(PLANNED):
            return "planned"
        if self.refs:
            return "counterpart"
        if self.cell.startswith(NOT_COVERED) and len(self.cell) > len(NOT_COVERED) + 10:
            return "reason"
        return "todo"


def parse(text: str) -> list[Row]:
    rows, current = [], None
    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading:
            current = heading.group(1)
        row = ROW.match(line)
        if row and current:
            rows.append(Row(current, row.group(1), int(row.group(2)), row.group(3).strip()))
    return rows


def merge(upstream: list[UpstreamTest], rows: list[Row]) -> list[Row]:
    """Rows in upstream's order with upstream's case counts, the documented cells kept, new ones TODO."""
    cells = {row.key: row.cell for row in rows}
    return [Row(test.file, test.function, test.cases, cells.get((test.file, test.function), TODO))
            for test in upstream]


def summary(rows: list[Row]) -> str:
    kinds = Counter(row.kind for row in rows)
    return (f"{len(rows)} functions ({sum(row.cases for row in rows)} pytest cases): "
            f"{kinds['counterpart']} with a counterpart, {kinds['reason']} not covered with a reason, "
            f"{kinds['planned']} planned, {kinds['todo']} to do.")


def render(rows: list[Row]) -> str:
    lines = [INTRO, summary(rows), ""]
    for file in dict.fromkeys(row.file for row in rows):
        lines += [f"## {file}", "", "| upstream test | cases | counterpart or reason |", "|---|---:|---|"]
        lines += [f"| `{row.function}` | {row.cases} | {row.cell} |" for row in rows if row.file == file]
        lines.append("")
    return "\n".join(lines)
