"""An MCP server over stdio written by hand: it misbehaves on purpose (the SDK cannot), or, in mode ``plain``, it
behaves and starts in some 20 ms where a server on the SDK takes a second (importing the mcp package).

``python faulty_server.py MODE MARKER LIFETIME`` (LIFETIME: see ``_lifeline``): it answers ``initialize`` and
``tools/list`` correctly (one tool, ``echo``; none in mode ``empty``; ``echo`` and ``whereami`` in mode ``plain``),
then answers every ``tools/call`` according to MODE:

- ``hang``: never answers;
- ``crash``: exits with status 1 at once;
- ``garbage``: writes lines that are not JSON, and no reply;
- ``shapeless``: replies with the right id but neither ``result`` nor ``error``;
- ``notify``: sends a notification, then the correct reply;
- ``burst``: the same, both lines in one ``write()``, so that they reach the reader together;
- ``empty``: lists no tool at all;
- ``grandchild``: answers correctly, but first leaves a child (``GRANDCHILD_S`` seconds long) that inherits
  its stdin, stdout and stderr, so the pipes stay open after this process is killed;
- ``oversized``: replies with one line of `OVERSIZED_BYTES` (over llama-server's 8 MiB line limit);
- ``plain``: the correct reply, as the SDK echo server's tools of the same names give it (``whereami``: its working
  directory and the value of one environment variable, as JSON): for the tests of the config and of the processes.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _lifeline import guard  # noqa: E402

OVERSIZED_BYTES = 9 * 1024 * 1024
GRANDCHILD_S = 20
TOOL = {"name": "echo", "description": "Returns the message unchanged.",
        "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}}
WHEREAMI = {"name": "whereami",
            "description": "Returns the working directory and the value of one environment variable, as JSON.",
            "inputSchema": {"type": "object", "properties": {"variable": {"type": "string"}}, "required": ["variable"]}}
TOOLS = {"empty": [], "plain": [TOOL, WHEREAMI]}  # every other mode: [TOOL]


def send(message: dict | str) -> None:
    sys.stdout.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    sys.stdout.flush()


def reply(req_id, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": req_id, "result": result})


def call(mode: str, request: dict) -> None:
    req_id = request.get("id")
    if mode == "crash":
        os._exit(1)
    if mode == "garbage":
        send("this is not JSON-RPC {")
        send("\x00\x01 nor this")
        return
    if mode == "oversized":
        reply(req_id, {"content": [{"type": "text", "text": "x" * OVERSIZED_BYTES}], "isError": False})
        return
    if mode == "shapeless":
        send({"jsonrpc": "2.0", "id": req_id})
        return
    if mode == "plain":
        reply(req_id, {"content": [{"type": "text", "text": plain_answer(request.get("params", {}))}],
                       "isError": False})
        return
    if mode in ("notify", "burst", "grandchild"):
        text = request.get("params", {}).get("arguments", {}).get("message", "")
        notification = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                   "params": {"level": "info", "data": "x"}})
        answer = json.dumps({"jsonrpc": "2.0", "id": req_id,
                             "result": {"content": [{"type": "text", "text": text}], "isError": False}})
        if mode == "burst":
            os.write(sys.stdout.fileno(), f"{notification}\n{answer}\n".encode())
            return
        if mode == "notify":
            send(notification)
        send(answer)
    # hang: no answer at all, ever


def plain_answer(params: dict) -> str:
    arguments = params.get("arguments", {})
    if params.get("name") == "whereami":
        return json.dumps({"cwd": os.getcwd(), "value": os.environ.get(arguments.get("variable", ""))})
    return arguments.get("message", "")


def serve(mode: str) -> None:
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        method = request.get("method")
        if method == "initialize":
            reply(request["id"], {"protocolVersion": request["params"]["protocolVersion"],
                                  "capabilities": {"tools": {}},
                                  "serverInfo": {"name": f"faulty-{mode}", "version": "1"}})
        elif method == "tools/list":
            reply(request["id"], {"tools": TOOLS.get(mode, [TOOL])})
        elif method == "tools/call":
            call(mode, request)
        elif "id" in request:
            # JSON-RPC 2.0: every request gets a response (the SDK client probes with `server/discover`)
            send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    guard(float(sys.argv[3]))
    if sys.argv[1] == "grandchild":
        import subprocess  # here only: importing it would cost every other fixture's start some 8 ms

        # the marker on its command line lets the run find and end it like the fixture itself
        subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({GRANDCHILD_S})", sys.argv[2]])
    serve(sys.argv[1])
