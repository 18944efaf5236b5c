"""Keeps an MCP fixture process from outliving the run that started it.

llama-server spawns the fixtures, so the run does not own them directly: each one ends itself when its
parent goes away (llama-server killed without reaping it) or when its lifetime runs out, whatever
llama-server does. The lifetime comes from ``LLAMATEST_MCP_LIFETIME`` (seconds, default 600).
"""

import os
import threading
import time

from llamatest.settings import ENV_MCP_LIFETIME  # the venv's llamatest.pth: these run under its python

POLL_S = 0.2


def guard() -> None:
    """Starts the daemon thread that ends this process on parent death or at the end of its lifetime."""
    parent = os.getppid()
    deadline = time.monotonic() + float(os.environ.get(ENV_MCP_LIFETIME, "600"))

    def watch() -> None:
        while os.getppid() == parent and time.monotonic() < deadline:
            time.sleep(POLL_S)
        os._exit(3)

    threading.Thread(target=watch, name="lifeline", daemon=True).start()
