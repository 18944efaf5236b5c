#!/usr/bin/env python3
"""The one entry point: set up on first use, run the Robot suites, print the closing line.

    python3 run.py                 # every suite (bug-tagged tests excluded)
    python3 run.py --selftest      # ruff, robocop, pytest, dry run, libdoc, harness run, every suite
    python3 run.py --include health -v SLOTS:4 suites/01__health

`python3 run.py --help` lists run.py's own options; everything else goes to robot, after the
defaults in robot.args. Set-up (venv, packages, the llama-server wheel) is llamatest.bootstrap.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# The one sys.path line: before set-up the venv (whose llamatest.pth lists libraries/) may not exist.
if str(ROOT / "libraries") not in sys.path:
    sys.path.insert(0, str(ROOT / "libraries"))

from llamatest import bootstrap, settings  # noqa: E402  (stdlib only, importable before set-up)

RESULTS = settings.RESULTS
ROBOT_ARGS = ROOT / "robot.args"
SUITES = ROOT / "suites"
HARNESS = ROOT / "tests" / "harness"
ROOT_RELATIVE_OPTIONS = ("outputdir", "pythonpath")  # path options in robot.args, relative to ROOT
DEFAULT_TIMEOUT = 2400
KILL_GRACE = 60
HEALTH_TIMEOUT = 2.0
NO_TESTS_COLLECTED = 5  # pytest's exit code when it found nothing to run
say = bootstrap.say

HELP = f"""\
usage: python3 run.py [run.py options] [robot options] [data sources]

Sets up on first use (a venv in .venv, the Python packages, llama-server built once and cached),
kills servers leaked by earlier runs, runs robot, and ends with one line of its own:
    robot: N passed, N failed, N skipped
The exit status is non-zero when a test failed, a check failed, or no test ran.

run.py options:
  --selftest           the project's own checks first: ruff, robocop, pytest, a robot dry run,
                       libdoc of the libraries and resources into results/docs/, the harness
                       tests (tests/harness, output in results/harness/), then the suites;
                       the closing line counts both runs
  --timeout SECONDS    bound the whole run (default {DEFAULT_TIMEOUT}); then SIGTERM so teardowns
                       run, SIGKILL {KILL_GRACE} s later
  --setup-only         set up and stop
  --build-sanitizer KINDS
                       build llama-server from the same sdist with sanitizers (address,
                       undefined or thread; address,undefined together), cache it, and print
                       the LLAMA_SERVER_BIN line that runs the suites against it
  -h, --help           this text

Environment variables:
  {settings.ENV_SERVER_BIN:<20} a llama-server binary to test instead of the one built by set-up
  {settings.ENV_SERVER_URL:<20} a running server for the suites that accept one (checked with
                       GET /health before robot starts)
  {settings.ENV_CACHE:<20} the model and wheel cache (default ~/.cache/llamatest)
  {settings.ENV_LOAD_HISTORY:<20} earlier load runs and baselines (default results/load-history)
  {bootstrap.ENV_VENV:<20} the virtual environment (default .venv in the repository)

