"""llamatest.deadlines: every wait's figure scaled by the machine and the user; Robot's timeouts stretched alike."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx2
import openai
import pytest
from robot.api import ExecutionResult

from llamatest import deadlines
from llamatest.clients import calls
from TimingVerdictListener import TIMING_FAILURE

LIBRARIES = str(Path(deadlines.__file__).parents[1])


@pytest.fixture
def machine_factor(monkeypatch):
    """Sets the machine's factor as if other processes held the cores (the cache is cleared around it)."""
    def set_factor(value: float) -> None:
        monkeypatch.setattr(deadlines, "_read_machine_factor", lambda: value)
        monkeypatch.setattr(deadlines, "_factor", [float("-inf"), 1.0])
    return set_factor


def test_a_deadline_is_its_quiet_figure_on_a_quiet_machine(machine_factor, monkeypatch):
    machine_factor(1.0)
    monkeypatch.delenv("LLAMATEST_DEADLINE_SCALE", raising=False)
    assert deadlines.deadline("exchange") == deadlines.QUIET_S["exchange"]


def test_a_busy_machine_and_the_users_scale_multiply_the_figure(machine_factor, monkeypatch):
    machine_factor(2.5)
    monkeypatch.setenv("LLAMATEST_DEADLINE_SCALE", "3")
    assert deadlines.deadline("probe") == deadlines.QUIET_S["probe"] * 2.5 * 3


def test_a_callers_own_timeout_is_used_as_given(machine_factor):
    machine_factor(8.0)
    assert deadlines.or_default(0.5, "exchange") == 0.5
    assert deadlines.or_default(None, "kill") == deadlines.QUIET_S["kill"] * 8


def test_an_unknown_deadline_name_says_where_to_add_it():
    with pytest.raises(KeyError, match="no deadline named 'nap': add it to llamatest.deadlines.QUIET_S"):
        deadlines.deadline("nap")


@pytest.mark.parametrize("value", ["fast", "0", "-2"])
def test_a_bad_scale_names_the_variable_and_the_fix(monkeypatch, value):
    monkeypatch.setenv("LLAMATEST_DEADLINE_SCALE", value)
    with pytest.raises(ValueError, match=f"LLAMATEST_DEADLINE_SCALE='{value}' is not a positive factor: set it"):
        deadlines.scaled(1)


def test_the_sdks_own_timeout_is_worded_like_every_missed_deadline():
    error = openai.APITimeoutError(request=httpx2.Request("POST", "http://127.0.0.1:1/v1/chat/completions"))
    record = calls.Call("openai", "chat.completions.create", {}, error=error, deadline=30.0)
    assert calls.missed_deadline(record) == "no complete answer within 30 s"
    assert calls.missed_deadline(calls.Call("openai", "models.list", {}, error=ValueError("x"))) is None


STRETCHED = """
*** Test Cases ***
Test Timeout Is Stretched
    [Timeout]    1 second
    Sleep    1.5

Keyword Timeout Is Stretched
    Slow Keyword

*** Keywords ***
Slow Keyword
    [Timeout]    1 second
    Sleep    1.5
"""


def _run(tmp_path, suite: str, **env) -> list:
    (tmp_path / "suite.robot").write_text(suite)
    subprocess.run([sys.executable, "-m", "robot", "--pythonpath", LIBRARIES, "--listener", "TimingVerdictListener",
                    "-d", str(tmp_path), "--log", "NONE", "--report", "NONE", str(tmp_path / "suite.robot")],
                   capture_output=True, timeout=60, env={**os.environ, **env})
    return list(ExecutionResult(str(tmp_path / "output.xml")).suite.tests)


def test_robots_test_and_keyword_timeouts_are_stretched_by_the_scale(tmp_path):
    tests = _run(tmp_path, STRETCHED, LLAMATEST_DEADLINE_SCALE="3")
    assert [(t.name, t.status) for t in tests] == [("Test Timeout Is Stretched", "PASS"),
                                                   ("Keyword Timeout Is Stretched", "PASS")]


def test_without_a_scale_a_quiet_machine_keeps_robots_timeouts(tmp_path):
    tests = _run(tmp_path, STRETCHED, LLAMATEST_DEADLINE_SCALE="1", LLAMATEST_BUSY_CORES="64")
    assert [(t.status, t.message) for t in tests] == [("FAIL", "Test timeout 1 second exceeded."),
                                                      ("FAIL", "Keyword timeout 1 second exceeded.")]


@pytest.mark.parametrize("message", [
    "POST /completion: no answer within 30.0 s",
    "openai chat.completions.create raised APITimeoutError: Request timed out. (no complete answer within 30 s)",
    "the mcp SDK's client, listing the tools: no complete answer within 30 s",
    "llama-server 'suite' failed to start: no /health 200 within 60.0 s (last answer: ConnectionError)",
    "llama-server 'victim' still running after 10.0 s",
    "Keyword 'Model Status Should Be' failed after retrying for 20 seconds. The last error was: …",
    "Test timeout 2 minutes exceeded.",
])
def test_every_missed_deadline_is_recognised_as_a_timing_failure(message):
    assert TIMING_FAILURE.search(message)


def test_a_wrong_answer_is_not_a_timing_failure():
    assert not TIMING_FAILURE.search("POST /detokenize: status was 500, expected 200 [exchange #12]")
