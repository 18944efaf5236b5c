"""Polls ``GET /slots`` (and ``/metrics``) every few milliseconds into a `Timeline`.

The polling runs in a worker thread of its own, with keep-alive connections, and its lifetime is one
awaitable (`SlotSampler.run`) inside the batch's ``asyncio.gather``. A sampler task on the event
loop itself would queue behind the streams it watches: with a few streams of ``tiny`` the loop is
busy parsing chunks, and measured sampling intervals grew from 5 ms to 60–300 ms on a loaded
2-core machine, so short tasks went unseen; the thread keeps polling at its pace (Python hands it
the GIL at least every 5 ms). Samples are handed to the loop thread (``call_soon_threadsafe``), so
the timeline is only ever changed there, and code that waits for a server state (``in_order``
dispatch, hang-up triggers, the return to idle) waits on `SlotSampler.wait_until`, woken after
every poll. Each poll has its own deadline; a failed poll is recorded, never raised.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

from llamatest import deadlines
from llamatest.concurrency.timeline import MetricsSample, Probe, SlotSample, SlotState, Timeline
from llamatest.http.prometheus import sample_values

PREFIX = "llamacpp:"
_STALE = (http.client.RemoteDisconnected, http.client.BadStatusLine, ConnectionResetError, BrokenPipeError)


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus text → ``{name: value}``, without the ``llamacpp:`` prefix; labels stay in the name."""
    return {name.removeprefix(PREFIX): value for name, value in sample_values(text).items()}


def parse_slots(body: str | bytes) -> tuple[SlotState, ...]:
    data = json.loads(body)
    if not isinstance(data, list):
        raise ValueError(f"/slots answered {type(data).__name__}, not a list")
    return tuple(SlotState.from_json(obj) for obj in data)


