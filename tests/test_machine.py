"""The machine-load monitor: other processes' share of the CPU, and NotJudged as a Robot skip."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time

import pytest
from robot.api import ExecutionResult

from llamatest import machine
from llamatest.machine import NotJudged, Sample, share_between


def test_share_subtracts_the_tree_from_the_machine():
    share = share_between(Sample(t=10.0, busy=100.0, ours=50.0), Sample(t=12.0, busy=103.0, ours=51.0))
    assert share.seconds == pytest.approx(2.0)
    assert share.ours == pytest.approx(0.5)
    assert share.cores == pytest.approx(1.0)
    assert share.busy
    assert "other processes used 1.00 of" in share.describe()


def test_share_is_never_negative():
    # Our tree's counters include reaped children, which the machine counted before: never below 0.
    share = share_between(Sample(t=0.0, busy=10.0, ours=1.0), Sample(t=1.0, busy=10.2, ours=1.5))
    assert share.cores == 0.0
    assert not share.busy


def _foreign_hog(seconds: float) -> None:
    """A busy loop that is not a descendant of this process: the shell exits, init adopts the loop."""
    code = f"import time; e = time.time() + {seconds}\nwhile time.time() < e: pass"
    subprocess.run(["sh", "-c", f"'{sys.executable}' -c '{code}' >/dev/null 2>&1 &"], check=True)


def test_a_foreign_busy_loop_makes_the_machine_busy():
    machine.monitor()  # running before the interval it is asked about, as the listener starts it
    start = time.monotonic()
    first = machine.sample()
    _foreign_hog(1.5)
    time.sleep(1.0)
    share = share_between(first, machine.sample())
    assert share.cores > 0.6, share.describe()
    error = machine.judge_timing("POST /completion: no answer within 1 s", start)
    assert isinstance(error, NotJudged)
    assert str(error).startswith("not judged, the machine was busy: other processes used")
    assert str(error).endswith("POST /completion: no answer within 1 s")
    time.sleep(0.6)  # let the loop end before the next test


def test_our_own_children_are_not_other_processes():
    first = machine.sample()
    # Half a second of CPU, however long a busy machine takes to give it.
    child = subprocess.Popen([sys.executable, "-c", "import time\nwhile time.process_time() < 0.5: pass"])
    child.wait(timeout=30)
    share = share_between(first, machine.sample())
    assert share.ours * share.seconds > 0.45, share.describe()  # the finished child's CPU counts as ours


def test_not_judged_is_a_robot_skip(tmp_path):
    (tmp_path / "Spoiled.py").write_text(textwrap.dedent("""
        from llamatest.machine import NotJudged

        def measure_on_a_busy_machine():
            raise NotJudged("not judged, the machine was busy: figures")
    """))
    (tmp_path / "spoiled.robot").write_text(textwrap.dedent("""
        *** Settings ***
        Library    Spoiled.py

        *** Test Cases ***
        Spoiled Measurement
            Measure On A Busy Machine
    """))
    libraries = str(__import__("pathlib").Path(machine.__file__).parents[1])
    subprocess.run([sys.executable, "-m", "robot", "--pythonpath", libraries, "--pythonpath", str(tmp_path),
                    "-d", str(tmp_path), "--output", "output.xml", "--log", "NONE", "--report", "NONE",
                    str(tmp_path / "spoiled.robot")], capture_output=True, timeout=60)
    test = ExecutionResult(str(tmp_path / "output.xml")).suite.tests[0]
    assert test.status == "SKIP"
    assert test.message == "not judged, the machine was busy: figures"


TIMED_OUT = """
*** Test Cases ***
Slow Answer
    [Timeout]    1 second
    Sleep    12    # longer than the timeout stretched 8 times, the most a busy machine gets
"""


def _run_timed_out_suite(tmp_path, **env) -> object:
    (tmp_path / "slow.robot").write_text(TIMED_OUT)
    libraries = str(__import__("pathlib").Path(machine.__file__).parents[1])
    subprocess.run([sys.executable, "-m", "robot", "--pythonpath", libraries, "--listener", "TimingVerdictListener",
                    "-d", str(tmp_path), "--log", "NONE", "--report", "NONE", str(tmp_path / "slow.robot")],
                   capture_output=True, timeout=60, env={**__import__("os").environ, **env})
    return ExecutionResult(str(tmp_path / "output.xml")).suite.tests[0]


def test_a_timeout_on_a_busy_machine_is_not_judged(tmp_path):
    _foreign_hog(3.0)
    test = _run_timed_out_suite(tmp_path)
    assert test.status == "SKIP", test.message
    assert test.message.startswith("not judged, the machine was busy: other processes used ")
    assert re.search(r"Test timeout [\d.]+ seconds? exceeded\.$", test.message), test.message  # stretched
    time.sleep(0.5)


def test_a_timeout_stays_a_failure_below_the_busy_threshold(tmp_path):
    test = _run_timed_out_suite(tmp_path, LLAMATEST_BUSY_CORES="64")  # no machine is that busy
    assert test.status == "FAIL"
    assert test.message == "Test timeout 1 second exceeded."


def test_share_since_reads_a_copy_while_the_sampler_appends():
    """The sampler thread appends while a wait asks for the share: iterating the deque itself failed once with
    "deque mutated during iteration" (in a server's teardown)."""
    import threading

    monitor = machine.Monitor()
    monitor.stop()
    monitor.samples.extend(Sample(t=i * 1e-3, busy=0.0, ours=0.0) for i in range(monitor.samples.maxlen))
    done = threading.Event()

    def append_fast():
        while not done.is_set():
            monitor.samples.append(Sample(t=time.monotonic(), busy=0.0, ours=0.0))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often, so the writer runs while the reader iterates
    writer = threading.Thread(target=append_fast)
    writer.start()
    try:
        ends = time.monotonic() + 1.0
        while time.monotonic() < ends:
            monitor.share_since(time.monotonic())
    finally:
        done.set()
        writer.join()
        sys.setswitchinterval(interval)
