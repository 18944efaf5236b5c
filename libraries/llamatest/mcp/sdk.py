"""The mcp SDK's client, made ready in a thread of its own while the MCP suite starts llama-server.

Importing the mcp package takes most of a second, at the start of the suite that imports McpLibrary; the
suite's set-up has nothing to do meanwhile but wait for llama-server, which spends as long spawning the SDK's echo
server. So the import runs in a worker thread, and the reference fixtures the set-up asks for open in it once
the import is done; whatever needs the SDK in the suite's own thread waits for the worker first.
"""

from __future__ import annotations

import concurrent.futures
from types import ModuleType

from llamatest import deadlines


def _load() -> tuple[ModuleType, object]:
    import mcp.server.mcpserver  # noqa: F401 - the HTTP fixture's server, loaded here rather than in the suite

    from llamatest.mcp import reference

    return reference, reference.ReferenceSessions()


class BackgroundSdk:
    """The ``reference`` module and one `ReferenceSessions`, loaded by a worker thread from construction on.

    Work queued with `open_later` runs in that worker, in order, after the import; `module` and `sessions` wait
    (the ``mcp_import`` deadline) until everything queued so far is done, and raise what failed there. Call
    them, `open_later` and `close` from one thread (the suite's)."""

    def __init__(self) -> None:
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-sdk")
        self._loaded = self._worker.submit(_load)
        self._queued = self._loaded

    def open_later(self, targets: list[list[str] | str]) -> None:
        """Starts opening the sessions of ``targets`` (`ReferenceSessions.open`) once the SDK is loaded; returns
        at once."""
        self._queued = self._worker.submit(lambda: self._loaded.result()[1].open(targets))

    def module(self) -> ModuleType:
        """``llamatest.mcp.reference``, once loaded."""
        return self._ready()[0]

    def sessions(self):
        """The `ReferenceSessions`, once loaded and every `open_later` so far done."""
        return self._ready()[1]

    def close(self) -> None:
        """Closes the sessions (after what was queued) and ends the worker."""
        try:
            self.sessions().close()
        finally:
            self._worker.shutdown(wait=False, cancel_futures=True)

    def _ready(self):
        seconds = deadlines.deadline("mcp_import")
        try:
            self._queued.result(timeout=seconds)
        except concurrent.futures.TimeoutError:
            raise AssertionError(f"the mcp SDK was not ready within {seconds:g} s (imported in the background)") \
                from None
        return self._loaded.result()
