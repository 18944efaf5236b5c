"""The run's summary dict (schema ``llamatest.load.summary/1``): counts, distributions, throughput in two
windows, goodput, concurrency, a 1-s time series, server telemetry and the server's own series beside the
client's (``server_series``), the overhead outside the server's timings, client health, validity flags, the
definitions and the workload block (conversations, cache, routes). Composed here, from `metrics` (what was
measured), `validity` (whether the measurement holds) and `workload_metrics`, so neither of those imports the
other's caller.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from llamatest.load.analysis import metrics as m
from llamatest.load.analysis.overhead import overhead_block
from llamatest.load.analysis.server_agreement import agreement
from llamatest.load.analysis.server_series import series_block
from llamatest.load.analysis.validity import validity_flags
from llamatest.load.analysis.workload_metrics import workload_block
from llamatest.load.engine.record import RunRecord


def summarize(run: RunRecord, *, slo: dict | None = None, cold: bool = True, thresholds: dict | None = None,
              seed: int = 0, resamples: int = 1000, measured: dict | None = None) -> dict[str, Any]:
    """The run's summary dict, validity flags included.

    ``slo`` holds per-request limits for goodput (``{"ttft_ms": 500, "tpot_ms": 50, "e2e_ms": …}``);
    ``cold`` says the profile must not reuse cached prompt tokens; ``thresholds`` overrides validity limits;
    ``measured`` is `metrics.measure(run)` when the caller has it already.
    """
    limits = m.check_request_slo(slo)
    reqs = run.measured
    measured = measured if measured is not None else m.measure(run)
    mets = [measured[r.index][0] for r in reqs]
    window = m.window_of(run)
    ok = [(r, met) for r, met in zip(reqs, mets, strict=True) if r.ok]
    samples = {name: [float(v) for v in _values(ok, key)] for name, key in m.SUMMARY_METRICS.items()}
    summary: dict[str, Any] = {
        "schema": m.SCHEMA,
        "profile": dict(run.profile or {}),
        "target": dict(run.target or {}),
        "meta": dict(run.meta or {}),
        "window": list(window),
        "counts": _counts(run, reqs, ok),
        "metrics": {name: m.distribution(vals, seed=seed, resamples=resamples) for name, vals in samples.items()},
        "samples": samples,
        "slo": limits,
        "server": m.server_block(run, window),
        "client": _client(run, reqs, seed, resamples),
        "definitions": dict(m.DEFINITIONS),
    }
    series = m.timeseries(run, reqs, mets, [measured[r.index][1] for r in reqs], m.intervals_of(reqs), window)
    summary["throughput"] = _throughput(run, reqs, ok, limits, window, series)
    summary["timeseries"] = series
    summary["server_series"] = {**series_block(run, measured), "agreement": agreement(run, measured)}
    summary["overhead"] = overhead_block(run, mets)
    summary["flags"] = validity_flags(run, summary, cold=cold, thresholds=thresholds, per_request=mets)
    summary["workload"] = workload_block(run, measured)
    return summary


def _values(ok: list, key: str) -> list:
    if key in m.LIST_METRICS:
        return [v for _, met in ok for v in met[key]]
    return [met[key] for _, met in ok if met[key] is not None]


def _counts(run: RunRecord, reqs: list, ok: list) -> dict[str, Any]:
    dropped = sum(1 for r in reqs if r.dropped)
    errors_by_class = Counter(r.error if r.error is not None else "unfinished" for r in reqs if not r.ok)
    counts = {
        "attempted": len(reqs),
        "sent": sum(1 for r in reqs if r.t_dispatched is not None),
        "succeeded": len(ok),
        "errored": sum(1 for r in reqs if not r.ok and not r.dropped),
        "dropped": dropped,
        "warmup": sum(1 for r in run.requests if r.phase == "warmup"),
        "in_flight_at_window_end": run.in_flight_at_window_end,
        "drain_timed_out": run.drain_timed_out,
        "errors_by_class": dict(sorted(errors_by_class.items())),
        "outcomes": dict(sorted(Counter(r.outcome for r, _ in ok if r.outcome).items())),
        "n_out_sources": dict(sorted(Counter(met["n_out_source"] for _, met in ok if met["n_out_source"]).items())),
        "token_gaps": sum(len(met["itl_chunk"]) for _, met in ok),
        "coalesced_gaps": sum(met["coalesced_gaps"] for _, met in ok),
        "itl_token_estimated": sum(1 for _, met in ok if met["itl_token_estimated"]),
    }
    counts["coalesced_fraction"] = (counts["coalesced_gaps"] / counts["token_gaps"]) if counts["token_gaps"] else 0.0
    return counts


def _throughput(run: RunRecord, reqs: list, ok: list, limits: dict | None, window: tuple[float, float],
                series: list[dict]) -> dict[str, Any]:
    """Throughput in the measured window and over the wall time of the successful requests, goodput, rates."""
    w0, w1 = window
    in_window = [(r, met) for r, met in ok if w0 <= r.t_dispatched <= w1]
    good_w = good_all = None
    if limits is not None:
        good_w = sum(1 for _, met in in_window if m.meets_slo(met, limits))
        good_all = sum(1 for _, met in ok if m.meets_slo(met, limits))
    sent_ok = [r for r, _ in ok]
    wall_d = max(m.end_of(r) for r in sent_ok) - min(r.t_dispatched for r in sent_ok) if sent_ok else 0.0
    mean_c, peak_c = m.concurrency(m.intervals_of(reqs))
    sent_in_window = sum(1 for r in reqs if r.t_dispatched is not None and w0 <= r.t_dispatched <= w1)
    errored = sum(1 for r in reqs if not r.ok)
    return {
        "window": m.throughput_of(in_window, good_w, w1 - w0),
        "wall": m.throughput_of(ok, good_all, wall_d),
        "peak_output_tps": max((p["output_tps"] for p in series), default=0.0),
        "concurrency_mean": mean_c,
        "peak_concurrency": peak_c,
        "achieved_rate": sent_in_window / (w1 - w0) if w1 > w0 else None,
        "target_rate": m.target_rate(run, window),
        "offered_rate": (sum(1 for r in reqs if w0 <= r.t_scheduled <= w1) / (w1 - w0)
                         if w1 > w0 and (run.profile or {}).get("kind") in ("rate", "ramp") else None),
        "error_rate": errored / len(reqs) if reqs else None,
    }


def _client(run: RunRecord, reqs: list, seed: int, resamples: int) -> dict[str, Any]:
    """The load generator's own health: schedule lag, event-loop lag, CPU, workers."""
    lag = [(r.t_dispatched - r.t_scheduled) * 1000.0 for r in reqs if r.t_dispatched is not None]
    cpu = [c for _, c in run.cpu]
    return {
        "schedule_lag_ms": m.distribution(lag, seed=seed, resamples=resamples),
        "loop_lag_ms": m.distribution([x * 1000.0 for _, x in run.loop_lag], seed=seed, resamples=resamples),
        "cpu_pct_max": max(cpu) if cpu else None,
        "cpu_pct_mean": float(np.mean(cpu)) if cpu else None,
        "workers": len(run.workers) or 1,
    }
