"""The server's own series over a load run: what ``/metrics`` (and ``/slots``) said, one sample a second, on
the run's clock, beside what the client counted at the same instants.

``series_block(run)`` is ``summary["server_series"]``: ``{"series": {...} | None, "reason": str | None}``.
The series holds per-sample arrays (compact: one number per sample, the sample's time first):

- ``t``: when the ``/metrics`` answer was read, seconds from t0 (the gauges stood at some moment before it);
- ``processing`` / ``deferred``: the ``requests_processing`` and ``requests_deferred`` gauges;
- ``predicted_tps`` / ``prompt_tps`` / ``cached_tps``: the deltas of ``tokens_predicted_total``,
  ``prompt_tokens_total`` and ``prompt_tokens_cached_total`` (prompt-cache hits: tokens reused) over the interval
  since the previous sample, per second (None for the first sample);
- ``kv_used_ratio``: ``kv_cache_usage_ratio`` when the build exposes it, else, with ``/slots`` enabled, the
  tokens the slots hold over their context (``n_prompt_tokens`` / ``n_ctx``: a slot's prompt counts generated
  tokens too); None when neither is there;
- ``client_in_flight`` / ``client_tps``: the client's own requests in flight at ``t`` and output tokens per
  second received over the same interval (the client's side of the comparison, on the same axis).

Without a series ``reason`` says why: an endpoint that answered 501 (a server started without ``--metrics``),
or telemetry turned off. ``sample_lines(run)`` are the raw samples, one line each (``server-series.jsonl``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llamatest.load.analysis.metrics import answered, intervals_of, telemetry_values
from llamatest.load.engine.record import RunRecord

RATES = {"predicted_tps": "tokens_predicted_total", "prompt_tps": "prompt_tokens_total",
         "cached_tps": "prompt_tokens_cached_total"}
GAUGES = {"processing": "requests_processing", "deferred": "requests_deferred"}
_WHY = {501: "the server was started without --metrics", 404: "the target has no /metrics endpoint"}


def metric_samples(run: RunRecord) -> list[dict]:
    """The telemetry samples that hold a ``/metrics`` reading, in the order they were answered."""
    return sorted((s for s in run.telemetry if isinstance(s, dict) and s.get("metrics")), key=answered)


def absent_reason(run: RunRecord) -> str:
    """Why the run has no server series: the first failed ``/metrics`` answer, or no scrape at all."""
    errors = [e for s in run.telemetry if isinstance(s, dict) for e in s.get("errors", []) if e.startswith("/metrics")]
    for error in errors:
        status = error.split()[-1]
        if status.isdigit():
            why = _WHY.get(int(status), "")
            return f"GET /metrics answered {status}" + (f": {why}" if why else "")
    if errors:
        return f"every GET /metrics failed ({', '.join(sorted(set(errors)))})"
    return "the server was not scraped during this run (telemetry turned off)"


def kv_used(sample: dict, values: dict[str, float]) -> float | None:
    """The share of the KV cache in use: the build's own gauge, else the slots' held tokens over their context."""
    if "kv_cache_usage_ratio" in values:
        return values["kv_cache_usage_ratio"]
    slots = [s for s in sample.get("slots") or [] if isinstance(s.get("n_ctx"), int | float) and s["n_ctx"] > 0]
    if not slots:
        return None
    return sum(float(s.get("n_prompt_tokens") or 0) for s in slots) / sum(float(s["n_ctx"]) for s in slots)


def _rate(t: np.ndarray, counter: list[float | None]) -> list[float | None]:
    """Per-interval delta of a counter over the interval's length; None where it or its predecessor is missing."""
    out: list[float | None] = [None]
    for i in range(1, len(t)):
        a, b, dt = counter[i - 1], counter[i], t[i] - t[i - 1]
        out.append(None if a is None or b is None or dt <= 0 else _round((b - a) / dt))
    return out


def client_side(run: RunRecord, measured: dict, t: np.ndarray) -> tuple[list[float], list[float | None]]:
    """The client's requests in flight at each ``t`` and its output tokens per second over each interval
    (every request, warmup included, as the server sees them); ``measured`` is `metrics.measure(run)`."""
    spans = intervals_of(run.requests)
    starts = np.sort([a for a, _ in spans]) if spans else np.array([])
    ends = np.sort([b for _, b in spans]) if spans else np.array([])
    in_flight = np.searchsorted(starts, t, side="right") - np.searchsorted(ends, t, side="right")
    arrivals = sorted((e.t, c) for r in run.requests
                      for e, c in zip(r.token_events, measured[r.index][1], strict=True))
    times = np.asarray([a for a, _ in arrivals], dtype=float)
    cumulative = np.concatenate([[0.0], np.cumsum([c for _, c in arrivals])])
    received = cumulative[np.searchsorted(times, t, side="right")]
    return [float(x) for x in in_flight], _rate(t, [float(x) for x in received])


def series_block(run: RunRecord, measured: dict) -> dict[str, Any]:
    """``summary["server_series"]`` (see the module documentation); ``measured`` is `metrics.measure(run)`."""
    samples = metric_samples(run)
    if not samples:
        return {"series": None, "reason": absent_reason(run)}
    t = np.asarray([answered(s) for s in samples], dtype=float)
    values = [telemetry_values(s["metrics"]) for s in samples]
    series: dict[str, Any] = {"t": [_round(x) for x in t]}
    for key, name in GAUGES.items():
        series[key] = [v.get(name) for v in values]
    for key, name in RATES.items():
        series[key] = _rate(t, [v.get(name) for v in values])
    kv = [kv_used(s, v) for s, v in zip(samples, values, strict=True)]
    series["kv_used_ratio"] = None if all(x is None for x in kv) else [_round(x) for x in kv]
    series["client_in_flight"], series["client_tps"] = client_side(run, measured, t)
    return {"series": series, "reason": None}


def sample_lines(run: RunRecord) -> list[dict[str, Any]]:
    """The raw telemetry samples as they were taken (the lines of ``server-series.jsonl``), in time order."""
    return sorted((s for s in run.telemetry if isinstance(s, dict)), key=lambda s: s.get("t", 0.0))


def _round(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)
