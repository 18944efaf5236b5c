"""What llama-server should answer for an MCP server, from the mcp SDK's own client.

The SDK client spawns the same fixture over stdio, lists its tools and calls them; the server's
README-dev states how a tool and a result map onto ``/tools`` (llamatest.mcp.mapping)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import os

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.stdio import stdio_client

from llamatest import deadlines, workdir
from mcp import Client, StdioServerParameters


def _stdio(command: list[str], errlog, cwd):
    # the child's stderr goes to a real file: Robot's sys.stderr has no file descriptor; it runs in a folder of
    # its own (llamatest.workdir), never in the checkout
    return stdio_client(StdioServerParameters(command=command[0], args=command[1:], cwd=cwd), errlog=errlog)


class _Session:
    """One SDK client session with the fixture run by ``target`` (its command line) or the MCP server at
    ``target`` (a URL, streamable HTTP), held open by a task of the portal's event loop until `close` (a session
    must be left by the task that entered it)."""

    def __init__(self, portal: BlockingPortal, target: list[str] | str) -> None:
        self._client: Client | None = None
        self._error: BaseException | None = None
        self._opened = portal.call(anyio.Event)
        self._closing = portal.call(anyio.Event)
        self.task = portal.start_task_soon(self._hold, target)

    async def _hold(self, target: list[str] | str) -> None:
        try:
            with open(os.devnull, "w") as errlog, workdir.own_folder("mcp-reference") as cwd:
                async with Client(target if isinstance(target, str) else _stdio(target, errlog, cwd)) as client:
                    self._client = client
                    self._opened.set()
                    await self._closing.wait()
        except Exception as exc:  # noqa: BLE001 - handed to the request that waits for the session
            self._error = exc
        finally:
            self._opened.set()

    async def request(self, send):
        """``send(client)`` once the session is open; the error that ended the session if it could not open."""
        await self._opened.wait()
        if self._client is None:
            raise RuntimeError(f"the SDK client's session did not open: {self._error!r}")
        return await send(self._client)

    def close(self) -> None:
        """Lets the session's task leave the session (which ends the fixture): call in the portal's loop."""
        self._closing.set()


class ReferenceSessions:
    """The SDK client's sessions with MCP servers, one per fixture command line (or URL), each opened on the
    first request and kept open until `close`.

    Starting a fixture built on the mcp SDK takes about a second (importing the package), and a suite asks the
    same fixture for many answers: each is started once. The sessions live on an event loop in a thread of their
    own (an anyio blocking portal); every request, the opening of its session included, has the ``mcp_call``
    deadline."""

    def __init__(self) -> None:
        self._portal_context: contextlib.AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._sessions: dict[tuple[str, ...], _Session] = {}

    def __enter__(self) -> ReferenceSessions:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def open(self, targets: list[list[str] | str]) -> None:
        """Starts opening the sessions of ``targets`` at once, in the background: a request waits for its own."""
        for target in targets:
            self._session(target)

    def tools(self, target: list[str] | str) -> list[dict]:
        """The tools the fixture run by ``target`` (a command line), or the MCP server at ``target`` (a URL), lists
        to the SDK client (``name``, ``inputSchema``…)."""
        result = self._request(target, "listing the tools", lambda client: client.list_tools())
        return [tool.model_dump(by_alias=True, exclude_none=True) for tool in result.tools]

    def call(self, command: list[str], tool: str, arguments: dict) -> dict:
        """The ``tools/call`` result the fixture gives the SDK client (``content``, ``isError``…)."""
        result = self._request(command, f"calling {tool}", lambda client: client.call_tool(tool, arguments))
        return result.model_dump(by_alias=True, exclude_none=True)

    def _request(self, target: list[str] | str, what: str, send):
        seconds = deadlines.deadline("mcp_call")
        future = self._portal_now().start_task_soon(self._session(target).request, send)
        try:
            return future.result(timeout=seconds)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise AssertionError(f"the mcp SDK's client, {what}: no complete answer within {seconds:g} s") from None

    def _portal_now(self) -> BlockingPortal:
        if self._portal is None:
            self._portal_context = start_blocking_portal(name="mcp-reference")
            self._portal = self._portal_context.__enter__()
        return self._portal

    def _session(self, target: list[str] | str) -> _Session:
        key = (target,) if isinstance(target, str) else tuple(target)
        if key not in self._sessions:
            self._sessions[key] = _Session(self._portal_now(), target)
        return self._sessions[key]

    def close(self) -> None:
        """Ends every session (each fixture ends when its stdin closes), waits for them up to the ``mcp_stop``
        deadline, cancels what is left, and stops the event loop."""
        if self._portal is None:
            return
        for session in self._sessions.values():
            self._portal.call(session.close)
        concurrent.futures.wait([s.task for s in self._sessions.values()], timeout=deadlines.deadline("mcp_stop"))
        self._portal.call(self._portal.stop, True)  # cancels the sessions still open
        self._portal_context.__exit__(None, None, None)
        self._portal = self._portal_context = None
        self._sessions = {}


def sdk_tools_at(url: str) -> list[dict]:
    """The tools the MCP server at ``url`` (streamable HTTP) lists to the SDK client, in a session of its own."""
    with ReferenceSessions() as sessions:
        return sessions.tools(url)
