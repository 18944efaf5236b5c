"""Validity flags: when the numbers of a load run cannot be trusted, and why.

``validity_flags(run, summary)`` returns one entry per flag, ``{"set": bool, "detail": "…numbers…"}``. The detail
always gives the measured values and the threshold, whether the flag is set or not, so a reader can judge a
near miss. Thresholds have defaults (``DEFAULT_THRESHOLDS``) and can be overridden per run.

Oversaturation follows the approach of guidellm: the server is oversaturated when, over the measurement window,
both the TTFT of requests (by dispatch time) and the number of requests in flight trend upwards, each slope
significantly above zero (one-sided t-test on the least-squares slope) and large enough to matter.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

from llamatest import machine
from llamatest.load.analysis import overhead, server_agreement
from llamatest.load.analysis.metrics import intervals_of, request_metrics, token_counts, window_of
from llamatest.load.engine.record import RunRecord

# Flags that make a point unusable for capacity claims and sweeps.
INVALIDATING = ("client_bound", "machine_busy", "rate_shortfall", "cache_contaminated", "oversaturated",
                "server_restarted", "worker_lost")
# Whose fault a set flag is. The machine's or the harness's: the numbers say nothing about the server, so a
# check on them is not judged (skipped with the figures), never passed or failed.
MACHINE_SIDE = ("client_bound", "machine_busy", "rate_shortfall", "cache_contaminated", "worker_lost")
# The server answered wrongly or restarted: a failure whatever the machine did.
SERVER_CORRECTNESS = ("token_count_mismatch", "osl_mismatch", "server_restarted", "invalid_stream",
                      "counter_mismatch")
# The server could not keep up: its fault on a quiet machine, not judged when a machine-side flag is set too.
# ``server_overhead``: latency outside the server's own timings (the smoke's check, on every run and level).
SERVER_PERFORMANCE = ("dropped", "oversaturated", "server_overhead")
# Flags that mark single numbers (a missing percentile, chunk ITL), not the run: shown, never failing it.
# An answer that differed when sent again alone is shown with both texts but fails nothing by itself: the
# server does not promise bit-for-bit logits across batch compositions (its README, `cache_prompt`), so only a
# test that expects it of a model (`Answers Should Not Change Under Load` on tiny) asserts it.
ADVISORY = ("insufficient_samples", "high_coalescing", "answer_changed_under_load")

DEFAULT_THRESHOLDS: dict[str, Any] = {
    "schedule_lag_p99_ms": 10.0,  # client_bound when the p99 of (dispatched - scheduled) is above
    "loop_lag_p99_ms": 20.0,  # client_bound when the p99 overshoot of the 10 ms sleeper is above
    "cpu_pct": 90.0,  # client_bound when the p90 of client CPU samples is above (percent of one core)
    "other_cores_max": machine.BUSY_CORES,  # machine_busy when other processes used more cores on average
    "rate_ratio_min": 0.95,  # rate_shortfall when achieved / offered rate is below
    "dropped_max": 0,  # dropped when more requests than this were dropped
    "cached_fraction_max": 0.0,  # cache_contaminated (cold runs) when cached / prompt tokens is above
    "token_count_mismatch_rate_max": 0.01,  # share of requests whose token counts disagree
    "osl_mismatch_rate_max": 0.0,  # share of requests whose n_out differs from the tokens requested
    "oversaturation_alpha": 0.05,  # one-sided significance of each slope
    "oversaturation_min_points": 8,  # fewer requests than this: no verdict
    "oversaturation_ttft_rise_rel": 0.2,  # fitted TTFT rise over the window, relative to the mean TTFT
    "oversaturation_in_flight_rise": 1.0,  # fitted rise of requests in flight over the window
    "insufficient_samples_metrics": ("ttft_ms", "tpot_ms", "itl_chunk_ms", "e2e_ms"),
    "insufficient_samples_percentiles": ("p50", "p90", "p95", "p99"),
    "coalesced_fraction_max": 0.2,  # high_coalescing when the share of same-read chunk gaps is above
}


def _flag(is_set: bool, detail: str) -> dict[str, Any]:
    return {"set": bool(is_set), "detail": detail}


def _p99(values) -> float | None:
    """The p99 of raw values for a threshold check (no minimum n: this is a gate, not a reported figure)."""
    x = [v for v in values if v is not None]
    return float(np.percentile(x, 99, method="linear")) if x else None


# ----------------------------------------------------------------------------------------------- statistics

def trend(x, y) -> dict[str, float | None]:
    """Least-squares slope of y on x, its t statistic and the one-sided p-value of "slope > 0"."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    if n < 3 or float(((x - x.mean()) ** 2).sum()) <= 0:
        return {"n": n, "slope": None, "t": None, "p": None}
    fit = scipy_stats.linregress(x, y, alternative="greater")
    slope = float(fit.slope)
    scale = max(1.0, float(np.abs(y).max()))
    if not math.isfinite(fit.stderr) or fit.stderr <= 1e-12 * scale:  # an exact line: the slope's sign decides
        t = math.inf if slope > 1e-12 * scale else (-math.inf if slope < -1e-12 * scale else 0.0)
        p = 0.0 if t > 0 else (1.0 if t < 0 else 0.5)
    else:
        t = slope / float(fit.stderr)
        p = 0.5 if t == 0.0 else float(fit.pvalue)
    return {"n": n, "slope": slope, "t": t, "p": p}


