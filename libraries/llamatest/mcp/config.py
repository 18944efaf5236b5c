"""The ``mcpServers`` JSON (Cursor format) llama-server reads with ``--mcp-servers-config``.

Each entry names one of our fixture servers (``servers/``) by a kind: ``echo`` (the SDK server), one of
the faulty modes (``hang``, ``crash``, ``garbage``, ``shapeless``, ``notify``, ``burst``, ``empty``,
``grandchild``, ``oversized``), ``plain`` (the hand-written server behaving, quick to start), ``missing`` (a
command that does not exist) or ``url`` (an HTTP server given by URL, the way Cursor declares remote servers).
Every spawned fixture carries the run's marker on its command line so that it can be found later.
"""

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from llamatest.settings import ENV_MCP_LIFETIME

SERVERS = Path(__file__).parent / "servers"
FAULTY_MODES = ("hang", "crash", "garbage", "shapeless", "notify", "burst", "empty", "grandchild",
                "oversized", "plain")
MISSING_COMMAND = "llamatest-no-such-mcp-server"
LIFETIME_S = 600.0  # a fixture process's longest life without $LLAMATEST_MCP_LIFETIME


@dataclass
class Entry:
    """One server of the config: its name in ``mcpServers``, its kind, and the optional keys."""
    name: str
    kind: str
    timeout_ms: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None


def fixture_command(kind: str, marker: str) -> list[str]:
    """The command line (interpreter first) that runs the fixture of ``kind`` with the ``marker``; its last
    argument is the `fixture_lifetime`, read here so that the fixture imports nothing of llamatest."""
    lifetime = str(fixture_lifetime())
    if kind == "echo":
        return [sys.executable, str(SERVERS / "echo_server.py"), marker, lifetime]
    if kind in FAULTY_MODES:
        return [sys.executable, str(SERVERS / "faulty_server.py"), kind, marker, lifetime]
    raise ValueError(f"no MCP fixture of kind '{kind}': echo or one of {', '.join(FAULTY_MODES)}")


def fixture_lifetime() -> float:
    """Seconds a fixture process lives at most: ``$LLAMATEST_MCP_LIFETIME``, else `LIFETIME_S`."""
    return float(os.environ.get(ENV_MCP_LIFETIME) or LIFETIME_S)


def entry_json(entry: Entry, marker: str) -> dict:
    """The ``mcpServers`` value of one entry."""
    if entry.kind == "url":
        return {"url": entry.url}
    if entry.kind == "missing":
        value: dict = {"command": MISSING_COMMAND, "args": [marker]}
    else:
        command = fixture_command(entry.kind, marker)
        value = {"command": command[0], "args": command[1:]}
    if entry.timeout_ms is not None:
        value["timeout_ms"] = entry.timeout_ms
    if entry.env:
        value["env"] = dict(entry.env)
    if entry.cwd is not None:
        value["cwd"] = entry.cwd
    return value


def write_config(path: Path, entries: list[Entry], marker: str) -> Path:
    """Writes the config of ``entries`` to ``path`` (folders created) and returns the path."""
    config = {"mcpServers": {entry.name: entry_json(entry, marker) for entry in entries}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path
