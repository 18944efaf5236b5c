"""run.py's own logic: option parsing, the robot command line and the closing line."""

import subprocess
import sys

import pytest

import run


def test_own_options_are_taken_and_the_rest_passed_through():
    options, rest = run.parse_args(["--selftest", "--timeout", "90", "--include", "chat", "-v", "A:1"])
    assert options == {"selftest": True, "setup_only": False, "timeout": 90.0}
    assert rest == ["--include", "chat", "-v", "A:1"]


def test_bad_timeout_names_the_option():
    with pytest.raises(SystemExit, match="--timeout needs a number of seconds, got 'soon'"):
        run.parse_args(["--timeout", "soon"])


def test_robot_command_defaults(monkeypatch):
    monkeypatch.setattr("llamatest.server.binary.server_description", lambda: "version: test")
    cmd = run.robot_command([])
    assert cmd[1:3] == ["-m", "robot"]
    assert ["--exclude", "bug"] == cmd[cmd.index("--exclude"):cmd.index("--exclude") + 2]
    assert "llama-server:version: test" in cmd
    assert cmd[-1].endswith("suites")


def test_robot_command_keeps_given_suite_and_include(monkeypatch):
    monkeypatch.setattr("llamatest.server.binary.server_description", lambda: "version: test")
    cmd = run.robot_command(["--include", "bug", "suites/01__health"])
    assert "--exclude" not in cmd
    assert cmd[-1] == "suites/01__health"


def test_other_includes_keep_bug_tests_out(monkeypatch):
    monkeypatch.setattr("llamatest.server.binary.server_description", lambda: "version: test")
    cmd = run.robot_command(["--include", "chat"])
    assert ["--exclude", "bug"] == cmd[cmd.index("--exclude"):cmd.index("--exclude") + 2]


def run_suite(tmp_path, body):
    suite = tmp_path / "s.robot"
    suite.write_text("*** Test Cases ***\n" + body)
    subprocess.run([sys.executable, "-m", "robot", "--outputdir", str(tmp_path), "--output", "out.xml",
                    "--log", "NONE", "--report", "NONE", str(suite)], capture_output=True, check=False)
    return tmp_path / "out.xml"


def test_closing_line_counts_passed_failed_skipped(tmp_path, capsys):
    output = run_suite(tmp_path, "A\n    No Operation\nB\n    Fail    x\nC\n    Skip    y\n")
    assert run.closing_line(output) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "robot: 1 passed, 1 failed, 1 skipped"


def test_run_without_tests_is_a_failure(tmp_path, capsys):
    output = run_suite(tmp_path, "A\n    No Operation\n")
    subprocess.run([sys.executable, "-m", "robot", "--outputdir", str(tmp_path), "--output", "out.xml",
                    "--log", "NONE", "--report", "NONE", "--include", "nothing", "--runemptysuite",
                    str(tmp_path / "s.robot")], capture_output=True, check=False)
    assert run.closing_line(output) == 1
    assert "robot: 0 passed, 0 failed, 0 skipped" in capsys.readouterr().out


def test_missing_output_is_a_failure(tmp_path, capsys):
    assert run.closing_line(tmp_path / "none.xml") == 1
    assert capsys.readouterr().out.splitlines()[-1] == "robot: 0 passed, 0 failed, 0 skipped"