Every other option goes to robot, after the defaults in robot.args (--outputdir results,
--exclude bug, wrong_usage and load unless an --include names them, ...); the default data source
is suites/.
Relative paths among them are relative to the current directory, as with robot itself.
For robot's options see: python -m robot --help  (after set-up: .venv/bin/python -m robot --help)
"""


class RunError(Exception):
    """A problem found before robot starts: reported in one line, then the closing line."""


# ----- run.py's own options (stdlib: parsed before set-up) -----
def parse_args(argv: list[str]) -> tuple[dict, list[str]]:
    options = {"selftest": False, "setup_only": False, "help": False, "timeout": float(DEFAULT_TIMEOUT),
               "sanitizer": None}
    rest = []
    args = iter(argv)
    for arg in args:
        if arg == "--selftest":
            options["selftest"] = True
        elif arg == "--setup-only":
            options["setup_only"] = True
        elif arg in ("-h", "-?", "--help"):
            options["help"] = True
        elif arg == "--build-sanitizer" or arg.startswith("--build-sanitizer="):
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            options["sanitizer"] = bootstrap.sanitizer_kinds(value)
        elif arg == "--timeout" or arg.startswith("--timeout="):
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            options["timeout"] = _seconds(value)
        else:
            rest.append(arg)
    return options, rest


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise SystemExit(f"[run.py] --timeout needs a number of seconds, got {value!r}")
    return seconds


# ----- robot's options, parsed by robot's own parser (inside the venv) -----
def robot_parser(env_options: bool = True):
    from robot.run import USAGE, RobotFramework
    from robot.utils import ArgumentParser

    # RobotFramework's own parser (same usage, same validator: unset options dropped), without
    # its "at least one data source" check: run.py supplies suites/ when none is given.
    return ArgumentParser(USAGE, validator=RobotFramework().validate,
                          env_options="ROBOT_OPTIONS" if env_options else None)


def parse_robot_args(args: list[str]) -> tuple[dict, list[str]]:
    """(options, data sources) exactly as robot would see them, ROBOT_OPTIONS and -A files included."""
    from robot.errors import DataError, Information

    try:
        return robot_parser().parse_args(args)
    except Information:
        raise
    except DataError as err:
        raise RunError(f"robot options: {err}") from None


def names_tag(patterns: list[str], tag: str) -> bool:
    """Whether a tag pattern (`bug`, `bug*`, `chatORbug`, `bugANDchat`) names `tag`."""
    from robot.utils import Matcher

    operands = (op.strip() for pattern in patterns for op in re.split(r"AND|OR|NOT|&", pattern))
    return any(op and Matcher(op, ignore=["_"]).match(tag) for op in operands)


def robot_defaults(includes: list[str] | tuple = ()) -> list[str]:
    """robot.args as command-line arguments, its relative paths resolved against the repository.

    A default ``--exclude TAG`` (bug, wrong_usage, load) is dropped when one of ``includes`` names that tag.
    """
    options, _ = robot_parser(env_options=False).parse_args(["--argumentfile", str(ROBOT_ARGS)])
    options["exclude"] = [tag for tag in options.get("exclude", []) if not names_tag(list(includes), tag)]
    for name in ROOT_RELATIVE_OPTIONS:
        value = options.get(name)
        if isinstance(value, list):
            options[name] = [str(ROOT / item) for item in value]
        elif value:
            options[name] = str(ROOT / value)
    argv = []
    for name, value in options.items():
        for item in value if isinstance(value, list) else [value]:
            if item is True:
                argv.append(f"--{name}")
            elif item is False:
                argv.append(f"--no{name}")
            elif item is not None:
                argv += [f"--{name}", item]
    return argv


def output_file(robot_args: list[str]) -> tuple[Path | None, bool]:
    """The output.xml a robot run with these arguments writes (None with --output NONE).

    With --timestampoutputs robot adds its start time to the name: the path comes without it,
    and True says so (the closing line then reads the newest such file of this run).
    """
    from robot.conf import RobotSettings

    options, _ = parse_robot_args(robot_args)
    timestamped = bool(options.pop("timestampoutputs", False))
    output = RobotSettings(options).output
    return (Path(output) if output else None), timestamped


@dataclass
class RobotRun:
    label: str  # "robot" (the suites) or "harness" (tests of the project's own tooling)
    cmd: list[str]
    output: Path | None
    cwd: Path | None = None  # None: the caller's directory, so relative paths mean what they say
    timestamped: bool = False  # --timestampoutputs: output is the name before robot adds the time
    returncode: int | None = None  # None: it never ran
    started: float = 0.0  # time.time() when it started

    def output_written(self) -> Path | None:
        """The output.xml this run wrote, if any."""
        if self.output is None:
            return None
        if not self.timestamped:
            return self.output if self.output.is_file() else None
        pattern = f"{self.output.stem}-" + "[0-9]" * 8 + "-" + "[0-9]" * 6 + self.output.suffix
        found = [path for path in self.output.parent.glob(pattern) if path.stat().st_mtime >= self.started]
        return max(found, key=lambda path: path.stat().st_mtime, default=None)

    @property
    def name(self) -> str:
        return "robot" if self.label == "robot" else f"robot ({self.label} run)"


def suites_run(passthrough: list[str], description: str = "") -> RobotRun:
    """The main run: robot.args, the server metadata, the passed-through options, suites/ by default."""
    options, sources = parse_robot_args(passthrough)
    cmd = [sys.executable, "-m", "robot", *robot_defaults(options.get("include", []))]
    if description:
        cmd += ["--metadata", f"llama-server:{description}"]
    cmd += passthrough
    if not sources:
        cmd.append(str(SUITES))
    output, timestamped = output_file(cmd[3:])
    return RobotRun("robot", cmd, output, timestamped=timestamped)


def harness_run() -> RobotRun:
    cmd = [sys.executable, "-m", "robot", *robot_defaults(), "--outputdir", str(RESULTS / "harness"),
           str(HARNESS)]
    output, _ = output_file(cmd[3:])
    return RobotRun("harness", cmd, output, cwd=ROOT)


# ----- checks before robot starts -----
def describe_server() -> str:
    """The server metadata; fails in one line when LLAMA_SERVER_BIN (or the built binary) is bad."""
    from llamatest.server.binary import server_description

    try:
        return server_description()
    except AssertionError as err:
        raise RunError(str(err)) from None
    except (OSError, subprocess.SubprocessError) as err:
        raise RunError(f"llama-server --version failed: {err}") from None


def check_external_server(url: str | None = None, timeout: float = HEALTH_TIMEOUT) -> None:
    """With LLAMA_SERVER_URL set, GET /health must answer 200 within `timeout` seconds."""
    from llamatest.server.process import StartFailed, wait_healthy

    url = os.environ.get(settings.ENV_SERVER_URL, "") if url is None else url
    if not url:
        return
    if not url.startswith(("http://", "https://")):
        raise RunError(f"{settings.ENV_SERVER_URL}={url} is not a URL: give it as http://HOST:PORT")
    try:
        wait_healthy(url, timeout)
    except StartFailed as failure:
        raise RunError(f"{settings.ENV_SERVER_URL}={url}: GET /health: {failure.summary}") from None


# ----- running -----
def sweep(when: str) -> None:
    from llamatest.server import registry

    for entry in registry.sweep(only_orphans=True):
        what = f"llama-server on port {entry['port']}" if "port" in entry else entry.get("role", "process")
        say(f"{when}: killed leaked {what}, pid {entry['pid']} (its owner pid {entry.get('owner_pid')} is gone)")


def run_bounded(cmd: list[str], timeout: float, cwd: Path | None = ROOT) -> int:
    """Run in its own process group; on timeout or Ctrl-C: SIGTERM (teardowns run), then SIGKILL.

    The child dies with run.py (even on kill -9) and is registered, so the next run's sweep
    kills whatever it left behind. A negative return code is the signal that killed it.
    """
    from llamatest.server import registry

    proc = subprocess.Popen(cmd, cwd=cwd, start_new_session=True, preexec_fn=registry.die_with_parent)
    registry.register(proc.pid, role=cmd[2])
    try:
        return proc.wait(timeout=timeout)
    except (subprocess.TimeoutExpired, KeyboardInterrupt) as stop:
        reason = "interrupted" if isinstance(stop, KeyboardInterrupt) else f"timeout of {timeout:g} s"
        say(f"stopping {' '.join(cmd[2:4])} ({reason})")
        # SIGTERM first, so robot runs its teardowns and writes its output; SIGKILL after the grace.
        code = registry.kill_tree(proc.pid, grace=KILL_GRACE)
        return code if code is not None else -signal.SIGKILL
    finally:
        registry.unregister(proc.pid)


class Deadline:
    """--timeout bounds the whole run: each step gets what is left."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return self.end - time.monotonic()


