"""Bug reports from a real output.xml: a small generated suite of ``bug`` tests runs against the fixture server
(in a robot process of its own), then the reports, the index and run.py's console lines are checked."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import run
from llamatest.report import bugs

SUITE = r"""
*** Settings ***
Library             RequestsLibrary
Library             HttpApiLibrary
Library             StreamingLibrary
Suite Setup         Set Up

*** Variables ***
${ERROR}            ${{ {"error": {"code": 500, "message": "'tokens' is required", "type": "server_error"}} }}

*** Test Cases ***
Status Bug
    [Documentation]    A client error is a 400 (RFC 9110 §15.5.1; llama.cpp#1234). This build answers 500.
    [Tags]    bug
    GET On Session    suite    /echo    expected_status=200
    VAR    &{spec}    status=${500}    json=${ERROR}
    POST On Session    suite    /script    json=${spec}    expected_status=400

Named Exchange Bug
    [Tags]    bug
    ${first} =    GET On Session    suite    /echo    expected_status=200
    GET On Session    suite    /echo    params=later=1    expected_status=200
    Json Field Should Be    ${first}    method    POST

Stream Bug
    [Documentation]    See https://github.com/ggml-org/llama.cpp/issues/777.
    [Tags]    bug
    VAR    &{body}    mock_pause=${0}    mock_tokens=${{ ["a"] }}
    ${result} =    Stream Request    /v1/chat/completions    ${body}    server=${URL}
    Finish Chunk Should Be    ${result}    length

Binary Bug
    [Tags]    bug
    ${resp} =    POST On Session    suite    /echo    data=${{ b'{"prompt": "\xff\x00"}' }}    expected_status=200
    Json Field Should Be    ${resp}    method    GET

Fixed Bug
    [Tags]    bug
    GET On Session    suite    /echo    expected_status=200

Skipped Bug
    [Tags]    bug
    Skip    not on this machine

Ordinary Failure
    GET On Session    suite    /echo    expected_status=201

*** Keywords ***
Set Up
    Open Session With Key    suite    sk-secret    server=${URL}
    Set Suite Metadata    Server    version: 1 (abc) built for tests; model tiny.gguf
    Set Suite Metadata    Server Command Line    llama-server --model tiny.gguf --port 8080
"""


@pytest.fixture(scope="module")
def output(server, tmp_path_factory) -> Path:
    """output.xml of the generated suite (suites/17__area/bug_suite.robot, so that it is named like a real one)."""
    root = tmp_path_factory.mktemp("bugs")
    suite = root / "suites" / "17__area" / "bug_suite.robot"
    suite.parent.mkdir(parents=True)
    suite.write_text(textwrap.dedent(SUITE))
    out = root / "out"
    subprocess.run([sys.executable, "-m", "robot", "--output", str(out / "output.xml"), "--log", "NONE",
                    "--report", "NONE", "--console", "none", "--variable", f"URL:{server}", str(suite)],
                   timeout=120, check=False)
    return out / "output.xml"


@pytest.fixture(scope="module")
def written(output) -> tuple[Path, list]:
    directory = output.parent / "bugs"
    return directory, bugs.write_reports(output, directory)


def report(written, test: str) -> str:
    directory, _ = written
    return (directory / f"area-bug-suite--{test}.md").read_text()


def test_requests_library_lines_are_not_in_the_output_but_the_exchange_blocks_are(output):
    text = output.read_text()  # robot_glue's listener moves them to TRACE; the run logs at INFO
    assert " Request : url=" not in text and " Response : url=" not in text
    assert "exchange #" in text


def test_one_report_per_failing_bug_test_and_an_index(written):
    directory, tests = written
    assert {t.name: t.status for t in tests} == {
        "Status Bug": "FAIL", "Named Exchange Bug": "FAIL", "Stream Bug": "FAIL", "Binary Bug": "FAIL",
        "Fixed Bug": "PASS", "Skipped Bug": "SKIP"}  # the ordinary failure is no bug test
    assert sorted(path.name for path in directory.iterdir()) == [
        "README.md", "area-bug-suite--binary-bug.body", "area-bug-suite--binary-bug.md",
        "area-bug-suite--named-exchange-bug.md", "area-bug-suite--status-bug.md", "area-bug-suite--stream-bug.md"]


def test_a_report_has_title_build_server_reproduction_expected_actual_and_upstream(written, server):
    text = report(written, "status-bug")
    assert text.startswith("# llama-server: Status Bug\n")
    assert "- **Build:** version: 1 (abc) built for tests; model tiny.gguf" in text
    assert "- **Upstream:** [llama.cpp#1234](https://github.com/ggml-org/llama.cpp/issues/1234)" in text
    assert "`suites/17__area/bug_suite.robot`" in text
    assert "```sh\nllama-server --model tiny.gguf --port 8080\n```" in text
    assert "## Expected\n\nA client error is a 400 (RFC 9110 §15.5.1; llama.cpp#1234). This build answers 500." in text
    assert "POST /script: status was 500, expected 400; error server_error: \"'tokens' is required\" " \
           "[exchange #" in text
    assert "It got status 500:" in text and '"message": "\'tokens\' is required"' in text


def test_the_curl_command_replays_the_judged_exchange_without_the_key(written, server):
    text = report(written, "status-bug")
    command = text.split("## Reproduce\n")[1].split("```sh\n")[1].split("\n```")[0]
    assert command.startswith(f"curl -sS -i {server}/script \\\n")
    assert '-H "Authorization: Bearer $LLAMA_API_KEY"' in command and "sk-secret" not in text
    assert "--data-binary '{\"status\": 500, \"json\": {\"error\":" in command
    assert "the exchange the failure names" in text and "set `LLAMA_API_KEY`" in text


def test_the_exchange_the_failure_names_wins_over_the_last_one(written):
    text = report(written, "named-exchange-bug")
    reproduce = text.split("## Reproduce\n")[1].split("## Expected")[0]
    assert "the exchange the failure names" in reproduce and "later=1" not in reproduce
    assert "All 2 exchanges of the test, in order" in text and "later=1" in text  # both listed further down


def test_a_stream_is_replayed_with_curl_n(written, server):
    text = report(written, "stream-bug")
    assert f"curl -sS -i -N {server}/v1/chat/completions" in text
    assert "--data-binary '{\"mock_pause\": 0, \"mock_tokens\": [\"a\"]}'" in text
    assert "data: [DONE]\n```" in text  # the events as they came
    assert "VAR    &{body}    mock_pause=${0}    mock_tokens=${{ [\"a\"] }}" in text  # the test's steps
    assert "[llama.cpp#777](https://github.com/ggml-org/llama.cpp/issues/777)" in text


def test_a_binary_body_is_written_beside_the_report(written):
    directory, _ = written
    assert (directory / "area-bug-suite--binary-bug.body").read_bytes() == b'{"prompt": "\xff\x00"}'
    text = report(written, "binary-bug")
    assert "--data-binary @area-bug-suite--binary-bug.body" in text and "-H 'Content-Type:'" in text
    assert "sk-secret" not in text  # /echo echoes the key: the answer quoted in the report hides it too


def test_the_index_puts_passed_bug_tests_first(written):
    directory, _ = written
    index = (directory / "README.md").read_text()
    assert index.index("## PASSED: the server may be fixed") < index.index("## Failing")
    assert "- **Fixed Bug** (`suites/17__area/bug_suite.robot`)" in index
    assert "| [Status Bug](area-bug-suite--status-bug.md) | `suites/17__area/bug_suite.robot` | llama.cpp#1234 |" \
        in index
    assert "- Skipped Bug (`suites/17__area/bug_suite.robot`): SKIP" in index


def test_a_test_without_exchanges_says_so():
    test = bugs.BugTest("S", "suites/01__a/s.robot", "T", "FAIL", "boom", "", "", "")
    assert "The test logged no HTTP exchange" in bugs.report_markdown(test)


def test_report_names_are_unique():
    taken: set = set()
    assert [bugs._unique("a--b", taken) for _ in range(3)] == ["a--b", "a--b-2", "a--b-3"]


def test_records_survive_output_xml(output):
    (status_bug,) = [t for t in bugs.bug_tests(output) if t.name == "Status Bug"]
    assert [(r["method"], r["status"]) for r in status_bug.exchanges] == [("GET", 200), ("POST", 500)]
    assert json.loads(status_bug.exchanges[1]["body"])["status"] == 500


# ---- run.py ----------------------------------------------------------------------------------------------


def finished(output: Path) -> run.RobotRun:
    return run.RobotRun("robot", [], output, returncode=1)


def test_run_py_reports_bugs_before_its_closing_line(output, capsys):
    run.report_bugs([finished(output)], ["--include", "bug", "suites"])
    run.closing_line([finished(output)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"[run.py] bug reports: 4 failing bug test(s) written to {output.parent / 'bugs'}/ " \
                       f"(index: README.md)"
    assert lines[1].startswith("[run.py] BUG TEST PASSED, the server may be fixed: suites/17__area/bug_suite.robot "
                               "/ Fixed Bug")
    assert lines[-1] == "robot: 1 passed, 5 failed, 1 skipped"


def test_run_py_writes_no_reports_when_bug_tests_were_not_included(output, tmp_path, capsys):
    copy = tmp_path / "output.xml"
    copy.write_bytes(output.read_bytes())
    run.report_bugs([finished(copy)], ["-i", "chat"])
    assert not (tmp_path / "bugs").exists() and capsys.readouterr().out == ""


def test_run_py_writes_no_reports_for_a_dry_run(output, tmp_path, capsys):
    copy = tmp_path / "output.xml"
    copy.write_bytes(output.read_bytes())
    run.report_bugs([finished(copy)], ["--include", "bug", "--dryrun"])  # every test passes a dry run
    assert not (tmp_path / "bugs").exists() and capsys.readouterr().out == ""


def test_of_several_named_exchanges_the_first_failure_s_is_shown():
    records = [{"id": n, "method": "POST", "url": f"http://h/{n}", "headers": {}, "status": 500} for n in (3, 4, 5)]
    test = bugs.BugTest("S", "", "T", "FAIL", "Several failures occurred:\n\n1) … [exchange #4]\n\n2) … [exchange #3]",
                        "", "", "", exchanges=records)
    assert test.shown_exchange()["id"] == 4
    assert bugs.BugTest("S", "", "T", "FAIL", "no number", "", "", "", exchanges=records).shown_exchange()["id"] == 5
