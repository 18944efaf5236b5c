"""A batch of requests sent at once, each through ``stream_one``, with the slot sampler alongside.

Everything runs inside one ``asyncio.gather`` under one deadline (``timeout``, for the whole batch:
dispatch waits, every request, the final return to idle). Nothing outlives the batch: the sampler is
stopped and any waiting task cancelled before `run_batch` returns.

Requests the client hangs up on see their session through `_ClientSide`, which counts the events
``stream_one`` reads and can hang up: it ends the body early (after ``k`` events) or drops the
request before its headers or body arrived. The others use the plain session, so the common path
costs nothing extra per chunk. Each request has a connection of its own, as separate users have.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from llamatest import deadlines
from llamatest.concurrency import answers
from llamatest.concurrency.sampler import SlotSampler
from llamatest.concurrency.timeline import RequestSpan, Timeline
from llamatest.streaming.client import client_session, stream_one
from llamatest.streaming.result import StreamResult
from llamatest.streaming.sse import SSEEvent, SSEParser
from llamatest.textutil import join_url

DISPATCH = ("together", "in_order", "mid_generation", "one_by_one")
HANG_UP_WHEN = ("chunks", "busy", "deferred", "all_busy", "others_done")


class HungUp(aiohttp.ClientConnectionError):
    """The client hung up on purpose (raised inside ``stream_one``, which records it)."""


@dataclass(frozen=True)
class Options:
    """How a batch is sent and watched; see MultiUserLibrary's documentation for each option."""

    timeout: float | None = None  # None: the "batch" deadline, scaled when the options are made
    watch: bool = True
    metrics: bool = False
    interval: float = 0.005
    settle: float | None = None  # None: the "settle" deadline
    dispatch: str = "together"
    dispatch_after_tokens: int = 1
    cancel: tuple[int, ...] = ()
    cancel_when: str = "chunks"
    cancel_after_chunks: int = 1
    probe_no_idle_slot: bool = False
    headers: dict | None = None

    def __post_init__(self):
        object.__setattr__(self, "timeout", deadlines.or_default(self.timeout, "batch"))
        object.__setattr__(self, "settle", deadlines.or_default(self.settle, "settle"))
        if self.dispatch not in DISPATCH:
            raise ValueError(f"dispatch must be one of {', '.join(DISPATCH)}, got {self.dispatch!r}")
        if self.cancel_when not in HANG_UP_WHEN:
            raise ValueError(f"cancel_when must be one of {', '.join(HANG_UP_WHEN)}, got {self.cancel_when!r}")
        needs = {"dispatch=in_order": self.dispatch == "in_order", "cancel_when=deferred":
                 bool(self.cancel) and self.cancel_when == "deferred"}
        for what, needed in needs.items():
            if needed and not (self.watch and self.metrics):
                raise ValueError(f"{what} needs watch and metrics (and a server started with --metrics)")
        for what, needed in {"cancel_when=busy": bool(self.cancel) and self.cancel_when in ("busy", "all_busy"),
                             "dispatch=mid_generation": self.dispatch == "mid_generation",
                             "probe_no_idle_slot": self.probe_no_idle_slot}.items():
            if needed and not self.watch:
                raise ValueError(f"{what} needs watch (the slot sampler)")
        if self.timeout <= 0 or self.interval < 0 or self.settle < 0:
            raise ValueError("timeout must be positive, interval and settle not negative")
        if min(self.dispatch_after_tokens, self.cancel_after_chunks) < 1:
            raise ValueError("dispatch_after_tokens and cancel_after_chunks must be at least 1")


@dataclass
class Batch:
    """The requests of one batch, their results in request order, and the slot timeline."""

    where: str
    results: list[StreamResult]
    timeline: Timeline | None
    abandoned: list[int] = field(default_factory=list)  # requests the client hung up on, as planned
    wall_s: float = 0.0

    def __len__(self) -> int:
        return len(self.results)

    def served(self) -> list[int]:
        """Indices of the requests the client did not hang up on."""
        return [i for i in range(len(self.results)) if i not in self.abandoned]


