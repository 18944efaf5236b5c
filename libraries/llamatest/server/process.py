"""llama-server processes: start on a free port, wait until ready, stop, report the exit code, never leak.

No Robot Framework here: the facade (LlamaServerLibrary) passes in the output directory, the
suite name and a logger. Every wait has a deadline. The safety nets against leaks are the pid
registry (swept by run.py), PR_SET_PDEATHSIG, and the facade's listener calling
``stop_suite``/``stop_all``.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import requests

from llamatest import deadlines, workdir
from llamatest.neterrors import is_refused
from llamatest.server import registry
from llamatest.server.binary import server_binary, server_version
from llamatest.server.flags import with_absolute_paths
from llamatest.server.presets import Preset
from llamatest.settings import ENV_SERVER_URL
from llamatest.textutil import join_url

HOST = "127.0.0.1"
BIND_ERRORS = ("couldn't bind", "address already in use")
# Between two /health requests: from 2 ms, 1.5 times longer each time, up to 20 ms. A tiny model is ready
# 15-25 ms after its spawn, which a fixed 20 ms saw at 40 ms; a model that loads for seconds is polled as often
# as before.
POLL_FIRST_S, POLL_GROWTH, POLL_S = 0.002, 1.5, 0.02
LISTEN_LINE_S = 0.25  # how long a 200 waits for the server's own "listening on" line before /proc is read
LISTEN_LINE_POLL_S = 0.002
LOG_TAIL_LINES = 30
TAIL_BYTES = 128 * 1024
PORT_TAKEN = ("warn", "expected")
LLAMA_ARG_PREFIX = "LLAMA_ARG_"  # llama-server reads its flags from these environment variables too

Log = Callable[[str, str], None]  # (level, message), level as Robot's: "INFO", "WARN"


def free_port() -> int:
    """A port that nothing listens on now (the kernel's choice); a race remains, hence bind retries."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
        return True


def tail(path: Path | None, lines: int = 50) -> str:
    """The last ``lines`` lines of a (possibly huge) text file; "" when it cannot be read."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as file:
            file.seek(max(0, file.seek(0, os.SEEK_END) - TAIL_BYTES))
            data = file.read()
    except OSError:
        return ""
    return "\n".join(data.decode(errors="replace").splitlines()[-lines:])


SECRET_FLAGS = ("--api-key",)  # their values never reach the log, the metadata or the .srvlog
MASK = "*****"


def shown_command_line(args: list[str]) -> str:
    """The command line quoted for a shell, with the value of every secret flag replaced by ``*****``."""
    shown: list[str] = []
    for arg in args:
        flag, equals, _ = arg.partition("=")
        if shown and shown[-1] in SECRET_FLAGS:
            shown.append(MASK)
        elif equals and flag in SECRET_FLAGS:
            shown.append(f"{flag}={MASK}")
        else:
            shown.append(arg)
    return shlex.join(shown)


def shown_environment(env: dict) -> str:
    """The ``LLAMA_ARG_*`` variables as a shell prefix (``LLAMA_ARG_THREADS=1 ``), a key's value masked."""
    return "".join(f"{name}={MASK if 'API_KEY' in name else shlex.quote(value)} "
                   for name, value in sorted(env.items()))


@dataclass
class Server:
    """A llama-server this process started (``proc`` set) or an external one (``proc`` None)."""

    alias: str
    url: str
    port: int | None = None
    proc: subprocess.Popen | None = None
    create_time: float | None = None
    log: Path | None = None
    args: list[str] = field(default_factory=list)
    model: str | None = None
    suite: str | None = None
    started_s: float | None = None
    attempts: list[tuple[int, str]] = field(default_factory=list)  # (port, outcome) per start attempt
    preset: Preset | None = None  # the preset it was started from (for an external one: asked for)
    env: dict[str, str] = field(default_factory=dict)  # the LLAMA_ARG_* variables the process was given
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # an external server's key: never logged
    cwd: Path | None = None  # the process's own working folder (llamatest.workdir), removed when it is stopped
    spawned_at: float | None = None  # time.monotonic() when the process was started

    @property
    def external(self) -> bool:
        return self.proc is None

    @property
    def command_line(self) -> str:
        """The exact command line, quoted so that it can be pasted into a shell."""
        return f"external server at {self.url}" if self.external else shown_command_line(self.args)

    def exit_code(self) -> int | None:
        """The exit code if the process has ended (negative: the signal that ended it), else None."""
        return None if self.external else self.proc.poll()


class StartFailed(AssertionError):
    """A start that did not reach a ready server. ``str()`` is the summary plus its details."""

    def __init__(self, summary: str, details: str = "", bind_error: bool = False):
        super().__init__(f"{summary}{details}")
        self.summary = summary
        self.bind_error = bind_error


def listens_on_port(server: Server) -> bool:
    """Identity check: the answer on the port comes from our process (tree), not a stale server."""
    try:
        procs = [psutil.Process(server.proc.pid)]
        procs += procs[0].children(recursive=True)
        return any(c.laddr.port == server.port and c.status == psutil.CONN_LISTEN
                   for p in procs for c in p.net_connections(kind="inet"))
    except psutil.Error:
        return False


def owns_port(server: Server) -> bool:
    """Identity check, cheap first: llama-server's own log names the address it listens on, and a port our process
    bound is no other's. The line comes a moment after /health answers 200 (the server logs from a thread of its
    own), so it is waited for up to ``LISTEN_LINE_S``; without it (a build that words it otherwise) `listens_on_port`
    decides, which costs 10-30 ms a start: psutil parses every TCP socket of the machine, thousands in TIME_WAIT
    during a run."""
    line = re.compile(rf"listening on \S*:{server.port}\b")
    end = time.monotonic() + LISTEN_LINE_S
    while server.log is not None:
        if line.search(tail(server.log, LOG_TAIL_LINES)):
            return True
        if time.monotonic() >= end:
            break
        time.sleep(LISTEN_LINE_POLL_S)
    return listens_on_port(server)


def api_prefix(flags) -> str:
    """The ``--api-prefix`` among the flags ("" without one): the server then answers /health under it."""
    flags = [str(flag) for flag in flags]
    for index, flag in enumerate(flags):
        if flag == "--api-prefix" and index + 1 < len(flags):
            return flags[index + 1].rstrip("/")
        if flag.startswith("--api-prefix="):
            return flag.partition("=")[2].rstrip("/")
    return ""


def wait_healthy(url: str, timeout: float, server: Server | None = None) -> None:
    """Polls ``GET url/health`` until it answers 200; raises StartFailed at the deadline.

    For a server we started (``server`` given): a process that exits fails at once, with the tail
    of its log (``bind_error`` set when it could not bind its port), and a 200 counts only when
    our process listens on the port. For an external server (no ``server``): a refused
    connection fails at once, since nothing listens there; a server that is still loading
    (503) is waited for.
    """
    deadline = time.monotonic() + timeout
    last = "no answer"
    pause = POLL_FIRST_S
    while True:
        if server is not None:
            _fail_if_exited(server)
        try:
            resp = requests.get(join_url(url, "/health"), timeout=deadlines.deadline("health_poll"))
            if resp.status_code == 200 and (server is None or owns_port(server)):
                return
            last = f"HTTP {resp.status_code} {resp.text[:200]}"
        except requests.RequestException as exc:
            if server is None and is_refused(exc):
                raise StartFailed("connection refused") from None
            last = type(exc).__name__
        if time.monotonic() >= deadline:
            log_tail = _log_tail_text(server) if server else ""
            raise StartFailed(f"no /health 200 within {timeout} s (last answer: {last})", log_tail)
        time.sleep(pause)
        pause = min(POLL_S, pause * POLL_GROWTH)


def _fail_if_exited(server: Server) -> None:
    code = server.exit_code()
    if code is not None:
        log_tail = _log_tail_text(server)
        bind_error = any(error in log_tail.lower() for error in BIND_ERRORS)
        raise StartFailed(f"process exited with code {code} before it was ready", log_tail, bind_error)


def _log_tail_text(server: Server) -> str:
    return f"; last lines of {server.log.name}:\n{tail(server.log, LOG_TAIL_LINES)}"


def server_props(url: str, timeout: float | None = None, headers: dict | None = None) -> dict:
    """The server's ``GET /props`` answer (``headers``: an external server's key)."""
    resp = requests.get(join_url(url, "/props"), headers=headers or {}, timeout=deadlines.or_default(timeout, "probe"))
    resp.raise_for_status()
    return resp.json()


def check_port(port: int, port_taken: str, alias: str) -> tuple[int, str | None, str]:
    """Which port to start on (0: any free one), and what to log about it at which level.

    A given port that is taken is replaced by a free one: with ``port_taken="warn"`` that is
    a warning, with ``"expected"`` (the caller took it on purpose) an INFO line, and then a
    free port is an error.
    """
    if port_taken not in PORT_TAKEN:
        raise AssertionError(f"port_taken must be one of {', '.join(PORT_TAKEN)}, not '{port_taken}'")
    if not port:
        if port_taken == "expected":
            raise AssertionError("port_taken=expected needs the taken port: give port=N")
        return 0, None, "INFO"
    if port_is_free(port):
        if port_taken == "expected":
            raise AssertionError(f"port {port} was expected to be taken, but it is free")
        return port, None, "INFO"
    level = "WARN" if port_taken == "warn" else "INFO"
    return 0, f"port {port} is already taken; starting '{alias}' on a free port instead", level


def spawn(binary: Path, model: str | None, flags, *, alias: str, port: int, output_dir: Path,
          env: dict | None = None, suite: str | None = None) -> Server:
    """Starts the process (not waiting for it), logging to ``server-ALIAS-PORT.srvlog``, and registers it.

    ``model`` None starts it without ``--model`` (router mode). The process runs in a new folder of its own
    (llamatest.workdir, named on the log's second line), so the binary, the model and every path flag are
    made absolute first.
    """
    model = None if model is None else str(Path(model).absolute())
    model_args = [] if model is None else ["--model", model]
    flags = with_absolute_paths([*model_args, "--host", HOST, "--port", str(port), *flags])
    args = [str(Path(binary).absolute()), *flags]
    output_dir.mkdir(parents=True, exist_ok=True)
    name = f"server-{workdir.file_name_part(alias)}-{port}"
    log = output_dir / f"{name}.srvlog"
    extra_env = {str(k): str(v) for k, v in (env or {}).items()}
    process_env = {**os.environ, **extra_env}
    # The variables a server inherits (run.py --processes sets LLAMA_ARG_THREADS) are part of how it ran.
    llama_env = {k: v for k, v in process_env.items() if k.startswith(LLAMA_ARG_PREFIX)}
    cwd = workdir.create(name)
    with open(log, "wb") as log_file:
        log_file.write(f"$ {shown_environment(llama_env)}{shown_command_line(args)}\n# cwd: {cwd}\n".encode())
        log_file.flush()
        # A file, never a PIPE: a verbose server would fill the pipe and block.
        try:
            argv, preexec = registry.dying_with_parent(args)
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                                    start_new_session=True, preexec_fn=preexec, env=process_env, cwd=cwd)
            spawned_at = time.monotonic()
        except BaseException:
            workdir.remove(cwd)
            raise
    try:
        create_time = psutil.Process(proc.pid).create_time()
    except psutil.Error:  # cannot happen to an unreaped child; be safe anyway
        create_time = None
    registry.register(proc.pid, port=port, alias=alias, log=str(log), cwd=str(cwd))
    return Server(alias=alias, url=f"http://{HOST}:{port}", port=port, proc=proc, create_time=create_time,
                  log=log, args=args, model=model, suite=suite, env=llama_env, cwd=cwd, spawned_at=spawned_at)


