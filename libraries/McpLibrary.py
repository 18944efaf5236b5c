"""MCP servers for llama-server's ``--mcp-servers-config``: our fixtures, what the SDK says they answer, and
the sweep that leaves no fixture process behind."""

import time
import uuid

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest import deadlines
from llamatest.mcp import config as _config
from llamatest.mcp import mapping as _mapping
from llamatest.mcp import processes as _processes
from llamatest.mcp.http_server import HttpMcpServer, json_rpc_reply
from llamatest.mcp.sdk import BackgroundSdk
from robot_glue import output_dir

POLL_S = 0.1


@library(scope="SUITE", auto_keywords=False)
class McpLibrary:
    """MCP fixture servers for llama-server's MCP client (stdio, Cursor-format config).

    An entry is a dictionary that names a server of the config (``name``) and its ``kind``: ``echo`` (a
    real server built with the mcp SDK: tools ``echo``, ``add``, ``repeat``, ``fail``, ``whereami``), a
    faulty one (``hang``, ``crash``, ``garbage``, ``shapeless``, ``notify``, ``oversized``: one tool
    ``echo`` that misbehaves so), ``plain`` (written by hand like those, but behaving: tools ``echo`` and
    ``whereami``; it starts in some 20 ms where the SDK server takes a second, for the tests about the config and
    the processes rather than the protocol), ``missing`` (a command that does not exist) or ``url`` (the HTTP fixture of
    `Start Http Mcp Server`, given by its URL). Optional keys: ``timeout_ms``, ``cwd``, ``env`` (a
    dictionary). Every fixture process of the suite carries a marker on its command line; `Stop Mcp
    Fixtures` ends any that remain.
    """

    def __init__(self) -> None:
        self.marker = f"llamatest-mcp-{uuid.uuid4().hex[:12]}"
        self._http: HttpMcpServer | None = None
        # the SDK client and its own fixtures (each kind started once for the suite, not once per expected answer),
        # imported in the background from now on (llamatest.mcp.sdk)
        self._sdk = BackgroundSdk()

    @keyword("Write Mcp Config")
    def write_mcp_config(self, *entries: dict, marker: str | None = None) -> str:
        """Writes the ``mcpServers`` JSON of ``entries`` to a new file of the output directory; returns its path.

        ``marker`` (default: the suite's) names the fixture processes on their command line."""
        path = output_dir() / "mcp" / f"{marker or self.marker}-{uuid.uuid4().hex[:6]}.json"
        url = self._http.url if self._http else None
        _config.write_config(path, [_entry(entry, url) for entry in entries], marker or self.marker)
        logger.info(f"MCP config {path}:\n{path.read_text(encoding='utf-8')}")
        return str(path)

    @keyword("Expected Mcp Tools")
    def expected_mcp_tools(self, *entries: dict) -> list[dict]:
        """The ``GET /tools`` items llama-server should list for ``entries``: each fixture's tools as the
        SDK client lists them, named ``<server>_<tool>``."""
        items = []
        for entry in entries:
            tools = self._sdk.sessions().tools(_reference_command(entry["kind"]))
            items.extend(_mapping.tools_entry(entry["name"], tool) for tool in tools)
        return sorted(items, key=lambda item: item["tool"])

    @keyword("Start Sdk Reference Fixtures")
    def start_sdk_reference_fixtures(self, *entries: dict) -> None:
        """Starts, in the background, the fixtures of ``entries`` that the SDK client asks for the expected
        answers (one per kind, for the whole suite), so that they start while llama-server does (once the SDK is
        imported, itself in the background); the first expected answer of a kind waits for its fixture."""
        self._sdk.open_later([_reference_command(entry["kind"]) for entry in entries])

    @keyword("Expected Mcp Answer")
    def expected_mcp_answer(self, entry: dict, tool: str, **arguments) -> dict:
        """The ``POST /tools`` body llama-server should answer for ``tool`` of ``entry`` with ``arguments``:
        the SDK client's result of the same call, mapped as the server's README-dev says."""
        answer = self._sdk.sessions().call(_reference_command(entry["kind"]), tool, arguments)
        return _mapping.tools_answer(answer)

    @keyword("Tool Call Bodies")
    def tool_call_bodies(self, tool: str, argument: str, *values) -> list[dict]:
        """One ``POST /tools`` body per value: ``tool`` called with ``{argument: value}``, in order."""
        return [_mapping.tool_call_body(tool, {argument: value}) for value in values]

    @keyword("Answers Should Be Equal")
    def answers_should_be_equal(self, answer: dict, expected: dict) -> None:
        """``answer == expected``; a mismatch names the first differing key with short excerpts, so that a
        huge result does not flood the log."""
        if answer == expected:
            return
        for key in sorted(set(answer) | set(expected)):
            got, want = answer.get(key), expected.get(key)
            if got != want:
                raise AssertionError(f"'{key}' differs: got {_excerpt(got)}, expected {_excerpt(want)}")

    @keyword("Mcp Fixture Process Count")
    def mcp_fixture_process_count(self, marker: str | None = None) -> int:
        """How many fixture processes with ``marker`` (default: the suite's) are alive."""
        return len(_processes.fixture_processes(marker or self.marker))

    @keyword("Mcp Fixture Processes Should End")
    def mcp_fixture_processes_should_end(self, marker: str | None = None, timeout: float | None = None) -> None:
        """Waits up to ``timeout`` seconds until no fixture process with ``marker`` is alive; then fails,
        naming and killing those that remain (default: the ``mcp_exit`` deadline)."""
        marker = marker or self.marker
        timeout = deadlines.or_default(timeout, "mcp_exit")
        deadline = time.monotonic() + timeout
        while (alive := _processes.fixture_processes(marker)) and time.monotonic() < deadline:
            time.sleep(POLL_S)
        if alive:
            names = _processes.describe(alive)
            _processes.end_processes(alive)
            raise AssertionError(f"MCP fixture processes still alive {timeout} s later (killed now): {names}")

    @keyword("Stop Mcp Fixtures")
    def stop_mcp_fixtures(self) -> None:
        """Stops the HTTP fixture and the SDK client's own fixtures, and kills any fixture process of the suite
        left alive (with a warning)."""
        self.stop_http_mcp_server()
        try:
            self._sdk.close()  # raises when the SDK's import failed or timed out: the sweep below still runs
        finally:
            left = _processes.fixture_processes(self.marker)
            if left:
                logger.warn(f"MCP fixture processes left alive, killed: {_processes.describe(left)}")
                still = _processes.end_processes(left)
                if still:
                    raise AssertionError(f"could not end MCP fixture processes: {_processes.describe(still)}")

    @keyword("Start Http Mcp Server")
    def start_http_mcp_server(self) -> str:
        """Starts the echo MCP server over streamable HTTP on 127.0.0.1; returns its URL."""
        self._sdk.module()  # the SDK's server, loaded in the background
        self._http = HttpMcpServer()
        return self._http.start()

    @keyword("Http Mcp Server Request Count")
    def http_mcp_server_request_count(self) -> int:
        """How many HTTP requests the HTTP fixture has received."""
        return self._http.requests

    @keyword("Stop Http Mcp Server")
    def stop_http_mcp_server(self) -> None:
        """Stops the HTTP fixture, if it runs."""
        if self._http is not None:
            self._http.stop()
            self._http = None

    @keyword("Json Rpc Reply Of")
    def json_rpc_reply_of(self, body: str):
        """The JSON-RPC reply an MCP server sent over streamable HTTP, from the answer ``body`` (``${resp.text}``):
        the JSON of its first ``data:`` line when it is an event stream, else the whole body parsed as JSON."""
        return json_rpc_reply(body)

    @keyword("Http Mcp Tools")
    def http_mcp_tools(self, url: str) -> list[str]:
        """The tool names the MCP server at ``url`` lists to the SDK client (streamable HTTP)."""
        return [tool["name"] for tool in self._sdk.module().sdk_tools_at(url)]




def _excerpt(value, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _reference_command(kind: str) -> list[str]:
    """The command line of the fixture of ``kind`` that the SDK client talks to (llama-server runs its own)."""
    return _config.fixture_command(kind, "llamatest-mcp-reference")


def _entry(value: dict, http_url: str | None) -> _config.Entry:
    options = {key: value[key] for key in ("timeout_ms", "cwd") if key in value}
    url = http_url if value["kind"] == "url" else None
    return _config.Entry(value["name"], value["kind"], env=dict(value.get("env", {})), url=url, **options)