@dataclass
class _Watch:
    """The client side of one request: events read so far, hang-up, dispatch and end markers."""

    hang_up_after: int | None = None  # events
    events: int = 0
    sent: float | None = None
    ended: float | None = None  # when the client had the whole answer (or gave up on it)
    abandoned_at: float | None = None
    hang_up: asyncio.Event = field(default_factory=asyncio.Event)
    seen_busy: asyncio.Event | None = None  # with a sampler: set once a slot shows the request's task
    tasks_before: set = field(default_factory=set)  # task ids the slots showed when the request was sent
    progressed: asyncio.Event = field(default_factory=asyncio.Event)  # set on every read (dispatch waits)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    _parser: SSEParser = field(default_factory=SSEParser)

    def count(self, chunk: bytes) -> None:
        self.events += sum(1 for item in self._parser.feed(chunk, 0.0) if isinstance(item, SSEEvent))
        self.progressed.set()

    async def unless_hung_up(self, awaitable):
        """``await awaitable``, unless the client hangs up first (then it is cancelled and `HungUp` raised)."""
        if self.hang_up.is_set():
            if asyncio.iscoroutine(awaitable):
                awaitable.close()  # never started: nothing to cancel
            raise HungUp("hung up before the answer")
        work = asyncio.ensure_future(awaitable)
        waiter = asyncio.ensure_future(self.hang_up.wait())
        try:
            await asyncio.wait({work, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            if not work.done():
                work.cancel()
                await asyncio.gather(work, return_exceptions=True)
        if work.cancelled():
            raise HungUp("hung up before the answer")
        return work.result()


class _ClientSide:
    """The session ``stream_one`` sees for a watched request (only ``request`` is used)."""

    def __init__(self, session: aiohttp.ClientSession, watch: _Watch, clock: Callable[[], float]):
        self._session, self._watch, self._clock = session, watch, clock

    def request(self, method: str, url: str, **kwargs) -> _Exchange:
        return _Exchange(self._session.request(method, url, **kwargs), self._watch, self._clock)


class _Exchange:
    def __init__(self, manager, watch: _Watch, clock: Callable[[], float]):
        self._manager, self._watch, self._clock = manager, watch, clock

    async def __aenter__(self) -> _Response:
        try:
            resp = await self._watch.unless_hung_up(self._manager.__aenter__())
        except HungUp:
            self._watch.abandoned_at = self._clock()
            raise
        return _Response(resp, self._watch, self._clock)

    async def __aexit__(self, *exc_info) -> None:
        # An unfinished body makes aiohttp close the connection instead of reusing it: the server sees it go.
        await self._manager.__aexit__(*exc_info)


class _Response:
    def __init__(self, resp: aiohttp.ClientResponse, watch: _Watch, clock: Callable[[], float]):
        self._resp, self._watch, self._clock = resp, watch, clock
        self.status, self.headers = resp.status, resp.headers

    @property
    def content(self) -> _Response:
        return self

    async def iter_any(self):
        watch = self._watch
        while True:
            chunk = await self._read(self._resp.content.readany())
            if not chunk:
                return
            yield chunk
            watch.count(chunk)
            if watch.hang_up_after is not None and watch.events >= watch.hang_up_after \
                    and (watch.seen_busy is None or watch.seen_busy.is_set()):
                watch.abandoned_at = self._clock()
                return

    async def read(self) -> bytes:
        return await self._read(self._resp.read())

    async def _read(self, awaitable):
        try:
            return await self._watch.unless_hung_up(awaitable)
        except HungUp:
            self._watch.abandoned_at = self._clock()
            raise


async def run_batch(base_url: str, path: str | Sequence[str], bodies: Sequence[Any],
                    options: Options | None = None) -> Batch:
    """Sends every body to ``path`` (or body ``i`` to ``path[i]``) at once, or in the ``dispatch`` order,
    and watches the slots."""
    run = _BatchRun(base_url, path, bodies, options or Options())
    sampler, options = run.sampler, run.options
    sampling = asyncio.create_task(sampler.run()) if sampler is not None else None
    try:
        if sampler is not None:  # the timeline starts with the slots before any request
            await sampler.wait_until(lambda tl: bool(tl.slots) or bool(tl.errors), run.left())
        async with client_session(force_close=True) as session:  # a connection per user
            results = list(await asyncio.gather(*(run.one(session, i) for i in range(len(bodies)))))
        requests_done = run.clock()
        if sampler is not None:
            await sampler.wait_until(lambda tl: tl.settled_after(requests_done, options.metrics),
                                     min(options.settle, run.left()))
    finally:
        for task in run.helpers:
            task.cancel()
        if sampler is not None:
            sampler.stop()
        await asyncio.gather(*run.helpers, *([sampling] if sampling else []), return_exceptions=True)
    timeline = run.timeline
    timeline.requests_done = requests_done
    timeline.end = run.clock()
    timeline.requests = [_span(i, r, run.t0, run.watches[i]) for i, r in enumerate(results)]
    wheres = sorted({r.where for r in results})
    where = wheres[0] if len(wheres) == 1 else f"POST to {len(wheres)} routes"  # none: "POST to 0 routes"
    abandoned = [i for i, w in enumerate(run.watches) if w.abandoned_at is not None]
    return Batch(where, results, timeline if sampler is not None else None, abandoned, run.clock())


class _BatchRun:
    """One batch's clock, deadline, requests, client-side watches, slot sampler and helper tasks."""

    def __init__(self, base_url: str, path: str | Sequence[str], bodies: Sequence[Any], options: Options):
        paths = [path] * len(bodies) if isinstance(path, str) else list(path)
        if len(paths) != len(bodies):
            raise ValueError(f"{len(paths)} paths for {len(bodies)} bodies")
        self.urls = [join_url(base_url, p) for p in paths]
        self.bodies, self.options = bodies, options
        self.loop = asyncio.get_running_loop()
        self.deadline = self.loop.time() + options.timeout
        self.t0 = time.perf_counter()
        self.watches = [_Watch() for _ in bodies]
        for i in options.cancel:
            if not 0 <= i < len(bodies):
                raise ValueError(f"cancel index {i} is out of range for {len(bodies)} requests")
            if options.cancel_when == "chunks":
                self.watches[i].hang_up_after = options.cancel_after_chunks
        self.timeline = Timeline()
        self.sampler = SlotSampler(base_url, self.clock, interval=options.interval, metrics=options.metrics,
                                   probe_no_idle_slot=options.probe_no_idle_slot, timeline=self.timeline,
                                   headers=options.headers) if options.watch else None
        self.helpers: list[asyncio.Task] = []

    def clock(self) -> float:
        return time.perf_counter() - self.t0

    def left(self) -> float:
        return self.deadline - self.loop.time()

    async def one(self, session: aiohttp.ClientSession, i: int) -> StreamResult:
        """Request ``i``: waits for its turn, sends it, and hangs up when the options say so."""
        watch, options, sampler = self.watches[i], self.options, self.sampler
        try:
            await _dispatch_wait(i, self.watches, options, sampler, self.left())
        except TimeoutError:
            watch.ended = self.clock()
            watch.finished.set()
            return StreamResult(url=self.urls[i], request_body=self.bodies[i], t0=time.perf_counter(),
                                error=f"not sent: the batch deadline of {options.timeout} s passed first")
        watch.sent = self.clock()
        if sampler is not None and sampler.timeline.slots:
            watch.tasks_before = {state.id_task for state in sampler.timeline.slots[-1].slots}
        watch.progressed.set()
        if i in options.cancel and options.cancel_when == "others_done":
            others = [w.finished for k, w in enumerate(self.watches) if k != i]
            self.helpers.append(asyncio.create_task(_hang_up_after(watch, others)))
        elif i in options.cancel and sampler is not None:
            if options.cancel_when != "deferred":
                watch.seen_busy = asyncio.Event()
            self.helpers.append(asyncio.create_task(_hang_up_when(watch, options.cancel_when, sampler,
                                                                  options.probe_no_idle_slot)))
        client = _ClientSide(session, watch, self.clock) if i in options.cancel else session
        r = await stream_one(client, self.urls[i], self.bodies[i], options.headers, max(self.left(), 0.001))
        if watch.abandoned_at is not None:
            r.error = f"abandoned by the client after {watch.events} events (as planned)"
        watch.ended = self.clock()
        watch.finished.set()
        watch.progressed.set()
        return r


async def _dispatch_wait(i: int, watches: list[_Watch], options: Options, sampler: SlotSampler | None,
                         timeout: float) -> None:
    """Returns when request ``i`` may be sent; raises TimeoutError when the batch deadline passes first."""
    if i == 0 or options.dispatch == "together":
        return
    previous = watches[i - 1]
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    async with asyncio.timeout(max(timeout, 0.0)):
        if options.dispatch == "one_by_one":
            await previous.finished.wait()
            return
        while previous.sent is None:  # the server must see the request sent before
            previous.progressed.clear()
            await previous.progressed.wait()
    assert sampler is not None  # Options makes sure of it
    sent_before, known = previous.sent, previous.tasks_before

    def accounted(tl: Timeline) -> bool:  # in_order: /metrics counts request i-1 as processing or queued
        return server_has_all_before(tl, watches[:i], sent_before)

    def generating(tl: Timeline) -> bool:  # mid_generation: request i-1's task has decoded enough tokens
        return any(s.t_sent >= sent_before and any(
            state.busy and state.id_task not in known and (state.n_decoded or 0) >= options.dispatch_after_tokens
            for state in s.slots) for s in tl.slots)

    ready = accounted if options.dispatch == "in_order" else generating
    if not await sampler.wait_until(lambda tl: ready(tl) or previous.finished.is_set(), end - loop.time()):
        raise TimeoutError


def server_has_all_before(tl: Timeline, earlier: list[_Watch], sent_before: float) -> bool:
    """A /metrics sample asked for after ``sent_before`` counts every ``earlier`` request as processing, queued,
    or ended. A request counts as ended only if it ended before the sample was asked for: one that ended after
    may still be processing in that sample, and counting it twice would let the next request go before the
    server had the last one (seen on a busy machine: the next request's task id then came first)."""
    def ended(t: float) -> int:
        return sum(1 for w in earlier if w.ended is not None and w.ended < t)

    return any(m.t_sent >= sent_before and m.values.get("requests_processing", 0)
               + m.values.get("requests_deferred", 0) + ended(m.t_sent) >= len(earlier) for m in tl.metrics)


async def _hang_up_after(watch: _Watch, others: list[asyncio.Event]) -> None:
    """Hangs up once every other request of the batch has ended."""
    await asyncio.gather(*(event.wait() for event in others))
    watch.hang_up.set()


async def _hang_up_when(watch: _Watch, when: str, sampler: SlotSampler, probing: bool = False) -> None:
    """Hangs up once the server shows the request: in the queue (``deferred``), or on a slot (``busy``);
    or once every slot shows busy (``all_busy``; when probing, once a probe answered 503).

    With ``chunks``, it only marks the request as seen on a slot: the client then hangs up after its
    chunks *and* that, so a stall of the whole client (a loaded machine) cannot hide the request's task
    from the sampler before the hang-up.
    """
    assert watch.sent is not None
    sent, before = watch.sent, watch.tasks_before

    def on_a_slot(tl: Timeline) -> bool:
        return any(s.t_sent >= sent and s.busy_tasks - before for s in tl.slots)

    def queued(tl: Timeline) -> bool:  # a deferred request while every slot is processing: this one waits
        slots = tl.n_slots or 1
        return tl.metrics_after(sent, lambda v: v.get("requests_deferred", 0) >= 1
                                and v.get("requests_processing", 0) >= slots) is not None

    def all_busy(tl: Timeline) -> bool:
        if probing:
            return any(p.status == 503 for p in tl.probes)
        return any(s.t_sent >= sent and s.all_busy for s in tl.slots)

    await sampler.wait_until({"deferred": queued, "all_busy": all_busy}.get(when, on_a_slot), None)
    if watch.seen_busy is not None:
        watch.seen_busy.set()
    if when != "chunks":
        watch.hang_up.set()


def _span(index: int, r: StreamResult, t0: float, watch: _Watch) -> RequestSpan:
    if watch.sent is None:
        return RequestSpan(index)
    sent = r.t0 - t0
    first = None if r.t_first_event is None else sent + r.t_first_event
    end = None if r.t_end is None else sent + r.t_end
    return RequestSpan(index, sent, first, end, answers.slot(r), watch.abandoned_at)
