"""Regenerates docs/upstream-parity.md's rows from the cached upstream tests, keeping the written cells."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from llamatest import upstream_tests
from llamatest.parity import table, upstream
from llamatest.settings import atomic_write_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llamatest.parity", description=__doc__)
    parser.add_argument("doc", type=Path, help="the table, e.g. docs/upstream-parity.md")
    args = parser.parse_args(argv)
    folder = upstream_tests.ensure(lambda message: print(message, file=sys.stderr))
    if folder is None:
        return 1
    old = table.parse(args.doc.read_text()) if args.doc.exists() else []
    rows = table.merge(upstream.read_folder(folder), old)
    atomic_write_text(args.doc, table.render(rows))
    print(table.summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