class _Client:
    """Keep-alive GETs to one server from the sampler thread; a connection the server closed is reopened once."""

    def __init__(self, base_url: str, headers: dict | None = None):
        parts = urlsplit(base_url)
        self._headers = dict(headers or {})  # an external server's key: /slots and /metrics need it
        self._host, self._port = parts.hostname or "127.0.0.1", parts.port or 80
        self._prefix = parts.path.rstrip("/")
        self._conn: http.client.HTTPConnection | None = None

    def get(self, path: str) -> tuple[int, bytes]:
        reused = self._conn is not None
        try:
            return self._get(path)
        except _STALE:
            if not reused:
                raise
        return self._get(path)  # once more, on a fresh connection

    def _get(self, path: str) -> tuple[int, bytes]:
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self._host, self._port, timeout=deadlines.deadline("slots_poll"))
        try:
            self._conn.request("GET", self._prefix + path, headers=self._headers)
            resp = self._conn.getresponse()
            return resp.status, resp.read()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class SlotSampler:
    """Fills ``timeline`` while `run` is awaited. ``clock()`` gives seconds on the batch clock."""

    def __init__(self, base_url: str, clock: Callable[[], float], *, interval: float = 0.005,
                 metrics: bool = False, probe_no_idle_slot: bool = False, timeline: Timeline | None = None,
                 headers: dict | None = None):
        self.base_url = base_url
        self.headers = dict(headers or {})
        self.clock = clock
        self.interval = interval
        self.metrics = metrics
        self.probe_no_idle_slot = probe_no_idle_slot
        self.timeline = timeline if timeline is not None else Timeline()
        self._stop = threading.Event()
        self._waiters: list[tuple[Callable[[Timeline], bool], asyncio.Future]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    async def run(self) -> None:
        """Polls until `stop` (or until cancelled); returns once the thread has ended or been told to."""
        self._loop = asyncio.get_running_loop()
        finished = self._loop.create_future()
        thread = threading.Thread(target=self._poll_forever, args=(finished,), name="slot-sampler", daemon=True)
        thread.start()
        try:
            await finished
        finally:
            self._stop.set()  # when cancelled, the thread ends after its current poll (at most a poll deadline)

    def stop(self) -> None:
        self._stop.set()

    async def wait_until(self, predicate: Callable[[Timeline], bool], timeout: float | None) -> bool:
        """Waits until ``predicate(timeline)`` holds after a poll; False when ``timeout`` (None: no limit,
        for a task that is cancelled anyway) passes first."""
        if predicate(self.timeline):
            return True
        waiter = (predicate, asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(None if timeout is None else max(timeout, 0.0)):
                await waiter[1]
            return True
        except TimeoutError:
            return predicate(self.timeline)
        finally:
            self._waiters.remove(waiter)

    # ---- the sampler thread ---------------------------------------------------------------------------

    def _poll_forever(self, finished: asyncio.Future) -> None:
        slots, metrics = _Client(self.base_url, self.headers), _Client(self.base_url, self.headers)
        try:
            while not self._stop.is_set():
                found = [self._poll_slots(slots)]
                if self.metrics:
                    found.append(self._poll_metrics(metrics))
                last = found[0]
                if self.probe_no_idle_slot and isinstance(last, SlotSample) and last.all_busy:
                    found.append(self._probe(slots))
                self._deliver(found)
                self._stop.wait(self.interval)
        finally:
            slots.close()
            metrics.close()
            self._call(lambda: finished.done() or finished.set_result(None))

    def _poll_slots(self, client: _Client) -> SlotSample | tuple[float, str]:
        return self._poll(client, "/slots", lambda t, t_sent, body: SlotSample(t, t_sent, parse_slots(body)))

    def _poll_metrics(self, client: _Client) -> MetricsSample | tuple[float, str]:
        return self._poll(client, "/metrics", lambda t, t_sent, body: MetricsSample(
            t, t_sent, parse_metrics(body.decode("utf-8", "replace"))))

    def _poll(self, client: _Client, path: str, sample: Callable[[float, float, bytes], object]):
        """One GET of ``path``: ``sample(t, t_sent, body)`` of a 200 answer, else ``(t, error line)``."""
        t_sent = self.clock()
        try:
            status, body = client.get(path)
            if status != 200:
                raise ValueError(f"status {status}: {body[:200]!r}")
            return sample(self.clock(), t_sent, body)
        except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError) as exc:
            return self._failure(path, exc)

    def _probe(self, client: _Client) -> Probe | tuple[float, str]:
        try:
            status, body = client.get("/slots?fail_on_no_slot=1")
        except (OSError, http.client.HTTPException) as exc:
            return self._failure("/slots?fail_on_no_slot=1", exc)
        text = body.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        return Probe(self.clock(), status, parsed)

    def _failure(self, path: str, exc: BaseException) -> tuple[float, str]:
        return self.clock(), f"GET {path}: {type(exc).__name__}: {exc}".splitlines()[0]

    def _deliver(self, found: list) -> None:
        self._call(lambda: self._record(found))

    def _call(self, callback: Callable[[], object]) -> None:
        try:
            self._loop.call_soon_threadsafe(callback)
        except RuntimeError:  # the loop is closed: nobody listens any more
            self._stop.set()

    # ---- on the loop thread ----------------------------------------------------------------------------

    def _record(self, found: list) -> None:
        tl = self.timeline
        for item in found:
            if isinstance(item, SlotSample):
                tl.slots.append(item)
            elif isinstance(item, MetricsSample):
                tl.metrics.append(item)
            elif isinstance(item, Probe):
                tl.probes.append(item)
            else:
                tl.errors.append(item)
        for predicate, future in self._waiters:
            if not future.done() and predicate(tl):
                future.set_result(True)


async def wait_slots_idle(base_url: str, timeout: float, interval: float = 0.01,
                          headers: dict | None = None) -> tuple[bool, Timeline]:
    """Polls ``/slots`` until no slot is busy or ``timeout`` passes; returns (idle, the samples)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    sampler = SlotSampler(base_url, lambda: loop.time() - start, interval=interval, headers=headers)
    task = asyncio.create_task(sampler.run())
    try:
        await sampler.wait_until(lambda tl: bool(tl.slots or tl.errors), 2 * deadlines.deadline("slots_poll"))
        idle = await sampler.wait_until(lambda tl: bool(tl.slots) and tl.slots[-1].n_busy == 0, timeout)
    finally:
        sampler.stop()
        await task
    sampler.timeline.end = loop.time() - start
    return idle, sampler.timeline
