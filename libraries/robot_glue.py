"""What the keyword libraries share with Robot: a server alias as a URL and its headers, Robot variables, the
output folder. The one module facades import for it, so no facade imports another.

Not a keyword library (no keywords): a plain module on Robot's ``--pythonpath libraries``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from robot.libraries.BuiltIn import BuiltIn, RobotNotRunningError

from llamatest.server import target as _target


def server_base_url(server: str) -> str:
    """The base URL of the server alias ``server``, or ``server`` itself when it is a URL."""
    if server.startswith(("http://", "https://")):
        return server
    try:
        servers = BuiltIn().get_library_instance("LlamaServerLibrary")
    except (RuntimeError, AttributeError) as exc:  # not imported; Robot not running
        raise RuntimeError(f"cannot resolve server alias '{server}' without LlamaServerLibrary: {exc}") from None
    return servers.server_url(server)


def server_headers(server: str) -> dict:
    """The headers every request to the server alias ``server`` needs: ``Authorization: Bearer`` with
    ``$LLAMATEST_API_KEY`` for the external server, {} otherwise (a managed server's tests send their keys)."""
    if server.startswith(("http://", "https://")):
        return _target.auth_headers() if server.rstrip("/") == _target.external_url() else {}
    try:
        servers = BuiltIn().get_library_instance("LlamaServerLibrary")
    except (RuntimeError, AttributeError):
        return {}
    return servers.headers_of(server)


def robot_variable(name: str):
    """A Robot variable's value, or None when Robot is not running (the libraries are also used from Python)."""
    try:
        return BuiltIn().get_variable_value(name)
    except RobotNotRunningError:
        return None


def output_dir(fallback: Path | None = None) -> Path:
    """Robot's output folder, or ``fallback`` (a temporary folder by default) when Robot is not running."""
    directory = robot_variable("${OUTPUT DIR}")
    if directory:
        return Path(directory)
    return fallback if fallback is not None else Path(tempfile.gettempdir()) / "llamatest-servers"


def current_suite() -> str | None:
    return robot_variable("${SUITE NAME}")
