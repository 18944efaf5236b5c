"""When a load run sends its requests: warm-up, the measured window (open or closed loop, sessions), the drain.

`run_load` is the engine's entry point: it runs a ``Profile`` against a ``Target`` with the run's request
bodies and returns the ``RunRecord`` of every request's event log. What it does for honest numbers:
- Open loop: every send time is precomputed before t0 (``Profile.plan``) and slept to as an absolute deadline,
  so lateness never accumulates; a request due while ``max_in_flight`` requests are open is recorded as
  dropped (``error="dropped"``, never sent), not skipped.
- Closed loop: ``users`` coroutines, each sending its next request when the previous one ended (plus think
  time); never more than ``users`` in flight.
- Workloads may give their bodies more to say (`RequestBodies`): ``route_of(index)`` (a route per request:
  mixed workloads), ``schedule(profile)`` (send offsets of their own: a replayed trace), and
  ``turns(session)`` with ``turn_body(session, turn)`` (multi-turn sessions). A session is the unit of a
  closed-loop user (it sends the turns of one conversation in order, then starts the next) and of an
  open-loop arrival (each arrival starts a conversation; its later turns follow the answer of the one
  before, after ``think_time_s``). A turn that fails ends its conversation.
- End: the window closes, requests still open are counted (``in_flight_at_window_end``) and awaited up to
  ``drain_timeout_s``; those still open after that are ended and recorded as ``drain_timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import socket
import time
from collections.abc import Callable

import aiohttp

from llamatest.load.engine import client, watchers
from llamatest.load.engine.client import RunState, Target
from llamatest.load.engine.profiles import Profile
from llamatest.load.engine.record import RequestRecord, RunRecord
from llamatest.load.workloads.bodies import RequestBodies


async def _sleep_until(t0: float, offset: float) -> None:
    delay = t0 + offset - time.perf_counter()
    if delay > 0:
        await asyncio.sleep(delay)


async def _warmup(run: RunState, n: int) -> None:
    t = run.now()
    recs = [run.new_record(t, "warmup") for _ in range(n)]
    await asyncio.gather(*(run.send(r) for r in recs))


async def _session(run: RunState, first: RequestRecord, may_go_on: Callable[[], str | None]) -> None:
    """Sends ``first`` (turn 0 of its session) and the later turns of that conversation in order, each after
    the previous answer and ``think_time_s``; ``may_go_on()`` gives the phase of the next turn, or None when no
    new request may start. A turn that fails ends the conversation (its history would be wrong)."""
    rec = first
    turns = run.turns(first.session)
    think = run.profile.think_time_s
    while True:
        await run.send(rec)
        if not rec.ok or rec.turn + 1 >= turns:
            return
        if think > 0:
            await asyncio.sleep(think)
        phase = may_go_on()
        if phase is None:
            return
        rec = run.new_record(run.now(), phase, session=rec.session, turn=rec.turn + 1)


def _next_session(run: RunState) -> int:
    s = run.sessions_started
    run.sessions_started += 1
    return s


async def _open_loop(run: RunState, base: float, offsets: list[float],
                     window: tuple[float, float]) -> tuple[float, float, list[asyncio.Task]]:
    """Sends at ``base + offsets`` (``Profile.plan()``); returns the window moved by ``base`` and the
    requests still open at its end."""
    profile = run.profile
    w_start, w_end = window
    cap = profile.max_in_flight
    tasks: set[asyncio.Task] = set()
    t0 = run.t0
    warm = profile.warmup_s
    sessions = run.turns is not None

    def later_turn() -> str | None:  # the session's later turns: measured, until the window ends
        return "measure" if run.now() < base + w_end else None

    for off in offsets:
        t_sched = base + off
        await _sleep_until(t0, t_sched)
        phase = "warmup" if off < warm else "measure"
        rec = run.new_record(t_sched, phase, *((_next_session(run), 0) if sessions else ()))
        if cap is not None and run.in_flight >= cap:
            client.set_error(rec, "dropped", f"{run.in_flight} requests in flight (max_in_flight {cap})")
            continue
        task = asyncio.create_task(_session(run, rec, later_turn) if sessions else run.send(rec))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    await _sleep_until(t0, base + w_end)
    return base + w_start, base + w_end, list(tasks)


async def _closed_loop(run: RunState, base: float) -> tuple[float, float, list[asyncio.Task]]:
    profile = run.profile
    users = 1 if profile.kind == "synchronous" else profile.users
    warm_end = base + profile.warmup_s
    end = warm_end + profile.duration_s
    measured = 0
    limit = profile.max_requests
    think = profile.think_time_s
    stopped = asyncio.Event()
    t_stop: float | None = None
    finished = 0

    def next_phase() -> str | None:  # the phase of the next request, None when no new one may start
        nonlocal measured
        t = run.now()
        if t >= end or (limit is not None and measured >= limit):
            return None
        if t < warm_end:
            return "warmup"
        measured += 1
        return "measure"

    async def user() -> None:
        while True:
            phase = next_phase()
            if phase is None:
                return
            if run.turns is not None:  # a user holds one conversation at a time
                await _session(run, run.new_record(run.now(), phase, _next_session(run), 0), next_phase)
            else:
                await run.send(run.new_record(run.now(), phase))
            if think > 0:
                remaining = end - run.now()
                if remaining <= 0:
                    return
                await asyncio.sleep(min(think, remaining))

    tasks = [asyncio.create_task(user()) for _ in range(users)]

    def one_done(_: asyncio.Task) -> None:
        # A count, not all(t.done() for t in tasks): that scan would cost O(users) per user that ends.
        nonlocal finished, t_stop
        finished += 1
        if finished == len(tasks) and t_stop is None:
            t_stop = run.now()
            stopped.set()

    for task in tasks:
        task.add_done_callback(one_done)
    remaining = end - run.now()
    if remaining > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopped.wait(), remaining)
    w_end = t_stop if t_stop is not None and t_stop < end else end
    return warm_end, w_end, [t for t in tasks if not t.done()]


# ----- the run -----

async def run_load(target: Target, profile: Profile, body_for: RequestBodies, *, telemetry: bool = True,
                   worker: int = 0, start_at_perf: float | None = None, on_tick: Callable | None = None) -> RunRecord:
    """Runs ``profile`` against ``target`` and returns the run's record.

    ``body_for(index)`` makes the body of request ``index`` (warmup requests first); the engine adds
    ``stream: true`` (and ``stream_options.include_usage`` on OpenAI routes) and an ``x-request-id``.
    ``start_at_perf`` (a ``time.perf_counter()`` value) delays t0 to that instant, so that several
    workers start together. ``telemetry=False`` skips the ``/metrics`` and ``/slots`` scrapes. ``on_tick(records,
    in_flight)`` is called twice a second while the run goes (it must be quick: it runs on the engine's loop).
    """
    # Before t0: the young garbage goes, then everything is frozen, so full collections stay short during the run
    # (see watchers.gc_freezer). The old garbage is frozen too and collected after the run: a full collection
    # scans every object of the process, 60-80 ms in Robot's with only the load smoke run.
    gc.collect(1)
    gc.freeze()
    try:
        return await _run_load(target, profile, body_for, telemetry=telemetry, worker=worker,
                               start_at_perf=start_at_perf, on_tick=on_tick)
    finally:
        gc.unfreeze()


async def _run_load(target: Target, profile: Profile, body_for: RequestBodies, *, telemetry: bool,
                    worker: int, start_at_perf: float | None, on_tick: Callable | None) -> RunRecord:
    # Everything slow to set up (the schedule, sessions, SSL contexts) is made before t0, so the first sends
    # are on time.
    plan = _send_plan(profile, body_for)
    rx: dict = {}
    limit = profile.max_in_flight or 0  # 0: no connector cap (the profile's cap is enforced by the engine)
    connector = aiohttp.TCPConnector(limit=limit, limit_per_host=0, ttl_dns_cache=None,
                                     force_close=not target.keep_alive)
    stamped = client.stamp_reads(connector, rx)
    timeout = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=target.timeout_connect_s, sock_read=None)
    session = aiohttp.ClientSession(connector=connector, timeout=timeout, read_bufsize=client.READ_BUFSIZE,
                                    auto_decompress=False, skip_auto_headers=("User-Agent",))
    scraper = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=2)) if telemetry else None
    try:
        baseline = await watchers.baseline(scraper, target)
        if start_at_perf is not None:
            delay = start_at_perf - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
        t0_perf = time.perf_counter() if start_at_perf is None else start_at_perf
        t0_wall = time.time() - (time.perf_counter() - t0_perf)
        run = RunState(target, profile, body_for, worker, t0_perf)
        run.rx = rx
        run.session = session
        record = RunRecord(profile=profile.as_dict(), target=target.as_dict(), t0_wall=t0_wall, t0_perf=t0_perf)
        record.telemetry += watchers.on_run_clock(baseline, t0_perf)
        beside = [asyncio.create_task(watchers.lag_monitor(run, record.loop_lag)),
                  asyncio.create_task(watchers.cpu_monitor(run, record.cpu)),
                  asyncio.create_task(watchers.gc_freezer())]
        if on_tick is not None:
            beside.append(asyncio.create_task(watchers.ticker(run, on_tick)))
        if scraper is not None:
            beside.append(asyncio.create_task(watchers.telemetry(run, record.telemetry, scraper)))
        try:
            await _drive(run, record, plan)
            if scraper is not None:
                beside[-1].cancel()
                record.telemetry.append(await watchers.scrape(scraper, target, run.now(), {}))
        finally:
            for task in beside:
                task.cancel()
            await asyncio.gather(*beside, return_exceptions=True)
    finally:
        await session.close()
        if scraper is not None:
            await scraper.close()
    run.rx.clear()
    record.requests = sorted(run.records, key=lambda r: r.index)
    record.workers = [{"id": worker, "host": socket.gethostname(), "pid": os.getpid(), "t0_wall": t0_wall,
                       "t0_perf": t0_perf}]
    record.meta = {"engine": {"run_id": run.run_id, "read_bufsize": client.READ_BUFSIZE,
                              "aiohttp": aiohttp.__version__, "peak_in_flight": run.peak_in_flight,
                              "profile": profile.describe(),
                              "read_times": "socket read" if stamped else "reader wake-up"}}
    return record


def _send_plan(profile: Profile, body_for) -> tuple | None:
    """An open-loop profile's (send offsets, measured window): a workload's own schedule (a replayed trace) or
    the profile's; None for a closed loop."""
    schedule = getattr(body_for, "schedule", None)
    if schedule is not None and not profile.open_loop:
        raise ValueError(f"this workload brings its own schedule: run it with kind 'rate', not {profile.kind!r}")
    if not profile.open_loop:
        return None
    return schedule(profile) if schedule is not None else profile.plan()


async def _drive(run: RunState, record: RunRecord, plan: tuple | None) -> None:
    """Warm-up, the measured phase (open or closed loop), then the drain of what is still open."""
    profile = run.profile
    if profile.warmup_requests:
        await _warmup(run, profile.warmup_requests)
    base = run.now()
    if plan is not None:
        w_start, w_end, pending = await _open_loop(run, base, *plan)
    else:
        w_start, w_end, pending = await _closed_loop(run, base)
    record.window = (w_start, w_end)
    record.in_flight_at_window_end = run.in_flight
    if pending:
        _, still = await asyncio.wait(pending, timeout=profile.drain_timeout_s)
        for task in still:
            task.cancel()
        await asyncio.gather(*still, return_exceptions=True)
        record.drain_timed_out = sum(1 for r in run.records if r.error == "drain_timeout")


def run_load_sync(target: Target, profile: Profile, body_for: RequestBodies, *, telemetry: bool = True,
                  worker: int = 0, start_at_perf: float | None = None, on_tick: Callable | None = None) -> RunRecord:
    """``run_load`` in a fresh event loop (for callers that are not async, such as a Robot keyword)."""
    box: list[RunRecord] = []

    async def main() -> None:
        # Returned through a box, not as the coroutine's result: on Python 3.11, asyncio.run formats the
        # main task (result included) when it restores the SIGINT handler, and repr() of a big run takes seconds.
        box.append(await run_load(target, profile, body_for, telemetry=telemetry, worker=worker,
                                  start_at_perf=start_at_perf, on_tick=on_tick))

    asyncio.run(main())
    return box[0]
