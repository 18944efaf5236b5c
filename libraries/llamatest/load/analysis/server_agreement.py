"""Whether the server's own series and the client's counts tell the same story (the ``server_disagrees`` flag).

Two comparisons, sample by sample. A scrape is sent at ``a`` and answered at ``b``: the server read its figures
at one moment of ``[a, b]``. What the client knows of each request is only as sharp as the server's loop
allows, and the tolerance is exactly the requests whose start or end falls where the client cannot tell:

**Requests in flight** against ``requests_processing + requests_deferred``. Build 11434 runs a long step of
its loop (a batch of prompts: seconds on a slow machine) while a worker thread serves ``/metrics``, and sets
aside the completion tasks that arrive meanwhile (``yield_to_queue``): they are neither processing nor deferred
until the step ends. So a request the client sent is surely counted only once it holds a slot, which the
arrival of its first token proves; until its last token it still does (its slot is released when that token
is sent, within ``edge`` of its arrival: ``edge_s``, a chunk's trip on loopback and the HTTP layer, plus the
client's own stamping delay, its event-loop lag). A failed request may hold its slot until the server notices
the client is gone. The server's count must lie between the requests surely counted over all of ``[a, b]``
(``lo``: streaming then) and those possibly counted at some moment of it (``hi``: sent and not yet ended): the
tolerance is the requests that started (sent, no token yet: waiting for a slot or for the step under way) or
ended within the scrape window.

**Output tokens**: the server adds a request's whole output to ``tokens_predicted_total`` when its slot is
released (``metrics_on_prediction`` in the slot's reset), so the counter moves in steps of one request's
output (its granularity), within ``edge`` of the arrival of that request's last token. Over a scrape
interval the server's rate and the client's may therefore differ by the output of the requests that ended
within the scrape windows at its two ends: one scrape interval's worth of tokens at the current rate plus one
request of granularity. Compared cumulatively (the baseline scrape is taken before the first request), the
counter's delta must lie between the output of the successful requests surely released before ``a`` (``lo``)
and that of those possibly released before ``b`` (``hi``); a request cut or failed counts up to its requested
tokens in ``hi`` from its sending on (the server counted what it generated, the client may not have seen it).

The functions take plain numbers (pytests feed them synthetic series); `agreement` reads a ``RunRecord``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llamatest.load.analysis.metrics import answered, end_of, telemetry_values
from llamatest.load.analysis.server_series import absent_reason, metric_samples
from llamatest.load.engine.record import RunRecord

EDGE_S = 0.05  # HTTP parsing before a request is a task, a chunk's trip to the client on loopback
SHOWN = 3  # disagreeing samples named in the detail


def in_flight_misses(windows: list[tuple[float, float, float]], spans: list[tuple[float, float, float, float]]
                     ) -> list[dict[str, float]]:
    """The samples ``(a, b, server count)`` outside the client's ``[lo, hi]``. ``spans`` holds each request's
    ``(possibly counted from, surely counted from, surely counted until, possibly counted until)``."""
    maybe_from, sure_from, sure_until, maybe_until = (np.asarray(c, dtype=float).reshape(-1) for c in
                                                      zip(*spans, strict=True)) if spans else [np.array([])] * 4
    misses = []
    for a, b, server in windows:
        lo = int(np.sum((sure_from <= a) & (sure_until >= b)))
        hi = int(np.sum((maybe_from <= b) & (maybe_until >= a)))
        if not lo <= server <= hi:
            misses.append({"t": a, "server": server, "lo": lo, "hi": hi})
    return misses


def token_misses(windows: list[tuple[float, float, float]], ends: list[tuple[float, float, float, float]]
                 ) -> list[dict[str, float]]:
    """The samples ``(a, b, counter delta since the baseline)`` outside the client's ``[lo, hi]``. ``ends`` holds
    each request's ``(surely counted by, tokens then, possibly counted from, most tokens then)``."""
    sure_by, low, maybe_from, high = (np.asarray(c, dtype=float).reshape(-1) for c in
                                      zip(*ends, strict=True)) if ends else [np.array([])] * 4
    misses = []
    for a, b, server in windows:
        lo = float(low[sure_by <= a].sum())
        hi = float(high[maybe_from <= b].sum())
        if not lo <= server <= hi:
            misses.append({"t": a, "server": server, "lo": lo, "hi": hi})
    return misses


def edge_of(run: RunRecord, edge_s: float = EDGE_S) -> float:
    """``edge``: ``edge_s`` plus the client's longest event-loop lag in the run (its stamps are late by that)."""
    return edge_s + max((lag for _, lag in run.loop_lag), default=0.0)


def request_bounds(run: RunRecord, measured: dict, edge: float) -> tuple[list[tuple], list[tuple]]:
    """Each sent request's in-flight span and token end for `in_flight_misses` and `token_misses`."""
    spans, ends = [], []
    for r in run.requests:
        if r.t_dispatched is None:
            continue
        x = r.t_dispatched
        tokens = r.token_events
        last = tokens[-1].t if r.ok and tokens else end_of(r) if end_of(r) is not None else x
        sure_from = tokens[0].t if r.ok and tokens else np.inf
        spans.append((x, sure_from, last - edge, last + edge if r.ok else np.inf))
        seen = float(measured[r.index][0]["n_out"] or 0)
        if r.ok:
            ends.append((last + edge, seen, last - edge, seen))
        else:
            most = float(max(seen, r.n_requested)) if r.n_requested is not None else np.inf
            ends.append((np.inf, 0.0, x, most))
    return spans, ends


def _windows(samples: list[dict], names: tuple[str, ...], base: dict[str, float]) -> list[tuple]:
    out = []
    for s in samples:
        v = telemetry_values(s["metrics"])
        if all(n in v for n in names):
            out.append((s.get("t", 0.0), answered(s), sum(v[n] - base.get(n, 0.0) for n in names)))
    return out


def agreement(run: RunRecord, measured: dict, edge_s: float = EDGE_S) -> dict[str, Any]:
    """``{"judged", "reason", "edge_s", "samples", "tokens_judged", "in_flight": [misses], "tokens": [misses]}``."""
    samples = [s for s in metric_samples(run) if s.get("worker", 0) == 0]
    if len(samples) < 2:
        reason = absent_reason(run) if not samples else "one /metrics sample: nothing to compare over time"
        return {"judged": False, "reason": reason, "in_flight": [], "tokens": []}
    edge = edge_of(run, edge_s)
    spans, ends = request_bounds(run, measured, edge)
    gauges = _windows(samples, ("requests_processing", "requests_deferred"), {})
    sent = [r.t_dispatched for r in run.requests if r.t_dispatched is not None]
    # The counters' baseline must be read before the first request, or its tokens may be in it already.
    based = answered(samples[0]) <= min(sent, default=0.0)
    base = telemetry_values(samples[0]["metrics"])
    counted = _windows(samples[1:], ("tokens_predicted_total",), base) if based else []
    return {"judged": True, "reason": None, "edge_s": round(edge, 4), "samples": len(samples),
            "tokens_judged": based, "in_flight": in_flight_misses(gauges, spans), "tokens": token_misses(counted, ends)}


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
    detail = "; ".join(parts) + (f"; tolerance: the requests waiting for their first token, or whose last token "
                                 f"came within {found['edge_s']:.3f} s, of a scrape")
    return bool(found["in_flight"] or found["tokens"]), detail