def oversaturation(run: RunRecord, *, alpha: float = 0.05, min_points: int = 8, ttft_rise_rel: float = 0.2,
                   in_flight_rise: float = 1.0, per_request: list[dict] | None = None) -> dict[str, Any]:
    """Whether TTFT and requests in flight both rise over the window (significant and material slopes).

    ``per_request``: the ``request_metrics`` of ``run.measured``, in order, when the caller has them already.
    """
    w0, w1 = window_of(run)
    reqs = run.measured
    mets = per_request if per_request is not None else [request_metrics(r) for r in reqs]
    spans = intervals_of(reqs)
    starts = np.sort(np.array([a for a, _ in spans])) if spans else np.array([])
    ends = np.sort(np.array([b for _, b in spans])) if spans else np.array([])
    pts = []
    for r, m in zip(reqs, mets, strict=True):
        if r.t_dispatched is None or not (w0 <= r.t_dispatched <= w1):
            continue
        ttft = m["ttft"]
        if ttft is not None:
            pts.append((r.t_dispatched, ttft))
    pts.sort()
    out: dict[str, Any] = {"set": False, "n": len(pts)}
    if len(pts) < min_points:
        out["detail"] = f"no verdict: {len(pts)} requests with a TTFT in the window, needs >= {min_points}"
        return out
    t = np.array([p[0] for p in pts])
    ttft = np.array([p[1] for p in pts])
    flight = (np.searchsorted(starts, t, side="right") - np.searchsorted(ends, t, side="right")).astype(float)
    tt, ft = trend(t, ttft), trend(t, flight)
    span = float(t[-1] - t[0])
    ttft_rise = (tt["slope"] or 0.0) * span
    flight_rise = (ft["slope"] or 0.0) * span
    mean_ttft = float(ttft.mean())
    ttft_up = tt["p"] is not None and tt["p"] < alpha and ttft_rise >= ttft_rise_rel * mean_ttft
    flight_up = ft["p"] is not None and ft["p"] < alpha and flight_rise >= in_flight_rise
    out.update(set=bool(ttft_up and flight_up), ttft_slope_ms_per_s=tt["slope"], ttft_p=tt["p"],
               in_flight_slope_per_s=ft["slope"], in_flight_p=ft["p"])

    def p_text(p):
        return "n/a" if p is None else f"{p:.3g}"

    out["detail"] = (f"TTFT rose {ttft_rise:.1f} ms over {span:.1f} s (mean {mean_ttft:.1f} ms, needs >= "
                     f"{ttft_rise_rel:g}x the mean; slope p={p_text(tt['p'])}, alpha {alpha:g}); in flight rose "
                     f"{flight_rise:.2f} (needs >= {in_flight_rise:g}; slope p={p_text(ft['p'])}); "
                     f"{len(pts)} requests")
    return out


# ---------------------------------------------------------------------------------------------------- flags

