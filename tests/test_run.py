"""run.py: its own options, robot's options as robot parses them, the checks before robot, the closing line."""

from __future__ import annotations

import http.server
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import run

DESCRIPTION = "version: test"


@pytest.fixture(autouse=True)
def hermetic(tmp_path, monkeypatch):
    """No test touches the real results/ or pid registry, or reads the caller's robot options."""
    monkeypatch.setattr(run, "RESULTS", tmp_path / "results")
    monkeypatch.setenv("LLAMATEST_PID_DIR", str(tmp_path / "pids"))
    for name in ("ROBOT_OPTIONS", run.settings.ENV_SERVER_URL, run.settings.ENV_SERVER_BIN):
        monkeypatch.delenv(name, raising=False)


def has_default_exclude(cmd: list[str]) -> bool:
    return any(flag == "--exclude" and value == "bug" for flag, value in zip(cmd, cmd[1:], strict=False))


# ----- run.py's own options -----
def test_own_options_are_taken_and_the_rest_passed_through():
    options, rest = run.parse_args(["--selftest", "--timeout", "90", "--include", "chat", "-v", "A:1"])
    assert options == {"selftest": True, "setup_only": False, "help": False, "timeout": 90.0, "sanitizer": None}
    assert rest == ["--include", "chat", "-v", "A:1"]


@pytest.mark.parametrize("argv, kinds", [(["--build-sanitizer", "address,undefined"], ["address", "undefined"]),
                                         (["--build-sanitizer=thread"], ["thread"])])
def test_sanitizer_kinds(argv, kinds):
    assert run.parse_args(argv)[0]["sanitizer"] == kinds


@pytest.mark.parametrize("value, message", [("", "takes address, undefined, thread"),
                                            ("asan", "got 'asan'"),
                                            ("address,thread", "cannot be combined")])
def test_bad_sanitizer_kinds_name_the_problem(value, message):
    with pytest.raises(SystemExit, match=message):
        run.parse_args(["--build-sanitizer", value])


@pytest.mark.parametrize("argv", [["--timeout=7.5"], ["--timeout", "7.5"]])
def test_timeout_forms(argv):
    assert run.parse_args(argv)[0]["timeout"] == 7.5


@pytest.mark.parametrize("value", ["soon", "0", "-3", "nan", "inf", ""])
def test_bad_timeout_names_the_option(value):
    with pytest.raises(SystemExit, match="--timeout needs a number of seconds"):
        run.parse_args(["--timeout", value])


@pytest.mark.parametrize("flag", ["-h", "--help", "-?"])
def test_help_flags(flag):
    assert run.parse_args(["--include", "x", flag])[0]["help"]


# ----- robot's options, as robot parses them -----
@pytest.mark.parametrize("passthrough", [
    ["--include=bug"], ["-ibug"], ["-i", "bug"], ["--include", "bug"], ["--INCLUDE", "bug"],
    ["--include", "BUG"], ["-i", "chatORbug"], ["-i", "bugANDchat"], ["-i", "bu*"],
])
def test_including_bug_drops_the_default_exclude(passthrough):
    cmd = run.suites_run(passthrough, DESCRIPTION).cmd
    assert not has_default_exclude(cmd)
    assert cmd[-len(passthrough) - 1:-1] == passthrough  # passed through as given, before suites/


@pytest.mark.parametrize("passthrough", [[], ["-i", "chat"], ["--include=debug"], ["--exclude", "slow"]])
def test_other_options_keep_bug_tests_out(passthrough):
    assert has_default_exclude(run.suites_run(passthrough, DESCRIPTION).cmd)


OTHER_SERVERS = ["llama-cpp-python", "deviation"]


@pytest.mark.parametrize("passthrough, kept", [([], ["bug", "wrong_usage", "load", "load-soak", *OTHER_SERVERS]),
                                               (["-i", "wrong_usage"], ["bug", "load", "load-soak", *OTHER_SERVERS]),
                                               (["--include", "load"], ["bug", "wrong_usage", "load-soak",
                                                                         *OTHER_SERVERS]),
                                               (["--include", "noise"], ["bug", "wrong_usage", "load-soak",
                                                                          *OTHER_SERVERS]),
                                               (["-ibug", "-iwrong_usage", "-iload", "-iload-soak",
                                                 "-illama-cpp-python", "-ideviation"], [])])
