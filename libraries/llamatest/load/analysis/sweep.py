"""Sweeps, capacity under SLO and SLO checks: orchestration over an injected ``run_point``.

``run_point(profile) -> summary`` runs one profile and returns its summary (``summary.summarize``); it is the only
thing that touches a server, so everything here is pure and testable with a synthetic ``run_point``.

- ``sweep``: synchronous (one request at a time), then maximum throughput (a closed loop of ``users``), then ``k``
  open-loop rates between the two. It stops at the first oversaturated point; the later rates are listed as
  not run and invalid.
- ``capacity_under_slo``: bisection on the rate (or the number of users) for the highest load whose summary meets
  every SLO limit and whose numbers are valid.
- ``slo_check``: the list of violated limits of one summary (empty when every limit holds). A limit whose metric
  is missing (too few samples, no successful request) is a violation that says why, never a silent pass.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from llamatest.load.analysis.metrics import SUMMARY_METRICS
from llamatest.load.analysis.validity import INVALIDATING, invalid_reasons

RunPoint = Callable[[Any], dict]

SLO_STATS = ("mean", "min", "max", "p50", "p90", "p95", "p99", "p99_9")
# Latency metrics an SLO can name: <metric>_<stat>_ms reads summary["metrics"]["<metric>_ms"][stat].
SLO_METRICS = tuple(name[:-3] for name in SUMMARY_METRICS if name.endswith("_ms"))
# Run-level limits: name -> (path in the summary, "max" (value <= limit) or "min" (value >= limit), unit).
RUN_LIMITS = {
    "error_rate_max": (("throughput", "error_rate"), "max", ""),
    "goodput_min": (("throughput", "window", "goodput"), "min", " req/s"),
    "goodput_ratio_min": (("throughput", "window", "goodput_ratio"), "min", ""),
    "request_throughput_min": (("throughput", "window", "request_throughput"), "min", " req/s"),
    "output_throughput_min": (("throughput", "window", "output_throughput"), "min", " tok/s"),
}


def _valid_names() -> str:
    return (f"<metric>_<stat>_ms with metric in ({', '.join(SLO_METRICS)}) and stat in ({', '.join(SLO_STATS)}), "
            f"or {', '.join(RUN_LIMITS)}")


def parse_slo_key(key: str) -> tuple[str, str]:
    """``"ttft_p95_ms"`` -> ``("ttft_ms", "p95")``; a run-level name -> (name, ""); unknown names raise ValueError."""
    if key in RUN_LIMITS:
        return key, ""
    if key.endswith("_ms"):
        stem = key[:-3]
        for stat in sorted(SLO_STATS, key=len, reverse=True):
            if stem.endswith("_" + stat) and stem[: -len(stat) - 1] in SLO_METRICS:
                return stem[: -len(stat) - 1] + "_ms", stat
    raise ValueError(f"unknown SLO {key!r}; valid: {_valid_names()}")


def _number(key: str, value: Any) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"SLO {key} must be a number; got {value!r}") from None
    if math.isnan(out):
        raise ValueError(f"SLO {key} must be a number; got {value!r}")
    return out


def _dig(d: dict, path: tuple[str, ...]):
    for part in path:
        if not isinstance(d, dict):
            return None
        d = d.get(part)
    return d


def slo_check(summary: dict, **slo: Any) -> list[str]:
    """Violations of the limits ``slo`` (e.g. ``ttft_p95_ms=500, tpot_p50_ms=50, error_rate_max=0.01``) in
    ``summary``: one sentence per violated or uncheckable limit, empty when all hold. Values may be strings."""
    limits = {key: (parse_slo_key(key), _number(key, value)) for key, value in slo.items()}
    out = []
    for key, ((metric, stat), limit) in limits.items():
        if key in RUN_LIMITS:
            path, sense, unit = RUN_LIMITS[key]
            value = _dig(summary, path)
            label = key[: -len("_" + sense)]
            if value is None:
                out.append(f"{label}: no value in the summary, limit {limit:g}{unit} cannot be checked")
            elif sense == "max" and value > limit:
                out.append(f"{label} {value:.4g}{unit} > limit {limit:g}{unit}")
            elif sense == "min" and value < limit:
                out.append(f"{label} {value:.4g}{unit} < limit {limit:g}{unit}")
            continue
        label = f"{metric[:-3]} {stat}"
        dist = (summary.get("metrics") or {}).get(metric)
        if dist is None:
            out.append(f"{label}: metric missing from the summary, limit {limit:g} ms cannot be checked")
            continue
        value = dist.get(stat)
        if value is None:
            why = (dist.get("missing") or {}).get(stat) or f"no samples (n={dist.get('n', 0)})"
            out.append(f"{label}: no value ({why}), limit {limit:g} ms cannot be checked")
        elif value > limit:
            out.append(f"{label} {value:.1f} ms > limit {limit:g} ms (n={dist.get('n')})")
    return out


def _variant(base: Any, **changes: Any) -> Any:
    """``base`` with ``changes``; a ramp is cleared since only kind "ramp" takes one."""
    if "ramp" in {f.name for f in dataclasses.fields(base)} and changes.get("kind") != "ramp":
        changes.setdefault("ramp", ())
    return dataclasses.replace(base, **changes)


def _profile_dict(p: Any) -> dict | None:
    return p.as_dict() if hasattr(p, "as_dict") else None


def _invalid(summary: dict | None) -> list[str]:
    return ["no summary"] if summary is None else invalid_reasons(summary, INVALIDATING)


def _rate_of(summary: dict) -> float:
    """Completed requests per second in the window (the load a closed-loop point actually carried)."""
    return float(_dig(summary, ("throughput", "window", "request_throughput")) or 0.0)


def _point(load: float, kind: str, profile: Any, summary: dict | None) -> dict[str, Any]:
    reasons = _invalid(summary)
    return {"load": float(load), "kind": kind, "profile": _profile_dict(profile), "summary": summary,
            "valid": not reasons, "invalid_because": reasons}


def sweep(run_point: RunPoint, base: Any, *, k: int = 5, spacing: str = "linear", users: int | None = None,
          arrival: str | None = None) -> dict[str, Any]:
    """Synchronous, then maximum throughput (closed loop of ``users``, default ``base.users``), then ``k`` rates
    strictly between the two (``spacing`` "linear" or "geometric"; arrivals ``arrival`` or ``base.arrival``).

    Returns ``{"points": [{"load", "kind", "profile", "summary", "valid", "invalid_because"}], "sync_rate",
    "max_rate", "rates", "stopped_at", "spacing"}``; points are in run order, rate points' ``load`` is the target
    rate, the other points' ``load`` the throughput they achieved. The sweep stops at the first oversaturated
    rate; later rates are listed with ``summary`` None, ``valid`` False and the reason.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0; got {k}")
    if spacing not in ("linear", "geometric"):
        raise ValueError(f"spacing must be 'linear' or 'geometric'; got {spacing!r}")
    n_users = int(users if users is not None else max(2, getattr(base, "users", 1)))
    if n_users < 1:
        raise ValueError(f"users must be >= 1; got {n_users}")
    sync_p = _variant(base, kind="synchronous", users=1, rate=None)
    sync_s = run_point(sync_p)
    points = [_point(_rate_of(sync_s), "synchronous", sync_p, sync_s)]
    max_p = _variant(base, kind="concurrency", users=n_users, rate=None)
    max_s = run_point(max_p)
    points.append(_point(_rate_of(max_s), "concurrency", max_p, max_s))
    sync_rate, max_rate = points[0]["load"], points[1]["load"]
    rates: list[float] = []
    note = None
    if k and max_rate > sync_rate > 0:
        grid = (np.linspace(sync_rate, max_rate, k + 2) if spacing == "linear"
                else np.geomspace(sync_rate, max_rate, k + 2))
        rates = [float(r) for r in grid[1:-1]]
    elif k:
        note = (f"no rates between: maximum throughput {max_rate:.3f}/s is not above the synchronous "
                f"{sync_rate:.3f}/s")
    stopped_at = None
    for rate in rates:
        p = _variant(base, kind="rate", rate=rate, arrival=arrival or getattr(base, "arrival", "constant"))
        if stopped_at is not None:
            pt = _point(rate, "rate", p, None)
            pt["invalid_because"] = [f"not run: oversaturated at {stopped_at:.3f}/s"]
            points.append(pt)
            continue
        s = run_point(p)
        points.append(_point(rate, "rate", p, s))
        if ((s.get("flags") or {}).get("oversaturated") or {}).get("set"):
            stopped_at = rate
    return {"points": points, "sync_rate": sync_rate, "max_rate": max_rate, "rates": rates, "stopped_at": stopped_at,
            "spacing": spacing, "note": note}


