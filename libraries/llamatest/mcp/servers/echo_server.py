"""A well-behaved MCP server over stdio, built with the mcp SDK: the tools the MCP suite calls.

Run by path (``python echo_server.py MARKER LIFETIME``); the marker argument only names the process so that
the run can find it (llamatest.mcp.processes); the process ends itself after LIFETIME seconds (``_lifeline``).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _lifeline import guard  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402

server = MCPServer("llamatest-echo", version="1.0", log_level="ERROR")


@server.tool()
def echo(message: str) -> str:
    """Returns the message unchanged."""
    return message


@server.tool()
def add(a: int, b: int) -> int:
    """Returns the sum of a and b."""
    return a + b


@server.tool()
def repeat(text: str, times: int) -> str:
    """Returns text repeated the given number of times (results of any size)."""
    return text * times


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason (an isError result)."""
    raise ToolError(reason)


@server.tool()
def whereami(variable: str) -> str:
    """Returns the working directory and the value of one environment variable, as JSON."""
    return json.dumps({"cwd": os.getcwd(), "value": os.environ.get(variable)})


_calls = {"count": 0}


@server.tool()
def count() -> int:
    """Returns how many times this tool was called in this process, this call included."""
    _calls["count"] += 1
    return _calls["count"]


if __name__ == "__main__":
    guard(float(sys.argv[2]))
    server.run("stdio")
    # the client closed stdin: end now. The interpreter's own shutdown (the mcp package's modules) takes a quarter
    # of a second, which the SDK client's session, and so the MCP suite's teardown, would wait for
    sys.stdout.flush()
    os._exit(0)
