"""Repeated trials: one profile run N times, its headline figures with a between-trial interval, and verdicts
that use the spread between trials rather than only the noise inside one run.

Why: the within-run bootstrap of ``compare`` covers the sampling noise of one run's requests, not the drift
between runs on a shared machine (a rerun of the same build on ``tiny`` was called ``regressed`` by 3 ms).
With two or more trials on a side, each compared figure (the p50 and p95 of each latency, the throughputs) is
judged from its per-trial values: a Welch t interval of the difference of the trial means when both sides have
two or more trials; when one side has a single run, a prediction interval from the other side's spread.

``summary["trials"]`` = ``{"n", "server_restarted", "restart", "values": {name: [per trial]}, "intervals":
{name: {"mean", "lo", "hi", "min", "max"}}}``; the rest of the summary (metrics, throughput, flags, samples) is
the last trial's, and each trial's own files are in ``trial-<i>/``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from llamatest.load.analysis import compare as _compare

CONFIDENCE = 0.95
# Compared figure (compare's result name) -> (where in a summary, direction).
FIGURES: dict[str, tuple[tuple[str, ...], str]] = {
    **{f"{m}.{s}": (("metrics", m, s), _compare.LOWER) for m in _compare.DEFAULT_DISTRIBUTIONS
       for s in _compare.STATS},
    "request_throughput": (("throughput", "window", "request_throughput"), _compare.HIGHER),
    "output_throughput": (("throughput", "window", "output_throughput"), _compare.HIGHER),
}


def _value(summary: Mapping[str, Any], path: tuple[str, ...]) -> float | None:
    value: Any = summary
    for part in path:
        value = value.get(part) if isinstance(value, Mapping) else None
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def interval(values: list[float]) -> dict[str, float | None]:
    """Mean and its 95 % t interval over trials (None bounds for one trial), with min and max."""
    x = np.asarray(values, dtype=float)
    out: dict[str, float | None] = {"mean": float(x.mean()), "lo": None, "hi": None, "min": float(x.min()),
                                    "max": float(x.max()), "n": len(x)}
    if len(x) >= 2:
        from scipy import stats  # repeated runs only: scipy.stats takes 0.85 s to import (every load suite's set-up)

        sem = float(stats.sem(x))
        lo, hi = (out["mean"], out["mean"]) if sem == 0 else stats.t.interval(CONFIDENCE, len(x) - 1,
                                                                             loc=x.mean(), scale=sem)
        out["lo"], out["hi"] = float(lo), float(hi)
    return out


def trials_block(summaries: list[Mapping[str, Any]], *, restart: str | None) -> dict[str, Any]:
    """The ``trials`` block of a repeated run from its trials' summaries."""
    values: dict[str, list[float]] = {}
    for name, (path, _) in FIGURES.items():
        got = [_value(s, path) for s in summaries]
        if all(v is not None for v in got):
            values[name] = got
    return {"n": len(summaries), "server_restarted": restart is not None, "restart": restart,
            "values": values, "intervals": {name: interval(v) for name, v in values.items()}}


def describe(block: Mapping[str, Any]) -> str:
    """One line: ``3 trials, server restarted between trials (Restart Server)`` or ``..., not restarted``."""
    head = f"{block['n']} trial{'s' if block['n'] != 1 else ''}"
    if block.get("server_restarted"):
        return f"{head}, server restarted between trials ({block.get('restart')})"
    return f"{head}, server not restarted between trials"


def _per_trial(summary: Mapping[str, Any], name: str) -> list[float]:
    block = summary.get("trials") or {}
    if name in (block.get("values") or {}):
        return [float(v) for v in block["values"][name]]
    single = _value(summary, FIGURES[name][0])
    return [single] if single is not None else []


def difference_interval(current: list[float], reference: list[float]) -> tuple[float, float]:
    """95 % interval of mean(current) - mean(reference) from the spread between trials (see the module)."""
    from scipy import stats  # see interval

    cur, ref = np.asarray(current, dtype=float), np.asarray(reference, dtype=float)
    diff = float(cur.mean() - ref.mean())
    if len(cur) >= 2 and len(ref) >= 2:
        if cur.std() == 0 and ref.std() == 0:
            return diff, diff
        ci = stats.ttest_ind(cur, ref, equal_var=False).confidence_interval(CONFIDENCE)
        return float(ci.low), float(ci.high)
    spread = cur if len(cur) >= 2 else ref
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, len(spread) - 1) * spread.std(ddof=1) * math.sqrt(1 + 1 / len(spread))
    return diff - float(half), diff + float(half)


def compare(current: Mapping[str, Any], reference: Mapping[str, Any], **options: Any) -> dict:
    """``compare.compare``, with each figure judged from the between-trial spread when a side has two or more
    trials (its entry's ``basis`` says which)."""
    result = _compare.compare(current, reference, **options)
    if not result["config_key_match"]:
        return result
    for name, (_, direction) in FIGURES.items():
        entry = result["metrics"].get(name)
        cur, ref = _per_trial(current, name), _per_trial(reference, name)
        if entry is None or not cur or not ref or max(len(cur), len(ref)) < 2:
            continue
        lo, hi = sorted(_compare._normalise(direction, b) for b in difference_interval(cur, ref))
        entry.update({"current": float(np.mean(cur)), "reference": float(np.mean(ref)), "ci": [lo, hi],
                      "n": [len(cur), len(ref)], "note": None, "verdict": _compare._verdict(lo, hi, entry["tol"]),
                      "basis": f"between-trial interval of the difference of means, {len(cur)} vs {len(ref)} trials"})
    verdicts = [e["verdict"] for e in result["metrics"].values()]
    result["verdict"] = _compare.overall_verdict(verdicts)
    result["counts"] = {v: verdicts.count(v) for v in set(verdicts)}
    return result


def run_trials(run_one: Callable[[int], Any], n: int, restart: Callable[[], None] | None = None) -> list[Any]:
    """``[run_one(1), ..., run_one(n)]``, calling ``restart()`` between trials when given."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"repeats must be an int >= 1 (trials of the profile); got {n!r}")
    out = []
    for i in range(1, n + 1):
        if i > 1 and restart is not None:
            restart()
        out.append(run_one(i))
    return out
