"""Fixtures shared by all unit tests: the fixture HTTP server (its app is ``tests/fixtures/http_server.py``), a
closed port, the libraries' log, a requests session, a pid registry; and the rule for timing tests on a busy machine.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest
from aiohttp import web

from llamatest import machine
from tests.fixtures.http_server import make_app


@pytest.fixture(scope="session")
def server():
    """Base URL of the fixture server, e.g. ``http://127.0.0.1:41234``."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fixture-server", daemon=True)
    thread.start()

    def run(coro):
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=10)

    async def start():
        # handler_cancellation: a handler stops when its client disconnects (hang, slow streams).
        runner = web.AppRunner(make_app(), handler_cancellation=True, shutdown_timeout=1)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    runner = run(start())
    port = runner.addresses[0][1]
    yield f"http://127.0.0.1:{port}"
    run(runner.cleanup())
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    loop.close()


@pytest.fixture
def closed_port_url():
    """A URL on 127.0.0.1 where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def logged(monkeypatch):
    """Collects what the libraries log (they all log through robot.api.logger)."""
    from robot.api import logger

    messages = []
    monkeypatch.setattr(logger, "info", lambda msg, html=False: messages.append((msg, html)))
    return messages


@pytest.fixture
def http():
    """A requests session with the project's deadline adapter, as RequestsLibrary sessions have."""
    import requests

    from llamatest.http.session import mount
    from robot_glue import log_html

    with mount(requests.Session(), log=log_html) as session:
        yield session


@pytest.fixture
def pid_registry(tmp_path, monkeypatch):
    """An empty pid registry of the test's own (``$LLAMATEST_PID_DIR``), for tests that start processes."""
    directory = tmp_path / "pids"
    monkeypatch.setenv("LLAMATEST_PID_DIR", str(directory))
    return directory


# ---- timing tests on a busy machine --------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Starts the clock of a `timing` test for `pytest_runtest_makereport`."""
    if item.get_closest_marker("timing"):
        machine.monitor()
        item.stash[_STARTED] = time.monotonic()
    return (yield)


_STARTED = pytest.StashKey[float]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A `timing` test that failed an assertion while other processes kept the machine busy is not judged: the
    same rule as the suites' (TimingVerdictListener), so a shared machine never fails the self-test."""
    report = yield
    start = item.stash.get(_STARTED, None)
    if (report.when == "call" and report.failed and start is not None and call.excinfo is not None
            and call.excinfo.errisinstance(AssertionError)):
        share = machine.monitor().share_since(start)
        if share.busy:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0,
                               f"not judged, the machine was busy: {share.describe()}")
    return report
