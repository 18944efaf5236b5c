"""Soak and leak detection: the server process's resources against the requests it served, and mass disconnects.

- ``ResourceSampler(pid)``: a thread sampling the server process's RSS, open file descriptors and threads
  (psutil) about once a second while a profile runs.
- ``leak_report(samples, run)``: over the steady part (after the first ``STEADY_FROM`` of the requests served,
  when allocators and caches have grown to their working size), a least-squares slope of each resource against
  the number of requests served so far (``scipy.stats.linregress``). A resource *grows* when the slope is
  significant (p < ``ALPHA``) and above its floor per 1,000 requests (``LIMITS``), and each half of the steady
  part grows by at least half the floor on its own: noise and a one-off step (a pool that got one more thread)
  do not make a leak, steady growth with traffic does.
- ``mass_disconnect``: ``streams`` answers open at once, half of them hung up by the client at the same moment
  mid-answer; once the other half ended, the server's slots must all be idle again within a bound and the next
  requests answered normally.
"""

from __future__ import annotations

import asyncio
import bisect
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import psutil
import requests

from llamatest import deadlines
from llamatest.load.engine.record import RunRecord

SAMPLE_INTERVAL_S = 1.0
STEADY_FROM = 0.3  # the steady part starts once this share of the run's requests was served
ALPHA = 0.01
MIN_SAMPLES = 8
MIN_REQUESTS = 100  # served over the steady part: fewer make any drift look huge per 1,000 requests
RESOURCES = ("rss_bytes", "open_fds", "threads")
# Growth per 1,000 requests served above which a significant slope is a leak.
LIMITS = {"rss_bytes": 1 << 20, "open_fds": 1.0, "threads": 1.0}
SLOTS_POLL_S = 0.1


def server_pid(base_url: str) -> int | None:
    """The pid of the process listening on ``base_url``'s port on this machine (None when not found)."""
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
            return conn.pid
    return None