def capacity_under_slo(run_point: RunPoint, base: Any, slo: dict[str, Any], *, lo: float, hi: float,
                       max_iter: int = 6, axis: str = "rate", rel_tol: float = 0.02,
                       require_valid: bool = True) -> dict[str, Any]:
    """Highest load in [lo, hi] meeting every limit of ``slo`` (``slo_check`` names), by bisection.

    ``axis`` "rate" bisects the open-loop rate (``kind="rate"``), "users" the closed-loop users (integers,
    ``kind="concurrency"``). A point meets the SLO when ``slo_check`` finds no violation and (``require_valid``)
    no invalidating flag is set. Returns ``{"capacity", "axis", "bracket": [highest meeting, lowest failing],
    "points": [{"load", "meets", "violations", "summary"}], "iterations", "slo", "note"}``; ``capacity`` is None
    when even ``lo`` fails, and the bracket's upper end None when ``hi`` still meets the SLO.
    """
    if axis not in ("rate", "users"):
        raise ValueError(f"axis must be 'rate' or 'users'; got {axis!r}")
    if not lo > 0 or not hi > lo:
        raise ValueError(f"need 0 < lo < hi; got lo={lo}, hi={hi}")
    for key in slo:
        parse_slo_key(key)
    if axis == "users":
        lo, hi = int(math.ceil(lo)), int(math.floor(hi))
    points: list[dict[str, Any]] = []

    def attempt(load) -> bool:
        if axis == "rate":
            p = _variant(base, kind="rate", rate=float(load))
        else:
            p = _variant(base, kind="concurrency", users=int(load), rate=None)
        s = run_point(p)
        violations = slo_check(s, **slo)
        if require_valid:
            violations += [f"invalid point: {r}" for r in _invalid(s)]
        points.append({"load": load, "meets": not violations, "violations": violations, "summary": s,
                       "profile": _profile_dict(p)})
        return not violations

    result = {"capacity": None, "axis": axis, "bracket": [None, lo], "points": points, "iterations": 0,
              "slo": dict(slo), "note": None}
    if not attempt(lo):
        result["note"] = f"the lowest load {lo} already fails the SLO"
        return result
    if attempt(hi):
        result.update(capacity=hi, bracket=[hi, None], note=f"the highest load {hi} still meets the SLO")
        return result
    good, bad = lo, hi
    iterations = 0
    while iterations < max_iter:
        if axis == "users":
            if bad - good <= 1:
                break
            mid = (good + bad) // 2
        else:
            if (bad - good) <= rel_tol * good:
                break
            mid = (good + bad) / 2.0
        iterations += 1
        if attempt(mid):
            good = mid
        else:
            bad = mid
    result.update(capacity=good, bracket=[good, bad], iterations=iterations)
    return result
