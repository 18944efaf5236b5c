"""The MCP fixtures, config and reference mapping, checked with the mcp SDK's own client (no llama-server)."""

import json
import os
import subprocess
import sys
import time
import uuid

import pytest

from llamatest.mcp import config, mapping, processes, reference
from llamatest.mcp.http_server import HttpMcpServer, json_rpc_reply
from llamatest.mcp.sdk import BackgroundSdk
from llamatest.settings import ENV_MCP_LIFETIME

ECHO_TOOLS = {"echo", "add", "repeat", "fail", "whereami", "count"}


def sdk_tools(command: list[str]) -> list[dict]:
    with reference.ReferenceSessions() as sessions:
        return sessions.tools(command)


def sdk_call(command: list[str], tool: str, arguments: dict) -> dict:
    with reference.ReferenceSessions() as sessions:
        return sessions.call(command, tool, arguments)


def test_echo_fixture_lists_its_tools_to_the_sdk_client():
    tools = sdk_tools(config.fixture_command("echo", "unit"))
    assert {tool["name"] for tool in tools} == ECHO_TOOLS


def test_a_result_maps_to_plain_text_and_an_error_result_to_error():
    command = config.fixture_command("echo", "unit")
    assert mapping.tools_answer(sdk_call(command, "add", {"a": 2, "b": 40})) == {
        "plain_text_response": "42"}
    assert mapping.tools_answer(sdk_call(command, "fail", {"reason": "no"})) == {
        "error": "Error executing tool fail: no"}


def test_text_parts_are_joined_by_newlines_and_other_parts_dropped():
    result = {"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x"},
                          {"type": "text", "text": "b"}]}
    assert mapping.tools_answer(result) == {"plain_text_response": "a\nb"}
    assert mapping.tools_answer({"content": [], "isError": True}) == {"error": "MCP tool returned an error"}


def test_tools_entry_names_the_tool_after_its_server():
    entry = mapping.tools_entry("srv", {"name": "t", "description": "d", "inputSchema": {"type": "object"}})
    assert entry["tool"] == entry["display_name"] == "srv_t"
    assert entry["definition"]["function"] == {"name": "srv_t", "description": "d",
                                               "parameters": {"type": "object"}}
    assert mapping.tools_entry("s", {"name": "t"})["definition"]["function"]["parameters"] == {}


def test_faulty_fixture_lists_one_tool():
    tools = sdk_tools(config.fixture_command("hang", "unit"))
    assert [tool["name"] for tool in tools] == ["echo"]


def test_empty_fixture_lists_no_tool():
    assert sdk_tools(config.fixture_command("empty", "unit")) == []


def test_burst_fixture_answers_the_sdk_client_after_its_notification():
    result = sdk_call(config.fixture_command("burst", "unit"), "echo", {"message": "one write"})
    assert mapping.tools_answer(result) == {"plain_text_response": "one write"}


def test_plain_fixture_answers_as_the_sdk_echo_server_does():
    plain, echo = config.fixture_command("plain", "unit"), config.fixture_command("echo", "unit")
    with reference.ReferenceSessions() as sessions:
        assert [tool["name"] for tool in sessions.tools(plain)] == ["echo", "whereami"]
        message = {"message": "héllo ✓"}
        assert (mapping.tools_answer(sessions.call(plain, "echo", message))
                == mapping.tools_answer(sessions.call(echo, "echo", message)) == {"plain_text_response": "héllo ✓"})
        where = [json.loads(mapping.tools_answer(sessions.call(command, "whereami", {"variable": "PATH"}))
                            ["plain_text_response"]) for command in (plain, echo)]
    assert where[0]["value"] == where[1]["value"] == os.environ["PATH"]
    assert [os.path.basename(w["cwd"]).startswith("llamatest-mcp-reference-") for w in where] == [True, True]


def test_config_entries_carry_the_marker_and_the_options(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_MCP_LIFETIME, raising=False)  # the default lifetime
    entries = [config.Entry("a", "echo", timeout_ms=5, env={"K": "v"}, cwd="/x"),
               config.Entry("b", "missing"), config.Entry("c", "url", url="http://127.0.0.1:1/mcp")]
    written = json.loads(config.write_config(tmp_path / "c.json", entries, "MARK").read_text())
    servers = written["mcpServers"]
    assert servers["a"]["args"][-2:] == ["MARK", "600.0"] and servers["a"]["timeout_ms"] == 5
    assert servers["a"]["env"] == {"K": "v"} and servers["a"]["cwd"] == "/x"
    assert servers["b"] == {"command": config.MISSING_COMMAND, "args": ["MARK"]}
    assert servers["c"] == {"url": "http://127.0.0.1:1/mcp"}


def test_unknown_fixture_kind_is_refused():
    with pytest.raises(ValueError, match="no MCP fixture of kind 'nope'"):
        config.fixture_command("nope", "m")


def test_a_fixture_is_found_by_its_marker_and_ended():
    marker = f"unit-{uuid.uuid4().hex}"
    proc = subprocess.Popen(config.fixture_command("hang", marker), stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not processes.fixture_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p.pid for p in processes.fixture_processes(marker)] == [proc.pid]
        assert processes.end_processes(processes.fixture_processes(marker)) == []
        assert processes.fixture_processes(marker) == []
    finally:
        proc.kill()


def test_a_fixture_ends_itself_when_its_parent_dies():
    marker = f"unit-{uuid.uuid4().hex}"
    # the intermediate shell starts the fixture in the background and exits at once: the fixture's parent is gone
    script = f"{' '.join(config.fixture_command('hang', marker))} </dev/null >/dev/null 2>&1 &"
    subprocess.run(["sh", "-c", script], check=True, timeout=10)
    deadline = time.monotonic() + 10
    while processes.fixture_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = processes.fixture_processes(marker)
    processes.end_processes(left)
    assert left == []


def test_a_fixture_ends_itself_when_its_lifetime_runs_out(monkeypatch):
    monkeypatch.setenv(ENV_MCP_LIFETIME, "0.3")
    command = config.fixture_command("hang", "unit")
    assert command[-1] == "0.3"
    # stdin stays open: only the lifetime can end it (with the lifeline's status 3)
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert proc.wait(timeout=10) == 3
    finally:
        proc.kill()


def test_http_fixture_serves_the_sdk_client_and_counts_requests():
    server = HttpMcpServer()
    url = server.start()
    try:
        assert {tool["name"] for tool in reference.sdk_tools_at(url)} == ECHO_TOOLS
        assert server.requests > 0
    finally:
        server.stop()


def test_fixture_interpreter_is_this_one():
    assert config.fixture_command("echo", "m")[0] == sys.executable
    assert os.path.isfile(config.fixture_command("crash", "m")[1])


def test_json_rpc_reply_comes_from_the_first_data_line_or_the_whole_body():
    assert json_rpc_reply('{"jsonrpc": "2.0", "id": 1, "result": {}}') == {"jsonrpc": "2.0", "id": 1, "result": {}}
    stream = 'event: message\ndata: {"id": 1, "result": 2}\n\ndata: {"id": 2}\n\n'
    assert json_rpc_reply(stream) == {"id": 1, "result": 2}


def test_the_background_sdk_opens_what_was_queued_and_answers_after_it():
    sdk = BackgroundSdk()
    command = config.fixture_command("plain", "unit")
    sdk.open_later([command])  # returns at once, before the import is done
    try:
        assert {tool["name"] for tool in sdk.sessions().tools(command)} == {"echo", "whereami"}
        assert mapping.tool_call_body("x_echo", {"a": 1}) == {"tool": "x_echo", "params": {"a": 1}}
    finally:
        sdk.close()
