"""Keeps an MCP fixture process from outliving the run that started it.

llama-server spawns the fixtures, so the run does not own them directly: each one ends itself when its
parent goes away (llama-server killed without reaping it) or when its lifetime runs out, whatever
llama-server does. The lifetime is the last argument of the fixture's command line, which
``llamatest.mcp.config.fixture_command`` takes from ``LLAMATEST_MCP_LIFETIME`` (seconds, default 600): a
fixture imports nothing of llamatest, so that it starts in some 20 ms instead of 40 (llama-server spawns the
suite's ten one after the other while it starts, and again on each server's first call).
"""

import os
import threading
import time

POLL_S = 0.2


def guard(lifetime_s: float) -> None:
    """Starts the daemon thread that ends this process on parent death or after ``lifetime_s`` seconds."""
    parent = os.getppid()
    deadline = time.monotonic() + lifetime_s

    def watch() -> None:
        while os.getppid() == parent and time.monotonic() < deadline:
            time.sleep(POLL_S)
        os._exit(3)

    threading.Thread(target=watch, name="lifeline", daemon=True).start()