def _client_bound(run: RunRecord, th: dict) -> dict[str, Any]:
    lag = _p99([(r.t_dispatched - r.t_scheduled) * 1000.0 for r in run.measured if r.t_dispatched is not None])
    loop = _p99([x * 1000.0 for _, x in run.loop_lag])
    cpu_vals = [c for _, c in run.cpu]
    cpu = float(np.percentile(cpu_vals, 90, method="linear")) if cpu_vals else None
    reasons, parts = [], []
    for name, value, limit, unit in (("schedule lag p99", lag, th["schedule_lag_p99_ms"], " ms"),
                                     ("event-loop lag p99", loop, th["loop_lag_p99_ms"], " ms"),
                                     ("client CPU p90", cpu, th["cpu_pct"], " %")):
        if value is None:
            parts.append(f"{name} not measured")
            continue
        parts.append(f"{name} {value:.2f}{unit} (limit {limit:g}{unit})")
        if value > limit:
            reasons.append(name)
    head = f"over the limit: {', '.join(reasons)}; " if reasons else ""
    return _flag(bool(reasons), head + "; ".join(parts))


def _machine_busy(run: RunRecord, th: dict) -> dict[str, Any]:
    share = run.meta.get("machine")
    if not share:
        return _flag(False, "not measured (a run sharded over workers, or an old record)")
    cores, seconds, ours = share["other_cores"], share["seconds"], share["own_cores"]
    return _flag(cores > th["other_cores_max"],
                 f"other processes used {cores:.2f} cores on average over the {seconds:.1f} s run (limit "
                 f"{th['other_cores_max']:g}); this run's own processes (client, servers) {ours:.2f}")


def _rate_shortfall(summary: dict, th: dict) -> dict[str, Any]:
    """Achieved vs offered rate: the requests the schedule placed in the window (a seeded Poisson schedule may
    hold fewer or more than target x duration; that is the load asked for, not a shortfall of the client)."""
    tp = summary["throughput"]
    target, achieved = tp.get("target_rate"), tp.get("achieved_rate")
    offered = tp.get("offered_rate") or target
    if not target:
        return _flag(False, "no target rate (closed-loop profile)")
    if achieved is None or not offered:
        return _flag(True, f"target {target:g}/s but no measurement window or no scheduled request")
    ratio = achieved / offered
    return _flag(ratio < th["rate_ratio_min"],
                 f"achieved {achieved:.3f}/s of {offered:.3f}/s offered by the schedule (target {target:g}/s): "
                 f"ratio {ratio:.3f}, limit {th['rate_ratio_min']:g}")


def _cache(run: RunRecord, summary: dict, mets: list[dict], cold: bool, th: dict) -> dict[str, Any]:
    cached = [m["n_cached"] for m in mets if m["n_cached"] is not None]
    prompt = sum(m["n_in"] or 0 for m in mets)
    total = sum(cached)
    hits = sum(1 for c in cached if c > 0)
    delta = summary.get("server", {}).get("prompt_tokens_cached_delta")
    frac = total / prompt if prompt else None
    share = f" = {100 * frac:.2f} %" if frac is not None else ""
    text = (f"{hits} of {len(cached)} requests reused cached prompt tokens ({total} of {prompt} prompt tokens"
            f"{share}, limit {100 * th['cached_fraction_max']:g} %)")
    if delta is not None:
        text += f"; server prompt_tokens_cached_total grew by {delta:g}"
    if not cold:
        return _flag(False, "warm profile, cached tokens expected: " + text)
    over = frac is not None and frac > th["cached_fraction_max"]
    if frac is None and not cached:
        over = delta is not None and delta > 0
    if frac is None and cached:
        over = total > 0
    return _flag(over, text)


def _token_counts(r) -> list[str]:
    """The disagreements between the token counts one request carries."""
    tok = r.token_events
    outs, prompts = token_counts(r, tok)
    bad = []
    if len(set(outs.values())) > 1:
        bad.append("output " + ", ".join(f"{k}={v}" for k, v in outs.items()))
    if outs and len(tok) > min(outs.values()):
        bad.append(f"{len(tok)} token events for {min(outs.values())} tokens")
    if r.n_prompt_expected is not None and prompts:
        prompts["expected"] = int(r.n_prompt_expected)
    if len(set(prompts.values())) > 1:
        bad.append("prompt " + ", ".join(f"{k}={v}" for k, v in prompts.items()))
    return bad


