"""Other OpenAI-compatible servers over llama.cpp ("peers"): llama-cpp-python's own server, installed on
demand apart from the project venv, started, waited for and stopped like llama-server.

A peer lives in its own virtual environment under ``$LLAMATEST_CACHE/peers/llama-cpp-python-VERSION/``:
it pins its own web stack (fastapi, uvicorn, pydantic) and compiles llama.cpp again, so it must not touch
the project venv. The compile uses the project's lean, portable CPU flags (never ``-march=native``: AMX
kernels SIGILL on VMs that advertise AMX). A stamp file (the requirement, the CMake flags and the
interpreter) makes a second run skip the build. run.py calls :func:`ensure_peer` only when a run
includes the tag ``llama-cpp-python``.

Its processes go through the same machinery as llama-server's (`llamatest.server.process`): a log file
whose first line is the command line, the pid registry that run.py sweeps, ``PR_SET_PDEATHSIG``, SIGTERM
then SIGKILL to the process tree. Readiness is ``GET /v1/models`` answering 200 from our own process: the
server has no ``/health``, and it loads the model before it listens.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import requests

from llamatest import deadlines
from llamatest.server import process
from llamatest.server.process import Server, StartFailed
from llamatest.settings import ENV_BUILD_JOBS, ROOT, cache_dir
from llamatest.textutil import join_url

REQUIREMENTS = ROOT / "requirements-peers.txt"
TAG = "llama-cpp-python"
VERSION = "0.3.36"
STAMP_NAME = ".llamatest-peer"
LAUNCHER_NAME = "llama-cpp-python-server"
READY_PATH = "/v1/models"  # llama-cpp-python has no /health; it answers once the model is loaded
POLL_S = 0.05
# llama-cpp-python's own build of llama.cpp: no tests, examples, tools or server of llama.cpp's.
CMAKE_ARGS = ["-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_TOOLS=OFF",
              "-DLLAMA_BUILD_SERVER=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DGGML_CCACHE=OFF"]
# The CPU flags of llamatest.bootstrap.CPU_ARGS (x86-64-v3), repeated so that this module's stamp does not
# change when the llama-server build's flags do.
CPU_ARGS = {"x86_64": ["-DGGML_NATIVE=OFF", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON",
                       "-DGGML_F16C=ON", "-DGGML_BMI2=ON"]}


class PeerBuildFailed(SystemExit):
    """The install of a peer failed; run.py ends with this one line (pip's output is above it)."""


# ----- install -----
def say(message: str) -> None:
    print(f"[run.py] {message}", flush=True)


def peer_dir() -> Path:
    return cache_dir() / "peers" / f"llama-cpp-python-{VERSION}"


def peer_python(root: Path | None = None) -> Path:
    return (root or peer_dir()) / "venv" / "bin" / "python"


def cmake_args(machine: str | None = None) -> list[str]:
    return [*CMAKE_ARGS, *CPU_ARGS.get(machine or platform.machine(), [])]


def requirement_lines(text: str | None = None) -> list[str]:
    """The requirement lines of requirements-peers.txt (comments and blanks dropped)."""
    text = REQUIREMENTS.read_text() if text is None else text
    return [line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()]


def peer_stamp(requirements: list[str], args: list[str], python_version: str = sys.version) -> str:
    """Changes when the pinned requirement, the CMake flags or the interpreter change."""
    return hashlib.sha256("\n".join([*requirements, *args, python_version]).encode()).hexdigest()


def is_installed(root: Path | None = None) -> bool:
    root = root or peer_dir()
    stamp_file = root / STAMP_NAME
    return (peer_python(root).exists() and stamp_file.exists()
            and stamp_file.read_text() == peer_stamp(requirement_lines(), cmake_args()))


def install_command(root: Path) -> list[str]:
    return [str(peer_python(root)), "-m", "pip", "install", "--disable-pip-version-check", "--no-cache-dir",
            "--no-binary", "llama-cpp-python", "-r", str(REQUIREMENTS)]


def ensure_peer(root: Path | None = None, jobs: str | None = None) -> Path:
    """llama-cpp-python's server installed once in its own venv; returns that venv's python.

    A second call finds the stamp and returns at once. A failed build leaves no stamp, so the next run
    tries again; pip's output goes to the console and the failure ends with one line (`PeerBuildFailed`).
    """
    root = root or peer_dir()
    python = peer_python(root)
    if is_installed(root):
        return python
    args = cmake_args()
    say(f"building {TAG} {VERSION} into {root} (compiles llama.cpp once: about 20 minutes on 2 busy cores)")
    root.mkdir(parents=True, exist_ok=True)
    jobs = jobs or os.environ.get(ENV_BUILD_JOBS, "2")
    env = {**os.environ, "CMAKE_ARGS": " ".join(args), "CMAKE_BUILD_PARALLEL_LEVEL": jobs, "FORCE_CMAKE": "1"}
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
        cmd = install_command(root)
        say("$ CMAKE_ARGS='" + env["CMAKE_ARGS"] + "' " + " ".join(cmd))
        subprocess.run(cmd, check=True, env=env, cwd=ROOT)
        subprocess.run([str(python), "-c", "import llama_cpp.server.app"], check=True)
    except subprocess.CalledProcessError as failed:
        raise PeerBuildFailed(f"[run.py] installing {TAG} {VERSION} failed (exit {failed.returncode} of "
                              f"{Path(failed.cmd[0]).name}): see its output above") from None
    launcher(root)
    (root / STAMP_NAME).write_text(peer_stamp(requirement_lines(), args))
    return python


def launcher(root: Path | None = None) -> Path:
    """An executable that runs ``python -m llama_cpp.server`` in the peer's venv, so that it is started
    like any server binary (``BINARY --model M --host H --port P FLAGS…``); written once."""
    root = root or peer_dir()
    path = root / "bin" / LAUNCHER_NAME
    text = (f"#!{peer_python(root)}\n"
            "import sys\n\nfrom llama_cpp.server.__main__ import main\n\nsys.exit(main())\n")
    if not (path.exists() and path.read_text() == text):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    return path


def require_installed(root: Path | None = None) -> Path:
    """The launcher of an installed peer; fails with how to install it otherwise."""
    root = root or peer_dir()
    if not is_installed(root):
        raise AssertionError(f"{TAG} {VERSION} is not installed in {root}: run "
                             f"'python3 run.py --include {TAG}', which builds it once (several minutes)")
    return launcher(root)


def installed_version(root: Path | None = None) -> str:
    """``llama-cpp-python X.Y.Z`` as the peer's venv reports it."""
    found = subprocess.run([str(peer_python(root)), "-c", "import llama_cpp; print(llama_cpp.__version__)"],
                           capture_output=True, text=True, timeout=deadlines.deadline("peer_version"))
    return f"{TAG} {found.stdout.strip() or 'unknown version'}"


# ----- processes -----
def server_flags(n_ctx: int = 512, n_threads: int | None = None, embedding: bool = False,
                 seed: int | None = None) -> list[str]:
    """llama-cpp-python's own options (``llama_cpp.server.settings``); it has one request slot, no --parallel."""
    flags = ["--n_ctx", str(n_ctx)]
    if n_threads is not None:
        flags += ["--n_threads", str(n_threads)]
    if embedding:
        flags += ["--embedding", "true"]
    if seed is not None:
        flags += ["--seed", str(seed)]
    return flags


def wait_ready(server: Server, timeout: float) -> None:
    """Polls ``GET /v1/models`` until our process answers 200; raises StartFailed at the deadline, or at once
    (with the log's tail) when the process exits."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    while True:
        code = server.exit_code()
        if code is not None:
            log_tail = process.tail(server.log, process.LOG_TAIL_LINES)
            bind_error = any(error in log_tail.lower() for error in process.BIND_ERRORS)
            raise StartFailed(f"process exited with code {code} before it was ready",
                              f"; last lines of {server.log.name}:\n{log_tail}", bind_error)
        try:
            resp = requests.get(join_url(server.url, READY_PATH), timeout=deadlines.deadline("peer_probe"))
            if resp.status_code == 200 and process.listens_on_port(server):
                return
            last = f"HTTP {resp.status_code} {resp.text[:200]}"
        except requests.RequestException as exc:
            last = type(exc).__name__
        if time.monotonic() >= deadline:
            raise StartFailed(f"no {READY_PATH} 200 within {timeout} s (last answer: {last})",
                              f"; last lines of {server.log.name}:\n{process.tail(server.log, process.LOG_TAIL_LINES)}")
        time.sleep(POLL_S)


def start_peer(model: str | Path, flags=(), *, alias: str, output_dir: Path, timeout: float | None = None,
               attempts: int = 3, suite: str | None = None, binary: Path | None = None) -> Server:
    """Starts llama-cpp-python's server on ``model`` on a free port of 127.0.0.1 and waits until it is ready.

    Like `ServerPool.start`: a start that could not bind its port is retried on another one, up to
    ``attempts`` times; any other early exit fails at once with the tail of the log. ``binary`` replaces the
    installed launcher (tests use a fake server).
    """
    binary = binary or require_installed()
    tried: list[tuple[int, str]] = []
    for _ in range(attempts):
        port = process.free_port()
        server = process.spawn(binary, str(model), flags, alias=alias, port=port, output_dir=output_dir,
                               suite=suite)
        started = time.monotonic()
        try:
            wait_ready(server, deadlines.or_default(timeout, "peer_start"))
        except StartFailed as failure:
            process.stop_servers([server], deadlines.deadline("failed_start"))
            tried.append((port, failure.summary))
            if not failure.bind_error:
                raise StartFailed(f"{TAG} server '{alias}' failed to start: {failure}") from None
            continue
        server.started_s = time.monotonic() - started
        server.attempts = [*tried, (port, f"ready in {server.started_s:.2f} s")]
        return server
    report = "\n".join(f"port {port}: {outcome}" for port, outcome in tried)
    raise StartFailed(f"{TAG} server '{alias}' could not bind a port in {attempts} attempts:\n{report}")


def stop_peers(servers: list[Server], grace: float | None = None) -> dict[str, int | None]:
    """SIGTERM to each process tree, SIGKILL after ``grace``; alias -> exit code (see `process.stop_servers`)."""
    return process.stop_servers(servers, deadlines.or_default(grace, "server_stop"))


if __name__ == "__main__":
    print(ensure_peer())
