"""Whose fault a slow answer is: how much of the machine other processes took while a test waited.

A timing check on a shared machine judges two things at once, the server and everything else that runs. This
module measures the second: CPU time used by processes outside this process tree (and time the hypervisor
stole), in cores, over any recent interval. A background thread samples the machine's and the tree's CPU
counters once a second into a ring buffer, so a keyword that has just missed a deadline can ask "how busy was
the machine over the last 30 s" without having measured in advance.

When other processes took more than ``BUSY_CORES`` on average, a timing failure is not a verdict on the server:
the caller raises ``NotJudged`` (a Robot skip, see below) with the figures instead of failing. On a quiet
machine the same failure stays a failure, so a server that is slow on its own still fails.

``deadline_factor()`` scales deadlines picked on a quiet machine: 1 when the machine is quiet now, more when
other processes hold cores (llama.cpp's threads spin at barriers, so a contended machine slows it far more than
the share of CPU lost; the factor is generous on purpose, it only moves a deadline for hangs).
"""

from __future__ import annotations

import collections
import os
import threading
import time
from dataclasses import dataclass

import psutil

from llamatest.settings import ENV_BUSY_CORES, busy_cores

# Average cores used by others above which the machine, not the server, is to blame ($LLAMATEST_BUSY_CORES).
BUSY_CORES = busy_cores()
INTERVAL_S = 1.0
HISTORY = 3600  # samples kept (an hour at one a second)
MAX_FACTOR = 8.0


class NotJudged(AssertionError):
    """A check that could not judge the server: the machine or the harness spoiled the measurement.

    Robot reports it as SKIP (``ROBOT_SKIP_EXECUTION``), with the message; the package stays free of Robot
    imports. It is never a pass: the closing line counts it as skipped.
    """

    ROBOT_SKIP_EXECUTION = True
    ROBOT_SUPPRESS_NAME = True


@dataclass(frozen=True)
class Sample:
    t: float  # time.monotonic()
    busy: float  # CPU seconds the whole machine was busy (steal included), since boot
    ours: float  # CPU seconds of this process tree, finished children included


@dataclass(frozen=True)
class Share:
    """What other processes used over an interval."""

    cores: float  # average cores used by processes outside this tree (and stolen by the hypervisor)
    seconds: float  # length of the interval measured
    ours: float  # average cores used by this tree

    @property
    def busy(self) -> bool:
        return self.cores > BUSY_CORES

    def describe(self) -> str:
        return (f"other processes used {self.cores:.2f} of {os.cpu_count()} cores on average over "
                f"{self.seconds:.1f} s (this run used {self.ours:.2f}; more than {BUSY_CORES:g} means the machine "
                f"was busy, {ENV_BUSY_CORES} sets it)")


def _busy_seconds() -> float:
    t = psutil.cpu_times()
    return sum(getattr(t, f, 0.0) for f in ("user", "nice", "system", "irq", "softirq", "steal"))


def _tree_seconds(root: psutil.Process) -> float:
    own = root.cpu_times()
    total = own.user + own.system + own.children_user + own.children_system
    for child in root.children(recursive=True):
        try:
            c = child.cpu_times()
        except psutil.Error:  # ended between the listing and the read: its time is lost, a small error
            continue
        total += c.user + c.system + c.children_user + c.children_system
    return total


def sample(root: psutil.Process | None = None) -> Sample:
    return Sample(time.monotonic(), _busy_seconds(), _tree_seconds(root or psutil.Process()))


MIN_INTERVAL_S = 0.25  # counters advance in clock ticks (10 ms): a shorter interval says nothing


def share_between(a: Sample, b: Sample) -> Share:
    wall = b.t - a.t
    if wall < MIN_INTERVAL_S:
        return Share(cores=0.0, seconds=max(wall, 0.0), ours=0.0)
    ours = max(b.ours - a.ours, 0.0) / wall
    others = max((b.busy - a.busy) / wall - ours, 0.0)
    return Share(cores=others, seconds=wall, ours=ours)


class Monitor:
    """The background sampler: one per process, started on first use."""

    def __init__(self, interval: float = INTERVAL_S):
        self.interval = interval
        self.samples: collections.deque[Sample] = collections.deque(maxlen=HISTORY)
        self._root = psutil.Process()
        self._stop = threading.Event()
        self.samples.append(sample(self._root))
        self._thread = threading.Thread(target=self._loop, name="llamatest-machine", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.samples.append(sample(self._root))
            except psutil.Error:  # pragma: no cover - /proc unreadable for a moment; the next sample counts
                continue

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2 * self.interval)

    def share_since(self, start: float) -> Share:
        """Other processes' share from the last sample at or before ``start`` (monotonic) until now."""
        now = sample(self._root)
        # A copy first: the sampler thread appends meanwhile, and iterating the deque itself then failed with
        # "deque mutated during iteration" (seen once, in a server's teardown; list() copies without a switch).
        samples = list(self.samples)
        earlier = [s for s in samples if s.t <= start]
        first = earlier[-1] if earlier else samples[0]
        return share_between(first, now)

    def share_last(self, seconds: float) -> Share:
        return self.share_since(time.monotonic() - seconds)


_monitor: Monitor | None = None
_lock = threading.Lock()


def monitor() -> Monitor:
    """The process's monitor, started on first call (a daemon thread: it never keeps a process alive)."""
    global _monitor
    with _lock:
        if _monitor is None:
            _monitor = Monitor()
        return _monitor


def deadline_factor(window: float = 5.0) -> float:
    """How much longer than on a quiet machine a wait may take now: 1 + 3 × the cores other processes used
    over the last ``window`` seconds, at most ``MAX_FACTOR``."""
    share = monitor().share_last(window)
    return min(MAX_FACTOR, 1.0 + 3.0 * share.cores) if share.busy else 1.0


def judge_timing(message: str, start: float) -> AssertionError:
    """The exception for a timing failure that began at ``start`` (monotonic): ``NotJudged`` with the figures
    when other processes made the machine busy meanwhile, else a plain ``AssertionError``."""
    share = monitor().share_since(start)
    if share.busy:
        return NotJudged(f"not judged, the machine was busy: {share.describe()}. {message}")
    return AssertionError(message)
