"""What the keyword libraries share with Robot: a server alias as a URL and its headers, Robot variables, the
output folder, and the RequestsLibrary session of a server (opened, its log lines moved to TRACE, its status
check explained). The one module facades import for it, so no facade imports another, and the one place
that touches RequestsLibrary: `llamatest.http.session` only mounts a requests adapter.

Not a keyword library (no keywords): a plain module on Robot's ``--pythonpath libraries``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import requests
from robot.api import logger
from robot.libraries.BuiltIn import BuiltIn, RobotNotRunningError

from llamatest.http.session import StatusMismatch, explained_status, mount
from llamatest.server import running as _running
from llamatest.server import target as _target


def server_base_url(server: str) -> str:
    """The base URL of the server alias ``server``, or ``server`` itself when it is a URL."""
    if server.startswith(("http://", "https://")):
        return server
    try:
        return _running.url(server)
    except _running.NoServers as exc:
        raise RuntimeError(f"cannot resolve server alias '{server}': {exc}") from None


def server_headers(server: str) -> dict:
    """The headers every request to the server alias ``server`` needs: ``Authorization: Bearer`` with
    ``$LLAMATEST_API_KEY`` for the external server, {} otherwise (a managed server's tests send their keys)."""
    if server.startswith(("http://", "https://")):
        return _target.auth_headers() if server.rstrip("/") == _target.external_url() else {}
    return _running.headers(server)


def log_html(block: str) -> None:
    """Writes an HTML block to the log: what the package's log blocks are handed to."""
    logger.info(block, html=True)


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


# ---- the RequestsLibrary session of a server ----------------------------------------------------------------


def open_session(alias: str, url: str, timeout: float | None = None, headers: dict | None = None) -> None:
    """Creates (or replaces) the RequestsLibrary session ``alias`` for the server at ``url``, with the
    deadline adapter of `llamatest.http.session` mounted and its status check explained.

    Without ``timeout`` each exchange gets the ``exchange`` deadline of `llamatest.deadlines`, scaled when
    it starts (so a machine that turns busy mid-suite stretches the next exchange, not only the first).

    ``headers`` go with every request of the session; they are set after RequestsLibrary has
    created it, because it would log them (they may hold an API key). Does nothing when Robot
    Framework is not running or the suite does not import RequestsLibrary.
    """
    try:
        requests_library = BuiltIn().get_library_instance("RequestsLibrary")
    except (RobotNotRunningError, RuntimeError):
        return
    explain_status_failures(requests_library)
    move_requests_library_log_to_trace()
    session = mount(requests_library.create_session(alias, url, timeout=timeout, max_retries=0), timeout, log_html)
    session.headers.update(headers or {})


def explain_status_failures(requests_library) -> None:
    """Rewords the status failures of RequestsLibrary's (global) instance on our sessions' answers
    (``POST /detokenize: status was 500, expected 200; error …``); every other failure stays as it was."""
    # Why a patch: RequestsLibrary 0.9.7 has no hook for its status check. Its private
    # `SessionKeywords._check_status(expected_status, resp, msg)` is what every `* On Session` keyword and
    # `Status Should Be` call, so wrapping it on the instance is the one place to reword the failure. (A
    # listener's `end_keyword` could reword the message, but only RequestsLibrary knows which response it judged.)
    check = requests_library._check_status
    if getattr(check, "llamatest_explains", False):
        return

    def check_status(expected_status, resp, msg=None):
        try:
            check(expected_status, resp, msg)
        except (AssertionError, requests.HTTPError):
            exchange_id = getattr(resp, "exchange_id", None)
            if exchange_id is None:
                raise  # not an answer of our sessions: RequestsLibrary's message as it was
            raise StatusMismatch(explained_status(resp, expected_status, msg)) from None

    check_status.llamatest_explains = True
    requests_library._check_status = check_status


def move_requests_library_log_to_trace() -> None:
    """RequestsLibrary's two INFO lines per request become one short TRACE line each (``POST http://… → 200``):
    the adapter's exchange block says all of it, and their full text holds the request's headers (a key)."""
    # Why a patch: RequestsLibrary 0.9.7 has no option for its log lines, and a listener that rewrites them
    # (log_message) comes too late: `RequestsLibrary.log.log_response` formats `response.text` first, which
    # reads a `stream=True` answer to its end (an endless /models/sse never ends) and copies every large body.
    from RequestsLibrary import log as requests_library_log

    def request_line(response):
        logger.trace(f"{response.request.method} {response.request.url}")

    def response_line(response):
        logger.trace(f"{response.request.method} {response.url} → {response.status_code}")

    requests_library_log.log_request = request_line
    requests_library_log.log_response = response_line