class ResourceSampler:
    """``with ResourceSampler(pid) as sampler: ...`` fills ``sampler.samples`` with ``(perf_counter, rss_bytes,
    open_fds, threads)`` every ``interval`` seconds; a process that ends stops the sampling."""

    def __init__(self, pid: int, interval: float = SAMPLE_INTERVAL_S) -> None:
        self.process = psutil.Process(pid)
        self.interval = interval
        self.samples: list[tuple[float, int, int, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"resources-{pid}", daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                with self.process.oneshot():
                    sample = (time.perf_counter(), self.process.memory_info().rss, self.process.num_fds(),
                              self.process.num_threads())
            except psutil.Error:
                return
            self.samples.append(sample)
            self._stop.wait(self.interval)

    def __enter__(self) -> ResourceSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(self.interval + 5)


def _slope(served: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    """(slope per request, p-value); a flat series is slope 0, p 1."""
    if np.ptp(values) == 0:
        return 0.0, 1.0
    from scipy import stats  # here, not at import: scipy.stats takes 0.85 s to import, and only soak runs need it

    fit = stats.linregress(served, values)
    return float(fit.slope), float(fit.pvalue)


def leak_report(samples: list[tuple[float, int, int, int]], run: RunRecord) -> dict[str, Any]:
    """Per resource: ``{"per_1000_requests", "p_value", "grows", "limit", "first", "last"}`` over the steady part,
    plus ``"samples"`` and ``"requests"``; ``"judged": False`` with the reason when there is too little."""
    closed = sorted(r.t_closed + run.t0_perf for r in run.requests if r.ok)
    served = np.array([bisect.bisect_right(closed, t) for t, *_ in samples], dtype=float)
    steady = served >= STEADY_FROM * len(closed)
    out: dict[str, Any] = {"samples": int(steady.sum()), "requests": len(closed), "judged": False}
    spread = int(np.ptp(served[steady])) if steady.any() else 0
    if steady.sum() < MIN_SAMPLES or spread < MIN_REQUESTS:
        out["reason"] = (f"{int(steady.sum())} samples and {spread} requests served over the steady part (needs "
                         f"{MIN_SAMPLES} and {MIN_REQUESTS}): run longer")
        return out
    out["judged"] = True
    x = served[steady]
    half = len(x) // 2
    for i, name in enumerate(RESOURCES, start=1):
        values = np.array([s[i] for s in samples], dtype=float)[steady]
        slope, p = _slope(x, values)
        halves = [_slope(x[part], values[part])[0] * 1000 if np.ptp(x[part]) else 0.0
                  for part in (slice(0, half), slice(half, None))]
        grows = p < ALPHA and slope * 1000 > LIMITS[name] and min(halves) > LIMITS[name] / 2
        out[name] = {"per_1000_requests": slope * 1000, "p_value": p, "limit": LIMITS[name], "grows": bool(grows),
                     "halves_per_1000": halves, "first": float(values[0]), "last": float(values[-1])}
    return out


def describe_leaks(report: dict[str, Any]) -> str:
    """``rss_bytes +0.01 MiB/1000 req (p=0.4), open_fds +0/1000 req, threads +0/1000 req``."""
    if not report.get("judged"):
        return f"not judged: {report.get('reason')}"
    parts = []
    for name in RESOURCES:
        r = report[name]
        value = r["per_1000_requests"] / (1 << 20) if name == "rss_bytes" else r["per_1000_requests"]
        unit = " MiB" if name == "rss_bytes" else ""
        parts.append(f"{name} {value:+.3g}{unit}/1000 req (p={r['p_value']:.2g}){' GROWS' if r['grows'] else ''}")
    return f"{report['requests']} requests, {report['samples']} samples: " + ", ".join(parts)


# ----- mass disconnects -----

async def _open(session, url: str, body: dict, headers: dict, events: int) -> Any:
    """Posts a streamed request and reads until ``events`` SSE data lines arrived; returns the open response."""
    resp = await session.post(url, json={**body, "stream": True}, headers=headers)
    seen = 0
    while seen < events:
        line = await resp.content.readline()
        if not line:
            break
        seen += line.startswith(b"data:")
    return resp


async def _finish(resp) -> bool:
    """Reads an answer to its end; True when it ended with ``[DONE]`` or a native final event."""
    last = b""
    async for line in resp.content:
        if line.startswith(b"data:"):
            last = line
    resp.release()
    return last.strip() == b"data: [DONE]" or b'"stop":true' in last.replace(b" ", b"")


async def _disconnect(target, bodies: list[dict], events: int, timeout_s: float) -> dict[str, Any]:
    import aiohttp

    cut = len(bodies) // 2
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(force_close=True)) as session:
        opened = await asyncio.gather(*(_open(session, target.url, b, target.headers, events) for b in bodies))
        statuses = [r.status for r in opened]
        for resp in opened[:cut]:  # all in one go, no await between: the hang-ups arrive together
            resp.close()
        t_cut = time.perf_counter()
        finished = await asyncio.gather(*(_finish(r) for r in opened[cut:]))
    return {"streams": len(bodies), "hung_up": cut, "statuses": statuses, "finished_ok": sum(finished),
            "open_after_cut_s": round(time.perf_counter() - t_cut, 3)}


def wait_slots_idle(base_url: str, headers: dict, within_s: float) -> float | None:
    """Seconds until ``/slots`` shows no slot processing, or None when that did not happen within ``within_s``."""
    start = time.perf_counter()
    while time.perf_counter() - start < within_s:
        slots = requests.get(f"{base_url}/slots", headers=headers, timeout=within_s).json()
        if not any(s.get("is_processing") for s in slots):
            return time.perf_counter() - start
        time.sleep(SLOTS_POLL_S)
    return None


def mass_disconnect(target, body_for: Callable[[int], dict], *, streams: int, idle_within_s: float,
                    after_events: int = 3, followup: int = 4, timeout_s: float | None = None) -> dict[str, Any]:
    """Opens ``streams`` answers, hangs up half of them at once after ``after_events`` events, lets the rest end
    (``open_after_cut_s``); then measures how long until every slot is idle (``idle_after_s``, from the end of the
    last answer: no request is open any more; None beyond ``idle_within_s``) and sends ``followup`` requests one
    at a time (``followup_ok``: how many succeeded)."""
    from llamatest.load.engine.pacing import run_load_sync
    from llamatest.load.engine.profiles import Profile

    if streams < 2:
        raise ValueError(f"streams must be >= 2 (half of them hang up); got {streams}")
    timeout_s = deadlines.or_default(timeout_s, "mass_disconnect")
    out = asyncio.run(_disconnect(target, [body_for(i) for i in range(streams)], after_events, timeout_s))
    idle = wait_slots_idle(target.base_url, target.headers, idle_within_s)
    out["idle_after_s"] = None if idle is None else round(idle, 3)
    out["idle_within_s"] = idle_within_s
    # No server series: these few requests are a health probe after the cut, never summarized, and the run they
    # follow was not a profile with a series either.
    after = run_load_sync(target, Profile("synchronous", max_requests=followup, duration_s=timeout_s),
                          lambda i: body_for(streams + i), telemetry=False)
    out["followup_ok"] = sum(r.ok for r in after.requests)
    out["followup"] = followup
    out["followup_errors"] = sorted({f"{r.error}: {r.error_detail}" for r in after.requests if not r.ok})
    return out