def test_each_default_exclude_is_dropped_only_when_its_tag_is_included(passthrough, kept):
    cmd = run.suites_run(passthrough, DESCRIPTION).cmd
    excluded = [value for flag, value in zip(cmd, cmd[1:], strict=False) if flag == "--exclude"]
    assert excluded == kept


def test_include_from_robot_options_variable_and_argument_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBOT_OPTIONS", "--include bug")
    assert not has_default_exclude(run.suites_run([], DESCRIPTION).cmd)
    monkeypatch.delenv("ROBOT_OPTIONS")
    argfile = tmp_path / "my.args"
    argfile.write_text("--include bug\n")
    assert not has_default_exclude(run.suites_run(["-A", str(argfile)], DESCRIPTION).cmd)


def test_defaults_come_from_robot_args_with_repository_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (run.ROOT / "robot.args").read_text().split()
    for option in ["--pythonpath", "--outputdir", "--loglevel", "--xunit"]:
        assert option in text
    assert "--exclude" not in text  # plain robot -A robot.args -i bug must be able to run bug tests
    assert "--exclude" in (run.ROOT / "selection.args").read_text().split()
    cmd = run.suites_run([], DESCRIPTION).cmd
    assert cmd[1:3] == ["-m", "robot"]
    assert cmd[cmd.index("--outputdir") + 1] == str(run.ROOT / "results")
    assert cmd[cmd.index("--pythonpath") + 1] == str(run.ROOT / "libraries")
    assert cmd[cmd.index("--loglevel") + 1] == "DEBUG:INFO"
    assert cmd[cmd.index("--xunit") + 1] == "xunit.xml"
    assert f"llama-server:{DESCRIPTION}" in cmd
    assert cmd[-1] == str(run.SUITES)


def test_given_suite_replaces_the_default_and_stays_relative_to_the_callers_directory(monkeypatch):
    monkeypatch.chdir(run.SUITES)
    robot = run.suites_run(["--include", "health", "01__health"], DESCRIPTION)
    assert robot.cmd[-1] == "01__health"
    assert str(run.SUITES) not in robot.cmd
    assert robot.cwd is None  # robot runs where run.py was started


@pytest.mark.parametrize(("passthrough", "expected"), [
    ([], "{root}/results/output.xml"),
    (["-d", "out"], "{tmp}/out/output.xml"),
    (["-dout"], "{tmp}/out/output.xml"),
    (["--outputdir", "out", "--output", "run1"], "{tmp}/out/run1.xml"),
    (["--outputdir=out", "-o", "nested/run2.xml"], "{tmp}/out/nested/run2.xml"),
    (["-d", "out", "--output", "{tmp}/abs.xml"], "{tmp}/abs.xml"),
    (["--output", "NONE"], None),
])
def test_output_file_is_where_robot_writes_it(tmp_path, monkeypatch, passthrough, expected):
    monkeypatch.chdir(tmp_path)
    passthrough = [arg.format(tmp=tmp_path) for arg in passthrough]
    robot = run.suites_run(passthrough, DESCRIPTION)
    expected = expected and Path(expected.format(root=run.ROOT, tmp=tmp_path))
    assert robot.output == expected


def test_timestamped_output_is_found_after_the_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    robot = run.suites_run(["-d", "out", "--timestampoutputs"], DESCRIPTION)
    assert robot.timestamped and robot.output == tmp_path / "out" / "output.xml"
    robot.started = time.time() - 1
    written = tmp_path / "out" / "output-20260101-120000.xml"
    written.write_text("<robot/>")
    assert robot.output_written() == written


