"""Robot facade of llamatest.peers: llama-cpp-python's own OpenAI-compatible server, started like llama-server."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest import htmllog as _htmllog
from llamatest import peers
from llamatest.models.catalog import resolve_model
from llamatest.server.process import Server
from robot_glue import open_session, output_dir, robot_variable

PEER = "peer"  # the default alias


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT", listener="SELF")
class PeerServerLibrary:
    """Starts and stops other OpenAI-compatible servers over llama.cpp: llama-cpp-python's server (FastAPI).

    %TOC%

    = The server =
    ``llama-cpp-python[server]`` (the version pinned in ``requirements-peers.txt``), installed by
    ``python3 run.py --include llama-cpp-python`` into its own virtual environment under
    ``~/.cache/llamatest/peers/`` and built once with the project's portable CPU flags. Without it the start
    keyword fails and says how to install it.

    = Aliases and the server argument =
    `Start Llama Cpp Python Server` returns the base URL (``http://127.0.0.1:PORT``) and opens a
    RequestsLibrary session under the alias (default ``peer``) *and* under that URL. Pass the URL as
    ``server=${URL}`` to the domain keywords of ``resources/``: the request keywords find the session by
    that name, and the stream keywords (StreamingLibrary) take a URL as the server.

    = No leaks =
    The process is started, registered and stopped by the same code as llama-server's: a
    ``server-ALIAS-PORT.srvlog`` whose first line is the command line, the pid registry that ``run.py``
    sweeps, ``PR_SET_PDEATHSIG``, SIGTERM then SIGKILL to the process tree. Servers a suite forgot are
    stopped with a warning when the suite ends, and all when the run ends.

    = Example =
    | ${PEER} =    | Start Llama Cpp Python Server | tiny | n_ctx=${1024} |
    | ${resp} =    | Chat | hello | server=${PEER} | max_tokens=${4} |
    | Stop Llama Cpp Python Server |
    """

    def __init__(self):
        self._servers: dict[str, Server] = {}

    # ----- listener interface: the safety nets -----
    def end_suite(self, data, result):
        forgotten = [alias for alias, server in self._servers.items() if server.suite == result.full_name]
        if forgotten:
            logger.warn(f"suite '{result.full_name}' ended with {peers.TAG} server(s) {', '.join(forgotten)} "
                        f"still running; stopping them")
            self._stop(forgotten, None)

    def close(self):
        self._stop(list(self._servers), None)

    # ----- keywords -----
    @keyword("Start Llama Cpp Python Server")
    def start_llama_cpp_python_server(self, model: str = "tiny", *flags: str, alias: str = PEER, n_ctx: int = 512,
                                      n_threads: int | None = None, embedding: bool = False,
                                      seed: int | None = None, timeout: float | None = None) -> str:
        """Starts ``python -m llama_cpp.server`` on the named ``model`` (as `Model Path` names them, or a
        ``.gguf`` path) on a free port of 127.0.0.1, waits until ``GET /v1/models`` answers 200, and returns
        the base URL.

        ``n_ctx`` (its one sequence's context), ``n_threads``, ``embedding`` and ``seed`` are its own
        options; raw ``flags`` (``--chat_format    chatml``) are appended. ``timeout`` bounds the start
        (the model loads before the server listens). Fails if ``alias`` is running.
        """
        if alias in self._servers:
            raise AssertionError(f"a {peers.TAG} server with alias '{alias}' is already running at "
                                 f"{self._servers[alias].url}: stop it first or use another alias")
        binary = peers.require_installed()
        model_path = resolve_model(model)
        args = [*peers.server_flags(n_ctx=n_ctx, n_threads=n_threads, embedding=embedding, seed=seed), *flags]
        server = peers.start_peer(model_path, args, alias=alias, output_dir=output_dir(), timeout=timeout,
                                  suite=robot_variable("${SUITE NAME}"), binary=binary)
        self._servers[alias] = server
        open_session(alias, server.url)
        open_session(server.url, server.url)
        name = _htmllog.escape(server.log.name)
        command = _htmllog.details("command line", _htmllog.pre(server.command_line))
        logger.info(f"{peers.TAG} server '{_htmllog.escape(alias)}' ready at {_htmllog.escape(server.url)} in "
                    f"{server.started_s:.2f} s (pid {server.proc.pid}); log: <a href=\"{name}\">{name}</a>{command}",
                    html=True)
        return server.url

    @keyword("Stop Llama Cpp Python Server")
    def stop_llama_cpp_python_server(self, alias: str = PEER, grace: float | None = None) -> int | None:
        """Stops the server: SIGTERM to its process tree, SIGKILL after ``grace`` seconds; returns its exit
        code (minus the signal that ended it). Stopping an alias that is not running does nothing."""
        if alias not in self._servers:
            logger.info(f"no {peers.TAG} server '{alias}' is running; nothing to stop")
            return None
        code = self._stop([alias], grace)[alias]
        logger.info(f"{peers.TAG} server '{alias}' stopped; exit code {code}")
        return code

    @keyword("Peer Server Description")
    def peer_server_description(self, alias: str = PEER) -> str:
        """The server's name, version and model file, for suite metadata."""
        server = self._get(alias)
        return f"{peers.installed_version()} (python -m llama_cpp.server, FastAPI over llama.cpp); model {server.model}"

    @keyword("Peer Server Command Line")
    def peer_server_command_line(self, alias: str = PEER) -> str:
        """The exact command line, quoted for a shell."""
        return self._get(alias).command_line

    @keyword("Peer Server Should Be Running")
    def peer_server_should_be_running(self, alias: str = PEER) -> None:
        """Fails if the server process has exited, with its exit code and the tail of its log."""
        server = self._get(alias)
        code = server.exit_code()
        if code is not None:
            raise AssertionError(f"{peers.TAG} server '{alias}' exited with code {code}:\n"
                                 f"{peers.process.tail(server.log, 20)}")

    def _get(self, alias: str) -> Server:
        if alias not in self._servers:
            raise AssertionError(f"no {peers.TAG} server with alias '{alias}' (running: "
                                 f"{', '.join(self._servers) or 'none'})")
        return self._servers[alias]

    def _stop(self, aliases: list[str], grace: float | None) -> dict[str, int | None]:
        return peers.stop_peers([self._servers.pop(alias) for alias in aliases if alias in self._servers], grace)
