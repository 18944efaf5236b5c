"""The live progress line of a load run on a terminal: requests done, in flight, errors, current TTFT p50.

``ProgressLine(stream)`` is the engine's ``on_tick``; it writes nothing when ``stream`` is not a terminal
(a log file or a pipe gets the final summary only).
"""

from __future__ import annotations

import statistics
import sys
from typing import TextIO

from llamatest.load.engine.record import RequestRecord

RECENT = 200  # the TTFT p50 is over the last requests that finished, not the whole run: "current"


class ProgressLine:
    """Rewrites one line (``\\r``) twice a second; ``close()`` ends it with a newline."""

    def __init__(self, stream: TextIO | None = None, label: str = "") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.label = label
        self.scanned = 0  # the records before this index have all finished and are counted
        self.done = 0
        self.errors = 0
        self.ttfts: list[float] = []
        self.written = False

    def __call__(self, records: list[RequestRecord], in_flight: int) -> None:
        if not self.enabled:
            return
        # Records finish out of order: the finished prefix is counted once and for all, the rest at every tick.
        while self.scanned < len(records) and _finished(records[self.scanned]):
            self._add(records[self.scanned])
            self.scanned += 1
        tail = [r for r in records[self.scanned:] if _finished(r)]
        done = self.done + len(tail)
        errors = self.errors + sum(r.error is not None for r in tail)
        recent = self.ttfts[-RECENT:] + [t for t in map(_ttft_ms, tail) if t is not None]
        p50 = f"{statistics.median(recent):.0f} ms" if recent else "-"
        line = f"{self.label}{done} done, {in_flight} in flight, {errors} errors, TTFT p50 {p50}"
        self.stream.write("\r" + line.ljust(78)[:120])
        self.stream.flush()
        self.written = True

    def _add(self, r: RequestRecord) -> None:
        self.done += 1
        self.errors += r.error is not None
        ttft = _ttft_ms(r)
        if ttft is not None:
            self.ttfts.append(ttft)
            del self.ttfts[:-RECENT]

    def close(self) -> None:
        if self.written:
            self.stream.write("\n")
            self.stream.flush()
            self.written = False


def _finished(r: RequestRecord) -> bool:
    return r.t_closed is not None or r.error is not None


def _ttft_ms(r: RequestRecord) -> float | None:
    if not r.ok or r.t_dispatched is None:
        return None
    first = next((e.t for e in r.events if e.is_token), None)
    return None if first is None else (first - r.t_dispatched) * 1000.0
