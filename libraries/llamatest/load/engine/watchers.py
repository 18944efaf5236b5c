"""What runs beside a load run's requests, on the same event loop: the measures of the client and the server.

- a 10 ms sleeper measures event-loop lag, psutil samples the client's CPU;
- the garbage collector's full passes, which grow with the number of records and stall the loop, are kept
  short by freezing the surviving objects once a second (``gc.freeze``; undone at the end of the run);
- (unless turned off) ``/metrics`` and ``/slots`` are scraped about once a second (the engine must be their
  only scraper: llama-server resets some gauges on every scrape);
- a live progress callback twice a second.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Callable
from typing import Any

import aiohttp

from llamatest import deadlines
from llamatest.http import prometheus
from llamatest.load.engine.client import RunState, Target
from llamatest.load.engine.record import RequestRecord
from llamatest.textutil import join_url

LAG_INTERVAL_S = 0.010
CPU_INTERVAL_S = 1.0
CPU_TAIL_MIN_S = 0.25  # a shorter tail is too few 10-ms clock ticks for a percentage
TELEMETRY_INTERVAL_S = 1.0
GC_FREEZE_INTERVAL_S = 1.0
TICK_INTERVAL_S = 0.5


async def lag_monitor(run: RunState, out: list[tuple[float, float]]) -> None:
    perf = time.perf_counter
    while True:
        expected = perf() + LAG_INTERVAL_S
        await asyncio.sleep(LAG_INTERVAL_S)
        t = perf()
        out.append((t - run.t0, max(0.0, t - expected)))


async def cpu_monitor(run: RunState, out: list[tuple[float, float]]) -> None:
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil is a dependency; without it there are no samples
        return
    proc = psutil.Process()
    proc.cpu_percent(None)
    last = time.perf_counter()
    try:
        while True:
            await asyncio.sleep(CPU_INTERVAL_S)
            out.append((run.now(), proc.cpu_percent(None)))
            last = time.perf_counter()
    finally:  # the part after the last sample: a run shorter than the interval still has its client CPU
        if time.perf_counter() - last >= CPU_TAIL_MIN_S:
            out.append((run.now(), proc.cpu_percent(None)))


async def ticker(run: RunState, on_tick: Callable[[list[RequestRecord], int], None]) -> None:
    """Calls ``on_tick(records so far, requests in flight)`` every ``TICK_INTERVAL_S`` (a live progress line)."""
    while True:
        await asyncio.sleep(TICK_INTERVAL_S)
        on_tick(run.records, run.in_flight)


async def gc_freezer() -> None:
    """Moves the objects that survived the last second (mostly request records) out of the garbage
    collector's reach. A full collection scans every tracked object; with a growing record list it paused
    the loop for 24 ms after 10 s at 300 requests/s (and longer later), and every event arriving during a
    pause is stamped late. Young garbage is still collected as usual; ``run_load`` unfreezes at the end."""
    while True:
        await asyncio.sleep(GC_FREEZE_INTERVAL_S)
        gc.freeze()


async def _metrics_sample(resp: aiohttp.ClientResponse) -> dict[str, float]:
    return prometheus.sample_values(await resp.text())


_SLOT_FIELDS = ("id", "is_processing", "id_task", "n_ctx", "n_prompt_tokens")


async def _slots_sample(resp: aiohttp.ClientResponse) -> list[dict[str, Any]]:
    """What the record keeps of each slot. Built from the raw objects (not ``SlotState``): a slot object
    without an ``id`` is kept with ``id: None``, and values are stored as the server sent them. ``n_ctx`` and
    ``n_prompt_tokens`` (the tokens the slot holds, generated ones included) give the KV cache in use."""
    return [{k: s.get(k) for k in _SLOT_FIELDS} for s in json.loads(await resp.read()) if isinstance(s, dict)]


_SCRAPED = {"metrics": _metrics_sample, "slots": _slots_sample}  # endpoint (also the sample's key) -> parser


async def scrape(session: aiohttp.ClientSession, target: Target, t: float, want: dict[str, bool]) -> dict:
    """One telemetry sample: ``{"t", "metrics": {series: value} | None, "slots": [...] | None}`` plus
    ``"errors"`` when a scrape failed, and ``"t_metrics"``, when the /metrics answer was read (on the run's clock,
    like ``t``: the server's counters stood at some moment between the two). An endpoint that answers 501/404
    (not enabled) is not asked again."""
    sample: dict[str, Any] = {"t": t, "metrics": None, "slots": None}
    started = time.perf_counter()
    errors = []
    timeout = aiohttp.ClientTimeout(total=deadlines.deadline("telemetry"))
    for name, parse in _SCRAPED.items():
        if not want.get(name, True):
            continue
        path = "/" + name
        try:
            async with session.get(join_url(target.base_url, path), headers=target.headers,
                                   timeout=timeout) as resp:
                await resp.read()  # the whole body, whatever the status (the connection is reused)
                if resp.status == 200:
                    sample[name] = await parse(resp)
                    sample[f"t_{name}"] = t + (time.perf_counter() - started)
                else:
                    errors.append(f"{path} {resp.status}")
                    if resp.status in (404, 501):  # not enabled: not asked again
                        want[name] = False
        except (aiohttp.ClientError, TimeoutError, OSError, ValueError, TypeError) as exc:
            errors.append(f"{path} {type(exc).__name__}")
    if errors:
        sample["errors"] = errors
    return sample


async def baseline(session: aiohttp.ClientSession | None, target: Target) -> tuple[float, dict] | None:
    """The counters' baseline, read before the first request can be sent: a scrape sent beside that request may
    be answered after the server counted its prompt (seen once in ten runs: one prompt short). ``(when it was
    sent on the perf_counter clock, the sample)``; None without telemetry."""
    if session is None:
        return None
    return time.perf_counter(), await scrape(session, target, 0.0, {})


def on_run_clock(taken: tuple[float, dict] | None, t0_perf: float) -> list[dict]:
    """The `baseline` sample with its times on the run's clock (negative: before the start), in a list."""
    if taken is None:
        return []
    at, sample = taken
    return [{**sample, **{k: sample[k] + at - t0_perf for k in ("t", "t_metrics", "t_slots") if k in sample}}]


async def telemetry(run: RunState, out: list[dict], session: aiohttp.ClientSession) -> None:
    want: dict[str, bool] = {}
    next_t = time.perf_counter()
    while want.get("metrics", True) or want.get("slots", True):
        out.append(await scrape(session, run.target, run.now(), want))
        next_t += TELEMETRY_INTERVAL_S
        await asyncio.sleep(max(0.0, next_t - time.perf_counter()))