def stop_servers(servers: list[Server], grace: float) -> dict[str, int | None]:
    """Stops servers together (one shared ``grace``, see registry.kill_trees); alias -> exit code.

    The exit code is collected in one place (kill_trees reaps the process) and stored in the
    Popen, so a later ``poll``/``wait`` reports it too. External servers are left running (None).
    """
    running = [s for s in servers if not s.external and s.proc.poll() is None]
    codes = registry.kill_trees([(s.proc.pid, s.create_time) for s in running], grace)
    for server in running:
        code = codes.get(server.proc.pid)
        if code is not None:
            server.proc.returncode = code
        else:  # not collected: still alive after SIGKILL (a stuck process); Popen may see it later
            server.proc.poll()
    for server in servers:
        if not server.external:
            registry.unregister(server.proc.pid)
            workdir.remove(server.cwd)
    return {server.alias: server.exit_code() for server in servers}


class ServerPool:
    """The servers of one library instance, by alias."""

    def __init__(self, log: Log | None = None):
        self._servers: dict[str, Server] = {}
        self._log = log or (lambda level, message: None)

    # ----- lookup -----
    def get(self, alias: str) -> Server:
        if alias not in self._servers:
            known = ", ".join(self._servers) or "none"
            raise AssertionError(f"no server with alias '{alias}' (running: {known})")
        return self._servers[alias]

    def local(self, alias: str) -> Server:
        server = self.get(alias)
        if server.external:
            raise AssertionError(f"'{alias}' is an external server ({ENV_SERVER_URL}); "
                                 f"it has no process here")
        return server

    def aliases(self, suite: str | None = None) -> list[str]:
        """All aliases, or those started by ``suite``."""
        return [a for a, s in self._servers.items() if suite is None or s.suite == suite]

    # ----- start -----
    def start(self, model: str | Path | Callable[[], str | Path] | None, flags=(), *, alias: str, output_dir: Path,
              port: int = 0, port_taken: str = "warn", timeout: float | None = None, attempts: int = 3,
              external_ok: bool = False, env: dict | None = None, suite: str | None = None,
              preset: Preset | None = None) -> Server:
        """Starts a server and waits until it is ready; uses ``$LLAMA_SERVER_URL`` when ``external_ok``.

        ``model`` may be a callable, called only for a local start (an external server needs
        no model file); None starts it without ``--model`` (router mode). ``timeout`` (default: the
        ``server_start`` deadline) bounds each
        attempt; an attempt that fails because the port was taken is retried on another free port,
        up to ``attempts`` times. Any other early exit fails at once with the tail of the server's
        log. ``preset`` is only recorded on the server.
        """
        self._check_alias_free(alias)
        external = os.environ.get(ENV_SERVER_URL)
        timeout = deadlines.or_default(timeout, "server_start")
        if external_ok and external:
            server = self.use_external(external.rstrip("/"), alias=alias, timeout=timeout, suite=suite)
            server.preset = preset
            return server
        binary = server_binary()
        port, note, level = check_port(port, port_taken, alias)
        if note:
            self._log(level, note)
        model = model() if callable(model) else model
        tried: list[tuple[int, str]] = []
        for attempt in range(attempts):
            chosen = port if (port and attempt == 0) else free_port()
            server = spawn(binary, model, flags, alias=alias, port=chosen, output_dir=output_dir, env=env,
                           suite=suite)
            try:
                wait_healthy(server.url + api_prefix(flags), timeout, server)
            except StartFailed as failure:
                stop_servers([server], deadlines.deadline("failed_start"))
                tried.append((chosen, failure.summary))
                if not failure.bind_error:
                    raise StartFailed(f"llama-server '{alias}' failed to start: {failure}") from None
                self._log("INFO", f"llama-server '{alias}' could not bind port {chosen}; trying another port")
                continue
            server.started_s = time.monotonic() - server.spawned_at
            server.attempts = [*tried, (chosen, f"ready in {server.started_s:.2f} s")]
            server.preset = preset
            self._servers[alias] = server
            return server
        report = "\n".join(f"port {p}: {outcome}" for p, outcome in tried)
        raise StartFailed(f"llama-server '{alias}' could not bind a port in {attempts} attempts:\n{report}")

    def _check_alias_free(self, alias: str) -> None:
        if alias in self._servers:
            raise AssertionError(f"a server with alias '{alias}' is already running at "
                                 f"{self._servers[alias].url}: stop it first or use another alias")

    def launch(self, model: str | Path | None, flags=(), *, alias: str, output_dir: Path, env: dict | None = None,
               suite: str | None = None) -> Server:
        """Starts a local server and returns at once, without waiting for it to be ready: for a start-up that a
        test watches as it goes (a download that retries, a hub that never answers). It is stopped like any."""
        self._check_alias_free(alias)
        server = spawn(server_binary(), model, flags, alias=alias, port=free_port(), output_dir=output_dir, env=env,
                       suite=suite)
        self._servers[alias] = server
        return server

    def wait_ready(self, alias: str, timeout: float | None = None) -> Server:
        """Waits until a server that `launch` started answers ``/health`` 200 (``timeout``: the ``server_start``
        deadline), as `start` does after its spawn: servers launched one after the other load their models side
        by side. A start that failed is stopped and raised, without another port to try."""
        server = self.local(alias)
        try:
            wait_healthy(server.url + api_prefix(server.args), deadlines.or_default(timeout, "server_start"), server)
        except StartFailed as failure:
            self.stop(alias, deadlines.deadline("failed_start"))
            raise StartFailed(f"llama-server '{alias}' failed to start: {failure}") from None
        server.started_s = time.monotonic() - server.spawned_at
        server.attempts = [(server.port, f"ready in {server.started_s:.2f} s")]
        return server

    def use_external(self, url: str, *, alias: str, timeout: float | None = None, suite: str | None = None) -> Server:
        """Uses the running server at ``url`` under ``alias``; it is never stopped from here."""
        fix = f"start it, or unset {ENV_SERVER_URL} so that the suite starts its own server"
        try:
            wait_healthy(url, deadlines.or_default(timeout, "server_start"))
        except StartFailed as failure:
            if failure.summary == "connection refused":
                raise AssertionError(f"external server {ENV_SERVER_URL}={url}: connection refused, "
                                     f"nothing listens there: {fix}") from None
            raise AssertionError(f"external server {ENV_SERVER_URL}={url}: {failure}: {fix}") from None
        server = Server(alias=alias, url=url, suite=suite)
        self._servers[alias] = server
        return server

    # ----- stop -----
    def stop(self, alias: str, grace: float | None = None) -> int | None:
        """Stops ``alias`` and returns its exit code; None for an external or unknown alias."""
        return self.stop_many([alias], grace).get(alias)

    def stop_many(self, aliases: list[str], grace: float | None = None) -> dict[str, int | None]:
        servers = [self._servers.pop(a) for a in aliases if a in self._servers]
        return stop_servers(servers, deadlines.or_default(grace, "server_stop"))

    def stop_suite(self, suite: str | None, grace: float | None = None) -> dict[str, int | None]:
        return self.stop_many(self.aliases(suite), grace) if suite is not None else {}

    def stop_all(self, grace: float | None = None) -> dict[str, int | None]:
        return self.stop_many(self.aliases(), grace)

    def kill(self, alias: str) -> int:
        """SIGKILL to the server process only (a crash); the server stays known until stopped."""
        server = self.local(alias)
        server.proc.kill()
        return server.proc.wait(timeout=deadlines.deadline("kill"))

    def wait_exit(self, alias: str, timeout: float | None = None) -> int:
        server = self.local(alias)
        timeout = deadlines.or_default(timeout, "server_exit")
        try:
            return server.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"llama-server '{alias}' still running after {timeout} s") from None

    def keep_running(self, alias: str, seconds: float) -> None:
        """Waits until ``seconds`` have passed since ``alias`` was started (at once if they have); fails as soon as
        it exits before then."""
        server = self.local(alias)
        left = server.spawned_at + seconds - time.monotonic()
        try:
            code = server.proc.wait(timeout=max(left, 0.0))
        except subprocess.TimeoutExpired:
            return
        lived = time.monotonic() - server.spawned_at
        raise AssertionError(f"llama-server '{alias}' exited with code {code} {lived:.1f} s after its start, "
                             f"before {seconds:g} s:\n{tail(server.log)}")

    # ----- facts -----
    def description(self, alias: str) -> str:
        """Build and model of the server, as the server under test is: for suite metadata."""
        server = self.get(alias)
        if server.external:
            props = server_props(server.url, headers=server.headers)
            return (f"{props.get('build_info', 'unknown build')} (external server at {server.url}); "
                    f"model {props.get('model_path', 'unknown')}")
        model = "none (router mode)" if server.model is None else server.model
        return f"{server_version(Path(server.args[0]))}; model {model}"
