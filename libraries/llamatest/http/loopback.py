"""An aiohttp application served on 127.0.0.1 (port 0) from a thread with its own event loop.

The fixtures built on it (media, hub) answer llama-server while the test's own thread, Robot's, runs on."""

import asyncio
import threading

from aiohttp import web

from llamatest import deadlines


class LoopbackApp:
    """Serves ``app`` on a free loopback port from a daemon thread named ``name``; ``url`` is
    ``http://127.0.0.1:PORT``. `call` runs a coroutine on the server's loop; `stop` ends both."""

    def __init__(self, app: web.Application, name: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()
        self._runner = web.AppRunner(app, handler_cancellation=True,
                                     shutdown_timeout=deadlines.deadline("fixture_shutdown"))
        self.url = self.call(self._start())

    def call(self, coro):
        """Runs ``coro`` on the server's loop and returns its result (bounded by the ``fixture`` deadline)."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=deadlines.deadline("fixture"))

    async def _start(self) -> str:
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        return f"http://127.0.0.1:{self._runner.addresses[0][1]}"

    def stop(self) -> None:
        """Stops serving (running handlers are cancelled) and ends the thread."""
        if self._runner is not None:
            self.call(self._runner.cleanup())
            self._runner = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=deadlines.deadline("fixture"))