def test_bad_robot_option_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(run, "describe_server", lambda: pytest.fail("options come first"))
    assert run.execute({"selftest": False, "timeout": 10.0}, ["--bogus"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["[run.py] robot options: option --bogus not recognized",
                   "robot: 0 passed, 0 failed, 0 skipped"]


def test_harness_run_has_its_own_output_directory():
    harness = run.harness_run()
    assert harness.output == run.RESULTS / "harness" / "output.xml"
    assert harness.cmd[-1] == str(run.HARNESS)
    assert harness.cwd == run.ROOT
    assert not any(arg.startswith("llama-server:") for arg in harness.cmd)


# ----- --help -----
def copy_of_run_py(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "libraries" / "llamatest").mkdir(parents=True)
    for name in ["run.py", "robot.args", "selection.args", "libraries/llamatest/__init__.py",
                 "libraries/llamatest/settings.py", "libraries/llamatest/bootstrap.py",
                 "libraries/llamatest/upstream_tests.py", "libraries/llamatest/deadlines.py"]:
        shutil.copy(run.ROOT / name, root / name)
    return root


def test_help_works_before_set_up_and_keeps_the_last_results(tmp_path):
    root = copy_of_run_py(tmp_path)
    (root / "results").mkdir()
    (root / "results" / "output.xml").write_text("<robot/>")
    (root / "results" / "server-a-1.srvlog").write_text("log")
    env = {**os.environ, "LLAMATEST_VENV": str(tmp_path / "no-venv")}
    # -S: no site-packages, so --help needs nothing but the standard library.
    proc = subprocess.run([sys.executable, "-S", str(root / "run.py"), "--help"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=30, check=False)
    assert proc.returncode == 0, proc.stderr
    for text in ["--selftest", "--timeout SECONDS", "--setup-only", "LLAMA_SERVER_BIN", "LLAMA_SERVER_URL",
                 "LLAMATEST_CACHE", "python -m robot --help"]:
        assert text in proc.stdout
    assert "Every other option goes to robot" in proc.stdout
    assert (root / "results" / "output.xml").read_text() == "<robot/>"
    assert (root / "results" / "server-a-1.srvlog").exists()
    assert not (tmp_path / "no-venv").exists()


# ----- checks before robot starts -----
def test_bad_server_binary_is_one_line_then_the_closing_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(run.settings.ENV_SERVER_BIN, str(tmp_path / "llama-server"))
    assert run.execute({"selftest": False, "timeout": 10.0}, []) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert f"LLAMA_SERVER_BIN={tmp_path / 'llama-server'} is not an executable file" in out[0]
    assert out[1] == "robot: 0 passed, 0 failed, 0 skipped"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_refused_server_url_fails_at_once(monkeypatch, capsys):
    monkeypatch.setattr(run, "describe_server", lambda: DESCRIPTION)
    monkeypatch.setenv(run.settings.ENV_SERVER_URL, f"http://127.0.0.1:{closed_port()}")
    started = time.monotonic()
    assert run.execute({"selftest": False, "timeout": 10.0}, []) == 1
    assert time.monotonic() - started < 8  # at once: not the 60 s a start would wait for a server
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0].startswith("[run.py] LLAMA_SERVER_URL=http://127.0.0.1:")
    assert out[0].endswith("/health: connection refused")
    assert out[1] == "robot: 0 passed, 0 failed, 0 skipped"


def test_silent_server_url_times_out():
    with socket.socket() as sock:  # listens (the kernel accepts) but never answers
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        with pytest.raises(run.RunError, match=r"/health: no /health 200 within 0.3 s"):
            run.check_external_server(url, timeout=0.3)


@pytest.fixture
def health_server():
    """A server whose /health answers with the status in `health_server.status`."""

    class Handler(http.server.BaseHTTPRequestHandler):
        status = 200

        def do_GET(self):  # noqa: N802 (http.server's naming)
            self.send_response(Handler.status)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    Handler.url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    yield Handler
    httpd.shutdown()
    httpd.server_close()


def test_server_url_health_status(health_server):
    run.check_external_server(health_server.url)
    health_server.status = 503
    with pytest.raises(run.RunError, match=r"no /health 200 within 0.3 s \(last answer: HTTP 503"):
        run.check_external_server(health_server.url, timeout=0.3)
    run.check_external_server("")  # unset: nothing to check


def test_server_url_that_is_no_url():
    with pytest.raises(run.RunError, match="LLAMA_SERVER_URL=localhost:8080"):
        run.check_external_server("localhost:8080")


# ----- running: process groups, signals, the deadline -----
def test_killed_by_signal_is_reported_as_such(tmp_path):
    code = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    returncode = run.run_bounded([sys.executable, "-c", code], timeout=30, cwd=tmp_path)
    assert returncode == -signal.SIGKILL
    assert run.exit_description(returncode) == "was killed by SIGKILL"


def test_timeout_stops_the_process_group(tmp_path):
    started = time.monotonic()
    returncode = run.run_bounded([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5, cwd=tmp_path)
    assert returncode == -signal.SIGTERM
    assert time.monotonic() - started < 10
    assert not list((tmp_path / "pids").glob("*.json"))  # unregistered


def test_no_step_starts_after_the_deadline(capsys):
    deadline = run.Deadline(0.001)
    time.sleep(0.01)
    assert run.run_step([sys.executable, "-c", "pass"], deadline) is None
    assert "the --timeout of 0.001 s is used up" in capsys.readouterr().out


def test_pytest_without_tests_is_a_failed_check(monkeypatch, capsys):
    checks = [("pytest", [sys.executable, "-c", "raise SystemExit(5)"]),
              ("ruff", [sys.executable, "-c", "pass"])]
    monkeypatch.setattr(run, "selftest_checks", lambda: checks)
    assert run.selftest(run.Deadline(60)) is False
    assert "self-test checks failed: pytest (no tests collected)" in capsys.readouterr().out


def test_selftest_checks_cover_the_project():
    names = [name for name, _ in run.selftest_checks()]
    assert names[:4] == ["ruff", "robocop", "pytest", "robot --dryrun"]
    commands = dict(run.selftest_checks())
    assert commands["robocop"][-5:] == ["suites", "resources", "tests/harness", "tests/log_sample", "examples"]
    assert commands["robot --dryrun"][-3:] == ["suites", "tests/harness", "examples"]


def test_previous_output_and_server_logs_are_cleared(tmp_path):
    results = run.RESULTS
    (results / "harness").mkdir(parents=True)
    for name in ["output.xml", "server-a-1.srvlog", "harness/output.xml", "harness/server-b-2.srvlog", "keep.txt"]:
        (results / name).write_text("old")
    run.clear_previous([run.RobotRun("robot", [], results / "output.xml"),
                        run.RobotRun("harness", [], results / "harness" / "output.xml")])
    assert sorted(p.relative_to(results).as_posix() for p in results.rglob("*") if p.is_file()) == ["keep.txt"]


# ----- the closing line -----
def run_suite(tmp_path, body, *options) -> Path:
    suite = tmp_path / "s.robot"
    suite.write_text("*** Test Cases ***\n" + body)
    subprocess.run([sys.executable, "-m", "robot", "--outputdir", str(tmp_path), "--output", "out.xml",
                    "--log", "NONE", "--report", "NONE", *options, str(suite)], capture_output=True, check=False)
    return tmp_path / "out.xml"


def finished(output: Path | None, label: str = "robot", returncode: int = 0) -> run.RobotRun:
    return run.RobotRun(label, [], output, returncode=returncode)


def test_closing_line_counts_passed_failed_skipped(tmp_path, capsys):
    output = run_suite(tmp_path, "A\n    No Operation\nB\n    Fail    x\nC\n    Skip    y\n")
    assert run.closing_line([finished(output, returncode=1)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "robot: 1 passed, 1 failed, 1 skipped"


def test_closing_line_adds_the_harness_run_and_comes_last(tmp_path, capsys):
    (tmp_path / "h").mkdir()
    harness = run_suite(tmp_path / "h", "H1\n    No Operation\nH2\n    No Operation\n")
    suites = run_suite(tmp_path, "A\n    No Operation\nB\n    Fail    x\n")
    assert run.closing_line([finished(harness, "harness"), finished(suites, returncode=1)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["harness: 2 passed, 0 failed, 0 skipped", "robot: 3 passed, 1 failed, 0 skipped"]


def test_run_without_tests_is_a_failure(tmp_path, capsys):
    output = run_suite(tmp_path, "A\n    No Operation\n", "--include", "nothing", "--runemptysuite")
    assert run.closing_line([finished(output)]) == 1
    out = capsys.readouterr().out
    assert "no test was executed" in out
    assert out.splitlines()[-1] == "robot: 0 passed, 0 failed, 0 skipped"


def test_missing_output_is_a_failure(tmp_path, capsys):
    assert run.closing_line([run.RobotRun("robot", [], tmp_path / "none.xml")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["[run.py] robot did not run, which is a failure", "robot: 0 passed, 0 failed, 0 skipped"]


def test_killed_robot_is_not_reported_as_not_run(tmp_path, capsys):
    assert run.closing_line([finished(tmp_path / "none.xml", returncode=-signal.SIGKILL)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("[run.py] robot was killed by SIGKILL")
    assert "did not run" not in out[0]
    assert out[-1] == "robot: 0 passed, 0 failed, 0 skipped"


def test_truncated_output_is_a_failure(tmp_path, capsys):
    (tmp_path / "out.xml").write_text("<robot><suite")
    assert run.closing_line([finished(tmp_path / "out.xml", returncode=-signal.SIGKILL)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "robot was killed by SIGKILL" in out[-2]
    assert out[-1] == "robot: 0 passed, 0 failed, 0 skipped"


# ----- a whole run, with a suite of our own instead of llama-server -----
def test_relative_suite_and_output_directory_from_another_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(run, "describe_server", lambda: DESCRIPTION)
    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.robot").write_text("*** Test Cases ***\nA\n    No Operation\nB\n    Skip    later\n")
    monkeypatch.chdir(work)
    rc = run.execute({"selftest": False, "timeout": 120.0}, ["-d", "out", "--console", "none", "mine.robot"])
    assert rc == 0
    assert (work / "out" / "output.xml").is_file()
    assert (work / "out" / "xunit.xml").is_file()
    assert capsys.readouterr().out.splitlines()[-1] == "robot: 1 passed, 0 failed, 1 skipped"


@pytest.mark.parametrize(("argv", "listed", "rest"), [
    (["--list", "completion"], "completion", []),
    (["--list=chat"], "chat", []),
    (["--list"], "", []),
    (["--list", "-d", "/tmp/x"], "", ["-d", "/tmp/x"]),
])
def test_list_takes_an_optional_tag(argv, listed, rest):
    options, passthrough = run.parse_args(argv)
    assert options["list"] == listed
    assert passthrough == rest


def test_keyword_docs_cover_every_library_and_resource_with_an_index(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "RESULTS", tmp_path)
    assert run.keyword_docs()
    index = (tmp_path / "docs" / "index.html").read_text()
    for source in [*(run.ROOT / "libraries").glob("*Library.py"), *(run.ROOT / "resources").glob("*.resource")]:
        assert (tmp_path / "docs" / f"{source.stem}.html").is_file()
        assert f"href='{source.stem}.html'" in index


def test_rerun_failed_reruns_only_the_failures_and_merges_both_attempts(tmp_path):
    suite = tmp_path / "flaky.robot"
    marker = tmp_path / "marker"
    suite.write_text("*** Settings ***\nLibrary    OperatingSystem\n\n*** Test Cases ***\nPasses\n    No Operation\n\n"
                     f"Fails Until The Marker Exists\n    File Should Exist    {marker}\n")
    out = tmp_path / "out"

    def run_py(*args):
        done = subprocess.run([sys.executable, str(run.ROOT / "run.py"), *args, "-d", str(out), str(suite)],
                              capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout.strip().splitlines()

    assert run_py()[1][-1] == "robot: 1 passed, 1 failed, 0 skipped"
    marker.touch()
    code, lines = run_py("--rerun-failed")
    assert (code, lines[-1]) == (0, "robot: 2 passed, 0 failed, 0 skipped")
    assert any(line.endswith("passed only on rerun (it failed the first time): Flaky.Fails Until The Marker Exists")
               for line in lines)
    assert {"output-first-attempt.xml", "output-rerun.xml", "output.xml", "log.html"} <= {p.name for p in out.iterdir()}
    code, lines = run_py("--rerun-failed")
    assert code == 1 and "has no failed test to rerun" in lines[-2]


def test_processes_split_the_run_into_a_parallel_and_a_serial_part():
    runs = run.parallel_runs(run.suites_run(["--include", "chat"], DESCRIPTION), 2)
    parallel, serial = runs
    assert parallel.cmd[1:3] == ["-m", "pabot.pabot"]
    assert parallel.cmd[parallel.cmd.index("--processes") + 1] == "2"
    assert parallel.cmd[parallel.cmd.index("--command") + 1:parallel.cmd.index("--end-command")] == \
        [sys.executable, str(run.QUICK_EXIT_ROBOT)] == serial.cmd[:2]
    assert parallel.cmd[parallel.cmd.index("--exclude") + 1] == "serialORloadORload-smokeORsoakORload-soak"
    assert serial.cmd[serial.cmd.index("--exclude") + 1] == "NOTserialORloadORload-smokeORsoakORload-soak"
    for part in runs:  # the user's selection and the data source stay, after the part's own options
        assert part.cmd[-1] == str(run.SUITES) and "chat" in part.cmd
    assert (parallel.output.name, serial.output.name, serial.label) == (
        "output-parallel.xml", "output-serial.xml", "serial")


def test_processes_split_by_the_times_of_earlier_runs(monkeypatch, tmp_path):
    from llamatest.report import durations

    monkeypatch.setattr(run, "RESULTS", tmp_path)
    parallel, _ = run.parallel_runs(run.suites_run([], DESCRIPTION), 2)
    assert "--chunk" in parallel.cmd and "--ordering" not in parallel.cmd  # no figures yet: split by count
    durations.remember(durations.Durations(files={"suites/01__health/health.robot": 9.0,
                                                  "suites/02__props/props.robot": 5.0,
                                                  "suites/02__props/models.robot": 4.0,
                                                  "suites/21__load/soak.robot": 20.0,  # serial: not in this part
                                                  "suites/21__load/workloads.robot": 30.0}),  # load: not selected
                       tmp_path / run.SUITE_TIMES)
    parallel, _ = run.parallel_runs(run.suites_run([], DESCRIPTION), 2)
    ordering = Path(parallel.cmd[parallel.cmd.index("--ordering") + 1])
    assert "--chunk" not in parallel.cmd
    assert ordering.read_text() == ("{\n--suite Suites.Health.Health\n}\n"
                                    "{\n--suite Suites.Props.Props\n--suite Suites.Props.Models\n}\n")
    parallel, _ = run.parallel_runs(run.suites_run([str(run.SUITES / "01__health")], DESCRIPTION), 2)
    assert "--chunk" in parallel.cmd  # the user's own paths: the names in the figures may not match


def test_processes_give_each_parallel_server_its_share_of_the_cores(monkeypatch):
    monkeypatch.delenv("LLAMA_ARG_THREADS", raising=False)
    monkeypatch.setattr(run.os, "cpu_count", lambda: 2)
    parallel, serial = run.parallel_runs(run.suites_run([], DESCRIPTION), 2)
    assert (parallel.env, serial.env) == ({"LLAMA_ARG_THREADS": "1"}, None)  # the serial part has every core
    assert run.server_threads(4) == {"LLAMA_ARG_THREADS": "1"}
    monkeypatch.setenv("LLAMA_ARG_THREADS", "3")
    assert run.server_threads(2) == {}  # the caller's choice stands


def test_processes_merge_leaves_out_a_part_that_ran_no_test(tmp_path):
    """A selection without serial-tagged tests leaves the serial part empty; rebot would refuse it."""
    suite = tmp_path / "quick.robot"
    suite.write_text("*** Test Cases ***\nQuick\n    Log    one\n")
    parallel = run.RobotRun("robot", [], tmp_path / "output-parallel.xml", cwd=tmp_path, started=time.time() - 1)
    serial = run.RobotRun("serial", [], tmp_path / "output-serial.xml", returncode=0)
    (tmp_path / ".pabotsuitenames").touch()  # what pabot leaves where it runs
    for part, select in ((parallel, []), (serial, ["--include", "serial"])):
        part.returncode = subprocess.run(
            [sys.executable, "-m", "robot", *select, "--runemptysuite", "--output", str(part.output),
             "--log", "NONE", "--report", "NONE", str(suite)], stdout=subprocess.DEVNULL).returncode
    merged = run.combine_parallel(parallel, serial)
    assert run.tally(merged) == (1, 0, 0)
    assert list(merged.parts_s) == ["parallel"]  # the run's time is the part that ran, not a sum of processes
    assert merged.pabot_s is None  # no process outputs: the merged output's own time stands
    assert not (tmp_path / ".pabotsuitenames").exists()


def test_the_parallel_part_lasts_from_its_first_process_start_to_its_last_end(tmp_path):
    suite = tmp_path / "quick.robot"
    suite.write_text("*** Test Cases ***\nQuick\n    Sleep    0.2\n")
    for index in range(2):  # one after the other: the span holds both
        (tmp_path / str(index)).mkdir()
        subprocess.run([sys.executable, "-m", "robot", "--output", str(tmp_path / str(index) / "output.xml"),
                        "--log", "NONE", "--report", "NONE", str(suite)], stdout=subprocess.DEVNULL, check=True)
    from robot.api import ExecutionResult

    first, last = (ExecutionResult(str(tmp_path / str(i) / "output.xml")).suite for i in range(2))
    assert run.processes_span(tmp_path) == (last.end_time - first.start_time).total_seconds() >= 0.4
    assert run.processes_span(tmp_path / "none") is None


@pytest.mark.parametrize("value", ["0", "two", ""])
def test_processes_needs_a_positive_whole_number(value):
    with pytest.raises(SystemExit, match="--processes needs a whole number"):
        run.parse_args(["--processes", value])
