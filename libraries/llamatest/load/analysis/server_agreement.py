"""Whether the server's own series and the client's counts tell the same story (the ``server_disagrees`` flag).

Two comparisons, sample by sample, each with a tolerance derived from how the figures are made:

**Requests in flight** against ``requests_processing + requests_deferred``. A scrape is sent at ``a`` and
answered at ``b``; the gauges stood at one moment of ``[a, b]``. The server serves the ``/metrics`` task before
the other tasks waiting in its queue, between two steps of its loop, so a request posted during the step under
way is neither processing nor deferred yet; a request whose slot was released is still in flight for the client
until its last chunk arrives. So the client's count is only known within the window ``[a - m, b + m]`` with the
margin ``m`` = the longest step of the server's loop (no longer than the longest gap between two tokens of one
stream, or than the longest prompt it processed, its own ``timings.prompt_ms``) plus ``edge_s`` (the HTTP
parsing and the last chunk's trip on loopback). The server's count must lie between the requests in flight over
the whole window (``lo``) and those in flight at any moment of it (``hi``): the tolerance is the requests that
started or ended within the scrape window.

**Output tokens**: the server adds a request's whole output to ``tokens_predicted_total`` when its slot is
released (``metrics_on_prediction`` in the slot's reset), so the counter moves in steps of one request's output
(its granularity), at the end of each stream. Over a scrape interval the server's rate and the client's differ
by the output of the requests that ended within the scrape windows at its two ends: one scrape interval's worth
of tokens at the current rate plus one request of granularity. Compared cumulatively (the baseline scrape is
taken before the first request), sample ``i``'s counter delta must lie between the output of the requests that
ended before ``a - m`` (``lo``) and that of those ended before ``b + m`` (``hi``); a request cut or failed counts
up to its requested tokens in ``hi`` (the server counted what it generated, the client may not have seen it).

The functions take plain numbers (pytests feed them synthetic series); `agreement` reads a ``RunRecord``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llamatest.load.analysis.metrics import end_of, intervals_of, telemetry_values
from llamatest.load.analysis.server_series import metric_samples
from llamatest.load.engine.record import RunRecord

EDGE_S = 0.05  # HTTP parsing before a request is a task, and the last chunk's trip after its slot is released
SHOWN = 3  # disagreeing samples named in the detail


def in_flight_misses(windows: list[tuple[float, float, float]], spans: list[tuple[float, float]],
                     margin: float) -> list[dict[str, float]]:
    """The samples ``(a, b, server count)`` whose count lies outside the client's ``[lo, hi]`` over
    ``[a - margin, b + margin]`` (``spans``: each request's ``(start, end)``)."""
    start = np.asarray([s for s, _ in spans], dtype=float)
    end = np.asarray([e for _, e in spans], dtype=float)
    misses = []
    for a, b, server in windows:
        lo_t, hi_t = a - margin, b + margin
        lo = int(np.sum((start <= lo_t) & (end >= hi_t)))
        hi = int(np.sum((start <= hi_t) & (end >= lo_t)))
        if not lo <= server <= hi:
            misses.append({"t": a, "server": server, "lo": lo, "hi": hi})
    return misses


def token_misses(windows: list[tuple[float, float, float]], ends: list[tuple[float, float, float]],
                 margin: float) -> list[dict[str, float]]:
    """The samples ``(a, b, counter delta since the baseline)`` outside the client's ``[lo, hi]``: ``ends`` holds
    each request's ``(end, tokens the client counted, most tokens the server may have counted)``."""
    t = np.asarray([e for e, _, _ in ends], dtype=float)
    low = np.asarray([n for _, n, _ in ends], dtype=float)
    high = np.asarray([n for _, _, n in ends], dtype=float)
    misses = []
    for a, b, server in windows:
        lo = float(low[t <= a - margin].sum())
        hi = float(high[t <= b + margin].sum())
        if not lo <= server <= hi:
            misses.append({"t": a, "server": server, "lo": lo, "hi": hi})
    return misses


def margin_of(run: RunRecord, measured: dict, edge_s: float = EDGE_S) -> float:
    """``m``: the longest step of the server's loop seen in the run (longest token gap of a stream, longest
    prompt by the server's own timings), plus ``edge_s``."""
    gaps = [g for r in run.requests for g in measured[r.index][0]["itl_chunk"]]
    prompts = [p for r in run.requests if (p := measured[r.index][0]["server_prompt_ms"]) is not None]
    return max(gaps + prompts, default=0.0) / 1000.0 + edge_s


def _windows(samples: list[dict], names: tuple[str, ...], base: dict[str, float]) -> list[tuple]:
    out = []
    for s in samples:
        v = telemetry_values(s["metrics"])
        if all(n in v for n in names):
            out.append((s.get("t", 0.0), s.get("t_metrics", s.get("t", 0.0)),
                        sum(v[n] - base.get(n, 0.0) for n in names)))
    return out


def _token_ends(run: RunRecord, measured: dict) -> list[tuple[float, float, float]]:
    out = []
    for r in run.requests:
        if r.t_dispatched is None:
            continue
        m = measured[r.index][0]
        seen = float(m["n_out"] or 0)
        most = seen if r.ok else float(max(seen, r.n_requested)) if r.n_requested is not None else np.inf
        end = end_of(r)
        out.append((end if end is not None else r.t_dispatched, seen, most))
    return out


def agreement(run: RunRecord, measured: dict, edge_s: float = EDGE_S) -> dict[str, Any]:
    """``{"judged", "reason", "margin_s", "samples", "in_flight": [misses], "tokens": [misses]}`` of ``run``."""
    samples = [s for s in metric_samples(run) if s.get("worker", 0) == 0]
    if len(samples) < 2:
        return {"judged": False, "reason": f"{len(samples)} /metrics samples", "in_flight": [], "tokens": []}
    margin = margin_of(run, measured, edge_s)
    gauges = _windows(samples, ("requests_processing", "requests_deferred"), {})
    sent = [r.t_dispatched for r in run.requests if r.t_dispatched is not None]
    # The counters' baseline must be read before the first request, or its tokens may be in it already.
    based = samples[0].get("t_metrics", samples[0].get("t", 0.0)) <= min(sent, default=0.0)
    base = telemetry_values(samples[0]["metrics"])
    counted = _windows(samples[1:], ("tokens_predicted_total",), base) if based else []
    return {"judged": True, "reason": None, "margin_s": round(margin, 4), "samples": len(samples),
            "tokens_judged": based, "in_flight": in_flight_misses(gauges, intervals_of(run.requests), margin),
            "tokens": token_misses(counted, _token_ends(run, measured), margin)}


def flag_detail(found: dict[str, Any]) -> tuple[bool, str]:
    """``(set, detail)`` of the ``server_disagrees`` flag from an `agreement` result."""
    if not found["judged"]:
        return False, f"not judged: {found['reason']}"
    parts = [] if found["tokens_judged"] else ["output tokens not judged: no /metrics baseline before the first "
                                              "request"]
    for key, label in (("in_flight", "requests in flight (processing + deferred)"),
                       ("tokens", "output tokens (tokens_predicted_total)")):
        misses = found[key]
        if key == "tokens" and not found["tokens_judged"]:
            continue
        shown = "; ".join(f"t={x['t']:.2f} s server {x['server']:g}, client {x['lo']:g}-{x['hi']:g}"
                          for x in misses[:SHOWN])
        parts.append(f"{label}: {len(misses)} of {found['samples']} samples outside the client's range"
                     + (f" ({shown})" if misses else ""))
    detail = "; ".join(parts) + f"; tolerance: requests started or ended within {found['margin_s']:.3f} s of a scrape"
    return bool(found["in_flight"] or found["tokens"]), detail
