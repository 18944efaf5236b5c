"""CapabilityListener in a real Robot run: skips with the reason, fails an unknown name, says what was tested."""

from __future__ import annotations

import itertools
import json

import pytest
from robot.api import TestSuite as RobotSuite  # (not collected by pytest under that name)

import CapabilityListener

_keys = itertools.count()


@pytest.fixture
def external(server, monkeypatch) -> str:
    """A fake external target (the fixture server's fake llama-server: /metrics and /slots answer, /props does not)."""
    url = f"{server}/fake/listener-{next(_keys)}"
    monkeypatch.setenv("LLAMA_SERVER_URL", url)
    monkeypatch.delenv("LLAMATEST_ALSO_MANAGED", raising=False)
    CapabilityListener._skipped.clear()
    return url


def run_suite(tmp_path, tests: dict[str, list[str]], setup: str | None = None):
    suite = RobotSuite("Needs")
    if setup:
        suite.setup.config(name=setup, args=["the suite setup ran"])
    for name, tags in tests.items():
        suite.tests.create(name, tags=tags).body.create_keyword("No Operation")
    result = suite.run(listener=CapabilityListener, output=None, outputdir=str(tmp_path), log=None, report=None,
                       console="none")
    return {test.name: (test.status, test.message) for test in result.suite.tests}, result.suite


def test_a_missing_capability_skips_with_its_reason_and_a_present_one_runs(tmp_path, external):
    results, _ = run_suite(tmp_path, {"Plain": [], "Scrapes": ["needs:metrics"], "Embeds": ["needs:embeddings"],
                                      "Own Server": ["needs:managed"]})
    assert results["Plain"] == ("PASS", "")
    assert results["Scrapes"] == ("PASS", "")
    assert results["Embeds"] == ("SKIP", "needs --embeddings: this server answers POST /embedding with 404")
    assert results["Own Server"] == ("SKIP", "needs a managed server: unset LLAMA_SERVER_URL or pass --also-managed")


def test_an_unknown_name_fails_with_the_known_names(tmp_path, external):
    results, _ = run_suite(tmp_path, {"Typo": ["needs:metrix"]})
    status, message = results["Typo"]
    assert status == "FAIL"
    assert message.startswith("unknown capability tag needs:metrix: the known names are managed, tiny")


def test_a_suite_none_of_whose_tests_can_run_keeps_its_setup_from_running(tmp_path, external):
    results, suite = run_suite(tmp_path, {"Own Server": ["needs:managed"]}, setup="Fail")
    assert results["Own Server"][0] == "SKIP"
    assert not suite.setup


def test_the_run_says_what_was_tested(tmp_path, external):
    _, suite = run_suite(tmp_path, {"Own Server": ["needs:managed"], "Embeds": ["needs:embeddings"]})
    assert suite.metadata["Target"].startswith(f"external server at {external}: build unknown")
    assert suite.metadata["Skipped For Missing Capabilities"] == "1 needs a managed server, 1 needs --embeddings"
    summary = json.loads((tmp_path / "target.json").read_text())
    assert summary["skipped"] == {"needs a managed server": 1, "needs --embeddings": 1}


def test_a_folder_none_of_whose_tests_can_run_keeps_its_setup_from_running(tmp_path, external):
    folder = RobotSuite("Folder")
    folder.setup.config(name="Fail", args=["the folder setup ran"])
    child = folder.suites.create("Child")
    child.tests.create("Own Server", tags=["needs:managed"]).body.create_keyword("No Operation")
    result = folder.run(listener=CapabilityListener, output=None, outputdir=str(tmp_path), log=None, report=None,
                        console="none")
    assert result.suite.suites[0].tests[0].status == "SKIP"
    assert not result.suite.setup