def _token_mismatch(ok: list, th: dict) -> dict[str, Any]:
    checked = bad = 0
    example = ""
    for r, _ in ok:
        problems = _token_counts(r)
        checked += 1
        if problems:
            bad += 1
            example = example or f"; e.g. request {r.index}: {'; '.join(problems)}"
    if not checked:
        return _flag(False, "no successful request to check")
    rate = bad / checked
    return _flag(rate > th["token_count_mismatch_rate_max"],
                 f"{bad} of {checked} requests with disagreeing token counts (rate {rate:.3f}, limit "
                 f"{th['token_count_mismatch_rate_max']:g}){example}")


def _osl(run: RunRecord, ok: list, th: dict) -> dict[str, Any]:
    if (run.target or {}).get("ignore_eos") is False:
        return _flag(False, "ignore_eos is off: output lengths may end early by design")
    asked = [(r, m) for r, m in ok if r.n_requested is not None]
    if not asked:
        return _flag(False, "no request states its requested output length")
    off = [(r, m) for r, m in asked if m["n_out"] != r.n_requested]
    rate = len(off) / len(asked)
    example = ""
    if off:
        r, m = off[0]
        example = f"; e.g. request {r.index}: {m['n_out']} tokens ({m['n_out_source']}) for {r.n_requested} requested"
    return _flag(rate > th["osl_mismatch_rate_max"],
                 f"{len(off)} of {len(asked)} requests off their requested length (rate {rate:.3f}, limit "
                 f"{th['osl_mismatch_rate_max']:g}){example}")


def _insufficient(summary: dict, th: dict) -> dict[str, Any]:
    wanted: dict[str, set[str]] = {m: set(th["insufficient_samples_percentiles"])
                                   for m in th["insufficient_samples_metrics"]}
    missing = []
    for metric, stats in sorted(wanted.items()):
        dist = summary["metrics"].get(metric)
        if dist is None:
            continue
        for stat in sorted(stats):
            reason = dist["missing"].get(stat)
            if reason:
                missing.append(f"{metric} {stat} ({reason})")
    if missing:
        return _flag(True, "missing: " + "; ".join(missing))
    return _flag(False, "every reported percentile of " + ", ".join(sorted(wanted)) + " has enough samples")


def _restarted(summary: dict) -> dict[str, Any]:
    server = summary.get("server", {})
    if not server.get("samples"):
        return _flag(False, "no server telemetry")
    starts = server.get("process_start_times", [])
    decreased = server.get("counters_decreased", [])
    parts = []
    if len(starts) > 1:
        parts.append(f"process start time changed: {', '.join(f'{s:.0f}' for s in starts)}")
    if decreased:
        parts.append(f"counters went down: {', '.join(decreased)}")
    if parts:
        return _flag(True, "; ".join(parts))
    return _flag(False, f"{server['samples']} telemetry samples, one process start time "
                 f"({starts[0]:.0f})" if starts else f"{server['samples']} telemetry samples, counters never fell")


def _coalescing(summary: dict, th: dict) -> dict[str, Any]:
    c = summary["counts"]
    frac = c.get("coalesced_fraction") or 0.0
    return _flag(frac > th["coalesced_fraction_max"],
                 f"{c.get('coalesced_gaps', 0)} of {c.get('token_gaps', 0)} chunk gaps came in the same socket read "
                 f"({100 * frac:.1f} %, limit {100 * th['coalesced_fraction_max']:g} %)")


def _server_side(block: dict | None, module: Any, what: str) -> dict[str, Any]:
    """A flag whose figures the summary holds already (``server_series``' agreement, ``overhead``)."""
    if not block:
        return _flag(False, f"not judged: no {what} in the summary")
    return _flag(*module.flag_detail(block))


