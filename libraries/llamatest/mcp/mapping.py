"""How llama-server's ``/tools`` maps an MCP server's tools and results (its README-dev), without the mcp SDK.

Each tool becomes ``<server>_<tool>`` of type ``mcp`` with its description and input schema as an OpenAI
function, and a result's text parts are joined into ``plain_text_response`` (``error`` when the result is an
error). McpLibrary builds expected answers with these while the SDK itself is still imported in the background
(llamatest.mcp.sdk); the SDK's side is llamatest.mcp.reference."""

from __future__ import annotations


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
