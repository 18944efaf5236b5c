"""Sanitizer reports in a server's log: AddressSanitizer, LeakSanitizer, ThreadSanitizer, UBSan.

A llama-server built with sanitizers (see docs/targets.md, "Sanitizer builds") writes its reports to stderr,
which goes to the server's .srvlog. The suite that produced one must fail, quoting it.
"""

from __future__ import annotations

import re
from pathlib import Path

REPORT_START = re.compile(
    r"==\d+==ERROR: (AddressSanitizer|LeakSanitizer)"
    r"|WARNING: ThreadSanitizer"
    r"|runtime error: ")  # UndefinedBehaviorSanitizer: "file.cpp:12:3: runtime error: …"
QUOTE_LINES = 30


def report_in(log: Path | None) -> str | None:
    """The first sanitizer report in ``log`` (its first QUOTE_LINES lines), or None when there is none."""
    if log is None:
        return None
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for index, line in enumerate(lines):
        if REPORT_START.search(line):
            return "\n".join(lines[index:index + QUOTE_LINES])
    return None