def _worker_lost(run: RunRecord) -> dict[str, Any]:
    """A Ray worker (its process or its node) died during the run: its requests are not in the results, so the
    run measured less load than the profile asked for (``distributed.lost_shard`` holds what the driver knew)."""
    lost = [w for w in run.workers if w.get("lost")]
    if not lost:
        return _flag(False, f"{len(run.workers) or 1} worker(s), none lost")
    parts = []
    for w in lost:
        node = f" on node {str(w.get('node_id'))[:12]}" if w.get("node_id") else ""
        scheduled = "a closed loop (no schedule)" if w.get("scheduled") is None else f"{w['scheduled']} scheduled"
        reported = "no report" if w.get("reported_at_s") is None else f"its last report at {w['reported_at_s']:.1f} s"
        parts.append(f"worker {w['id']}{node} lost at {w['lost_at_s']:.1f} s ({w.get('error', '')}): by {reported} "
                     f"it had sent {w['sent']} and had {w['answered']} answered, of {scheduled}; "
                     f"{w['answers_missing']} answers missing from the results")
    return _flag(True, f"{len(lost)} of {len(run.workers)} workers lost: " + "; ".join(parts))


def validity_flags(run: RunRecord, summary: dict, *, cold: bool = True, thresholds: dict | None = None,
                   per_request: list[dict] | None = None) -> dict[str, dict[str, Any]]:
    """Every validity flag of ``run`` (whose ``summary`` is already computed): ``{flag: {"set", "detail"}}``.

    ``thresholds`` overrides entries of ``DEFAULT_THRESHOLDS``; an unknown name raises ValueError.
    ``per_request``: the ``request_metrics`` of ``run.measured``, in order, when the caller has them already.
    """
    th = dict(DEFAULT_THRESHOLDS)
    for k, v in (thresholds or {}).items():
        if k not in DEFAULT_THRESHOLDS:
            raise ValueError(f"unknown validity threshold {k!r}; valid: {', '.join(DEFAULT_THRESHOLDS)}")
        th[k] = v
    reqs = run.measured
    mets = per_request if per_request is not None else [request_metrics(r) for r in reqs]
    ok = [(r, m) for r, m in zip(reqs, mets, strict=True) if r.ok]
    counts = summary["counts"]
    dropped = counts.get("dropped", 0)
    over = oversaturation(run, alpha=th["oversaturation_alpha"], min_points=th["oversaturation_min_points"],
                          ttft_rise_rel=th["oversaturation_ttft_rise_rel"],
                          in_flight_rise=th["oversaturation_in_flight_rise"], per_request=mets)
    return {
        "client_bound": _client_bound(run, th),
        "machine_busy": _machine_busy(run, th),
        "rate_shortfall": _rate_shortfall(summary, th),
        "dropped": _flag(dropped > th["dropped_max"],
                         f"{dropped} of {counts.get('attempted', 0)} requests dropped (never sent); they count in "
                         f"error_rate"),
        "cache_contaminated": _cache(run, summary, [m for _, m in ok], cold, th),
        "token_count_mismatch": _token_mismatch(ok, th),
        "osl_mismatch": _osl(run, ok, th),
        "oversaturated": _flag(over["set"], over["detail"]),
        "insufficient_samples": _insufficient(summary, th),
        "server_restarted": _restarted(summary),
        "high_coalescing": _coalescing(summary, th),
        "worker_lost": _worker_lost(run),
        "server_disagrees": _server_side((summary.get("server_series") or {}).get("agreement"), server_agreement,
                                         "server series"),
        "server_overhead": _server_side(summary.get("overhead"), overhead, "overhead"),
    }


def set_flags(summary: dict, names: tuple[str, ...]) -> list[str]:
    """The flags among ``names`` set in ``summary``, each with its detail."""
    found = summary.get("flags") or {}
    return [f"{name} ({found[name]['detail']})" for name in names if found.get(name, {}).get("set")]


def invalid_reasons(summary: dict, flags: tuple[str, ...] = INVALIDATING) -> list[str]:
    """The set flags of ``summary`` among ``flags`` (those that make a point unusable), with their detail."""
    found = summary.get("flags") or {}
    return [f"{name}: {found[name]['detail']}" for name in flags if found.get(name, {}).get("set")]