def exit_description(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"ended with exit code {returncode}"


def run_step(cmd: list[str], deadline: Deadline, cwd: Path | None = ROOT) -> int | None:
    """run_bounded within the deadline; None when no time was left to start it."""
    if deadline.left() <= 0:
        say(f"not started: {' '.join(cmd[2:4])} (the --timeout of {deadline.seconds:g} s is used up)")
        return None
    return run_bounded(cmd, deadline.left(), cwd)


def selftest_checks() -> list[tuple[str, list[str]]]:
    py = [sys.executable, "-m"]
    docs = RESULTS / "docs"
    return [
        ("ruff", py + ["ruff", "check", "."]),
        ("robocop", py + ["robocop", "check", "suites", "resources", "tests/harness"]),
        ("pytest", py + ["pytest", "-q", "tests"]),
        ("robot --dryrun", py + ["robot", "--dryrun", "--output", "NONE", "--log", "NONE", "--report", "NONE",
                                 "--console", "dotted", "suites", "tests/harness"]),
        *[(f"libdoc {lib.stem}", py + ["robot.libdoc", str(lib), str(docs / f"{lib.stem}.html")])
          for lib in [*sorted((ROOT / "libraries").glob("*Library.py")),
                      *sorted((ROOT / "resources").glob("*.resource"))]],
    ]


def selftest(deadline: Deadline) -> bool:
    """The project's own checks before the robot runs: linters, unit tests, a dry run, keyword docs."""
    failed = []
    for name, cmd in selftest_checks():
        returncode = run_step(cmd, deadline)
        if returncode == 0:
            continue
        if returncode is None:
            failed.append(f"{name} (not run)")
        elif name == "pytest" and returncode == NO_TESTS_COLLECTED:
            failed.append("pytest (no tests collected)")
        else:
            failed.append(f"{name} ({exit_description(returncode)})")
    if failed:
        say(f"self-test checks failed: {', '.join(failed)}")
    return not failed


def clear_previous(runs: list[RobotRun]) -> None:
    """The previous run's output.xml and server logs must not be mistaken for this run's."""
    RESULTS.mkdir(exist_ok=True)
    shutil.rmtree(RESULTS / "pabot_results", ignore_errors=True)
    directories = {RESULTS, *(run.output.parent for run in runs if run.output)}
    for directory in directories:
        for log in directory.glob("*.srvlog"):
            log.unlink(missing_ok=True)
    for run in runs:
        if run.output:
            run.output.unlink(missing_ok=True)  # a timestamped name is new anyway


# ----- the closing line -----
def tally(run: RobotRun) -> tuple[int, int, int] | None:
    """(passed, failed, skipped) from the run's output.xml, None when there is none to read."""
    from robot.api import ExecutionResult
    from robot.errors import DataError

    output = run.output_written()
    if output is None:
        return None
    try:
        stats = ExecutionResult(str(output)).statistics.total
    except DataError as err:
        if not (run.returncode and run.returncode < 0):  # a killed robot's output is cut short: no news
            say(f"{output} is unreadable: {err}")
        return None
    return stats.passed, stats.failed, stats.skipped


def missing_output_reason(run: RobotRun) -> str:
    if run.returncode is None:
        return f"{run.name} did not run, which is a failure"
    if run.returncode < 0:
        return f"{run.name} {exit_description(run.returncode)} and left no results, which is a failure"
    if run.output is None:
        return f"{run.name} wrote no output.xml (--output NONE): nothing to count, which is a failure"
    return f"{run.name} {exit_description(run.returncode)} without writing {run.output}, which is a failure"


def closing_line(runs: list[RobotRun]) -> int:
    """Print `robot: N passed, N failed, N skipped` over all runs, as the last line; return failures.

    A run that left no output.xml, or executed no test, counts as one failure.
    """
    passed = failed = skipped = problems = 0
    for run in runs:
        counts = tally(run)
        if counts is None:
            say(missing_output_reason(run))
            problems += 1
            continue
        if run.returncode is not None and run.returncode < 0:
            say(f"{run.name} {exit_description(run.returncode)}")
        if counts[0] + counts[1] == 0:
            say(f"{run.name}: no test was executed, which is a failure, not a pass")
            problems += 1
        if run.label != "robot":
            print(f"{run.label}: {counts[0]} passed, {counts[1]} failed, {counts[2]} skipped", flush=True)
        passed, failed, skipped = passed + counts[0], failed + counts[1], skipped + counts[2]
    print(f"robot: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return failed + problems


def main(argv: list[str]) -> int:
    options, passthrough = parse_args(argv)
    if options["help"]:
        print(HELP, end="")
        return 0
    if options["setup_only"]:
        bootstrap.ensure_setup()
        return 0
    if options["sanitizer"]:
        bootstrap.ensure_setup()
        binary = bootstrap.sanitizer_server(bootstrap.venv_dir(), options["sanitizer"])
        say(f"sanitizer build ({', '.join(options['sanitizer'])}) ready; run the suites against it with:")
        print(f"LLAMA_SERVER_BIN={binary} python3 run.py", flush=True)
        return 0
    if not bootstrap.in_venv():
        bootstrap.ensure_setup()
        python = str(bootstrap.venv_python())
        os.execv(python, [python, str(Path(__file__).resolve()), *argv])
    bootstrap.ensure_setup()
    return execute(options, passthrough)


def execute(options: dict, passthrough: list[str]) -> int:
    from robot.errors import Information

    deadline = Deadline(options["timeout"])
    try:
        parse_robot_args(passthrough)  # a bad robot option is reported before anything else happens
        runs = [suites_run(passthrough, describe_server())]
        if options["selftest"]:
            runs.insert(0, harness_run())
        check_external_server()
    except Information as info:  # robot's --version
        print(info)
        return 0
    except RunError as problem:
        say(str(problem))
        print("robot: 0 passed, 0 failed, 0 skipped", flush=True)
        return 1
    clear_previous(runs)
    sweep("before the run")
    checks_ok = True
    try:
        if options["selftest"]:
            checks_ok = selftest(deadline)
        for robot in runs:
            robot.started = time.time()
            robot.returncode = run_step(robot.cmd, deadline, robot.cwd)
            if robot.returncode is not None and robot.returncode < 0:
                print(flush=True)  # end the console line robot was writing when it was killed
    finally:
        sweep("after the run")
    failed = closing_line(runs)
    return 1 if (failed or not checks_ok) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
