"""A Robot listener: a test that ran out of time while other processes kept the machine busy is not judged.

A deadline picked on a quiet machine (an exchange's 30 s, a stream's, Robot's own test and keyword timeouts)
judges the server and everything else that runs. When such a deadline is what failed a test, and other
processes used more than ``machine.BUSY_CORES`` on average while the test ran, the failure is the machine's
share of the blame: the test becomes SKIP with the figures in its message. On a quiet machine it stays a
failure, and so does every other kind of failure on any machine. Keywords that can tell on their own
(load validity, the slot sampler) raise ``machine.NotJudged`` themselves; this covers the deadlines that
no keyword can catch, Robot's timeouts above all.

It also stretches Robot's own timeouts as `llamatest.deadlines` stretches every other wait: a test's
``Test Timeout``/``[Timeout]`` when the test starts, a user keyword's ``[Timeout]`` when the keyword starts,
each multiplied by what the machine (and ``$LLAMATEST_DEADLINE_SCALE``) allows at that moment. On a quiet machine
they stay as written.

Registered in ``robot.args`` (``--listener TimingVerdictListener``), so plain robot applies it too.
"""

from __future__ import annotations

import re
import time

from robot.running.context import EXECUTION_CONTEXTS
from robot.running.timeouts import KeywordTimeout
from robot.utils import secs_to_timestr

from llamatest import deadlines, machine

ROBOT_LISTENER_API_VERSION = 3

# The failures that are about time: Robot's timeouts, Wait Until Keyword Succeeds', and every deadline of
# llamatest.deadlines, whose messages say "within N s" (an exchange, a stream, an SDK or MCP call, a start) or
# "still … after N s" (a process that did not end).
TIMING_FAILURE = re.compile(r"(Test|Keyword) timeout .+ exceeded|\bwithin [\d.]+ s\b|batch deadline|"
                            r"failed after retrying for|still running after [\d.]+ s|still alive [\d.]+ s later")

_started: dict[str, float] = {}


def start_suite(data, result) -> None:
    machine.monitor()  # the ring buffer must be filling before the first test needs it


def start_test(data, result) -> None:
    _started[result.longname] = time.monotonic()
    timeout = result.timeout  # Robot's TestTimeout, already started: its length can still move
    if timeout and timeout.timeout and not timeout.error:
        timeout.timeout = deadlines.scaled(timeout.timeout)
        timeout.string = secs_to_timestr(timeout.timeout)


def start_user_keyword(data, implementation, result) -> None:
    # ``implementation`` is this call's own copy of the keyword: Robot reads its timeout right after this.
    if not implementation.timeout:
        return
    context = EXECUTION_CONTEXTS.current
    parsed = KeywordTimeout(implementation.timeout, context.variables if context else None)
    if parsed.timeout and not parsed.error:  # a timeout Robot cannot read stays Robot's to report
        implementation.timeout = f"{deadlines.scaled(parsed.timeout)} s"


def end_test(data, result) -> None:
    start = _started.pop(result.longname, None)
    if start is None or result.status != "FAIL" or not TIMING_FAILURE.search(result.message or ""):
        return
    share = machine.monitor().share_since(start)
    if share.busy:
        result.status = "SKIP"
        result.message = f"not judged, the machine was busy: {share.describe()}. {result.message}"
