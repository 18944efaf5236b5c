"""What llama-server should answer for an MCP server, from the mcp SDK's own client.

The SDK client spawns the same fixture over stdio, lists its tools and calls them; the server's
README-dev states how a tool and a result map onto ``/tools``: each tool becomes ``<server>_<tool>``
of type ``mcp`` with its description and input schema as an OpenAI function, and a result's text
parts are joined into ``plain_text_response`` (``error`` when the result is an error)."""

import contextlib
import os

import anyio
from mcp.client.stdio import stdio_client

from llamatest import deadlines, workdir
from mcp import Client, StdioServerParameters


def _stdio(command: list[str], errlog, cwd):
    # the child's stderr goes to a real file: Robot's sys.stderr has no file descriptor; it runs in a folder of
    # its own (llamatest.workdir), never in the checkout
    return stdio_client(StdioServerParameters(command=command[0], args=command[1:], cwd=cwd), errlog=errlog)


@contextlib.contextmanager
def _within(what: str):
    """The ``mcp_call`` deadline on a whole client session, missed in the words every deadline uses."""
    seconds = deadlines.deadline("mcp_call")
    try:
        with anyio.fail_after(seconds):
            yield
    except TimeoutError:
        raise AssertionError(f"the mcp SDK's client, {what}: no complete answer within {seconds:g} s") from None


async def _list(command: list[str] | None = None, url: str | None = None) -> list[dict]:
    with open(os.devnull, "w") as errlog, workdir.own_folder("mcp-reference") as cwd, _within("listing the tools"):
        async with Client(url or _stdio(command, errlog, cwd)) as client:
            result = await client.list_tools()
    return [tool.model_dump(by_alias=True, exclude_none=True) for tool in result.tools]


async def _call(command: list[str], tool: str, arguments: dict) -> dict:
    with open(os.devnull, "w") as errlog, workdir.own_folder("mcp-reference") as cwd, _within(f"calling {tool}"):
        async with Client(_stdio(command, errlog, cwd)) as client:
            result = await client.call_tool(tool, arguments)
    return result.model_dump(by_alias=True, exclude_none=True)


def sdk_tools(command: list[str]) -> list[dict]:
    """The tools the fixture run by ``command`` lists to the SDK client (``name``, ``inputSchema``…)."""
    return anyio.run(_list, command)


def sdk_tools_at(url: str) -> list[dict]:
    """The tools the MCP server at ``url`` (streamable HTTP) lists to the SDK client."""
    return anyio.run(_list, None, url)


def sdk_call(command: list[str], tool: str, arguments: dict) -> dict:
    """The ``tools/call`` result the fixture gives the SDK client (``content``, ``isError``…)."""
    return anyio.run(_call, command, tool, arguments)


def tools_entry(server: str, tool: dict) -> dict:
    """The ``GET /tools`` item of the MCP ``tool`` of ``server``."""
    name = f"{server}_{tool['name']}"
    schema = tool.get("inputSchema")
    return {"display_name": name, "tool": name, "type": "mcp", "permissions": {"write": False},
            "uses_cwd": False,
            "definition": {"type": "function", "function": {
                "name": name, "description": tool.get("description", ""),
                "parameters": schema if isinstance(schema, dict) else {}}}}


def tools_answer(result: dict) -> dict:
    """The ``POST /tools`` body for the MCP ``tools/call`` ``result``."""
    texts = [part.get("text", "") for part in result.get("content", []) if part.get("type") == "text"]
    text = "\n".join(texts)
    if result.get("isError"):
        return {"error": text or "MCP tool returned an error"}
    return {"plain_text_response": text}


def tool_call_body(tool: str, params: dict) -> dict:
    """The ``POST /tools`` request body that calls ``tool`` (``server_tool``) with ``params``."""
    return {"tool": tool, "params": params}
