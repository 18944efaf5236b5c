"""Compare a load run with a reference run (the previous comparable run, or a named baseline).

Rules:

- **Same configuration only.** When the configuration keys (``summary["run"]["config_key"]``) differ, or one
  is missing, every verdict is ``incomparable`` and so is the overall verdict: the comparison neither
  passes nor fails. ``config_diff`` names the parts that differ when both runs recorded them.
- **Direction-aware.** Latencies are better lower; throughput, goodput and capacity are better higher.
  Every ``delta`` is normalised so that a positive value is worse: ``current - reference`` for a
  lower-better metric, ``reference - current`` for a higher-better one.
- **Noise-aware.** Each metric has a tolerance ``tol = max(rel * |reference|, abs)``. For latency
  distributions the p50 and the p95 are compared through a bootstrap confidence interval of their
  difference, resampling the per-request ``samples`` of each run (seeded, ``resamples`` >= 1000). Given the
  interval ``[lo, hi]`` of the normalised difference:
  ``regressed`` if ``lo > tol``; ``improved`` if ``hi < -tol``; ``unchanged`` if ``-tol <= lo`` and
  ``hi <= tol``; ``inconclusive`` otherwise (too noisy to say: it warns, it does not fail).
- **Run-level metrics** (throughput, error rate, capacity) have one value per run, so no spread. With
  ``summary["repeats"][name]`` (at least 3 values per run on both sides) their medians are compared like
  a distribution. With one run per side the verdict is ``inconclusive`` unless the change exceeds a wide
  tolerance (``single_run_rel``, 25 % by default), and the result says so in ``note``; two identical values
  are ``unchanged``.
- **Overall**: ``regressed`` if any metric regressed; else ``inconclusive`` if any is; else ``improved`` if
  any improved; else ``unchanged``.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from llamatest.load.analysis.bootstrap import resampled_percentiles

VERDICTS = ("improved", "unchanged", "regressed", "inconclusive", "incomparable")
LOWER, HIGHER = "lower-better", "higher-better"

# Distribution metrics compared by default (p50 and p95 of each); any "*_ms" sample list can be asked for.
DEFAULT_DISTRIBUTIONS = ("ttft_ms", "tpot_ms", "itl_token_ms", "e2e_ms")
STATS = {"p50": 50.0, "p95": 95.0}
MIN_SAMPLES = {"p50": 10, "p95": 20}  # per side; fewer gives "inconclusive"
# Run-level metrics: name -> (where in the summary, direction).
RUN_LEVEL = {
    "request_throughput": (("throughput", "window", "request_throughput"), HIGHER),
    "output_throughput": (("throughput", "window", "output_throughput"), HIGHER),
    "goodput": (("throughput", "window", "goodput"), HIGHER),
    "error_rate": (("throughput", "error_rate"), LOWER),
    "capacity": (("capacity",), HIGHER),
}
DEFAULT_TOLERANCES = {
    "p50": {"rel": 0.05, "abs": 1.0},  # ms
    "p95": {"rel": 0.10, "abs": 2.0},  # ms: tails are noisier
    "request_throughput": {"rel": 0.05, "abs": 0.0},
    "output_throughput": {"rel": 0.05, "abs": 0.0},
    "goodput": {"rel": 0.05, "abs": 0.0},
    "error_rate": {"rel": 0.0, "abs": 0.01},
    "capacity": {"rel": 0.05, "abs": 0.0},
}
SINGLE_RUN_REL = 0.25
SINGLE_RUN_ABS = {"error_rate": 0.05}



def _get(summary: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = summary
    for part in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    if isinstance(value, Mapping):  # e.g. {"capacity": {"value": 3.2, ...}}
        value = value.get("value")
    return value if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) else None


def _values(raw: Any) -> np.ndarray:
    """Finite floats from a sample list; nested lists (per-request ITL lists) are flattened, None dropped."""
    flat: list[float] = []
    stack = [raw]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, int | float) and not isinstance(item, bool) and math.isfinite(item):
            flat.append(float(item))
    return np.asarray(flat, dtype=float)


def _tolerance(tolerances: Mapping[str, Any], name: str, base: str, stat: str | None) -> tuple[float, float]:
    for key in (name, base, stat):
        if key is not None and key in tolerances:
            spec = tolerances[key]
            if isinstance(spec, Mapping):
                return float(spec.get("rel", 0.0)), float(spec.get("abs", 0.0))
            rel, abs_ = spec
            return float(rel), float(abs_)
    return 0.05, 0.0


def _rng(seed: int, name: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


def bootstrap_diff_cis(current: Iterable[float], reference: Iterable[float], qs: list[float], *, seed: int = 0,
                       resamples: int = 2000, confidence: float = 0.95, name: str = "") -> list[tuple[float, float]]:
    """Percentile-bootstrap intervals of ``percentile(current, q) - percentile(reference, q)`` for each ``q``:
    each side resampled with replacement ``resamples`` times (numpy ``linear`` percentiles, drawn by
    ``bootstrap.resampled_percentiles``; seeded by ``seed`` and ``name``)."""
    cur, ref = np.sort(_values(list(current))), np.sort(_values(list(reference)))
    rng = _rng(seed, name)
    alpha = (1 - confidence) / 2
    out = []
    for q in qs:
        diff = resampled_percentiles(cur, q, resamples, rng) - resampled_percentiles(ref, q, resamples, rng)
        lo, hi = np.percentile(diff, [100 * alpha, 100 * (1 - alpha)])
        out.append((float(lo), float(hi)))
    return out


def bootstrap_diff_ci(current: Iterable[float], reference: Iterable[float], q: float, **kw: Any) -> tuple[float, float]:
    """`bootstrap_diff_cis` for one percentile ``q``."""
    return bootstrap_diff_cis(current, reference, [q], **kw)[0]


def _verdict(lo: float, hi: float, tol: float) -> str:
    if lo > tol:
        return "regressed"
    if hi < -tol:
        return "improved"
    if -tol <= lo and hi <= tol:
        return "unchanged"
    return "inconclusive"


def _normalise(direction: str, delta: float) -> float:
    return delta if direction == LOWER else 0.0 - delta  # never -0.0


def _entry(current: float | None, reference: float | None, direction: str, tol: float, **rest: Any) -> dict:
    delta = None if current is None or reference is None else _normalise(direction, current - reference)
    rel = None if delta is None or not reference else delta / abs(reference)
    return {"verdict": "inconclusive", "current": current, "reference": reference, "delta": delta,
            "delta_rel": rel, "ci": None, "tol": tol, "direction": direction, "basis": "", "note": None, **rest}


def _compare_distribution(name: str, cur_raw: Any, ref_raw: Any, tolerances: Mapping[str, Any], *,
                          comparable: bool, seed: int, resamples: int, confidence: float) -> dict[str, dict]:
    """``{"<name>.p50": entry, "<name>.p95": entry}``."""
    cur, ref = _values(cur_raw), _values(ref_raw)
    entries, due = {}, []
    for stat, q in STATS.items():
        cur_v = float(np.percentile(cur, q)) if len(cur) else None
        ref_v = float(np.percentile(ref, q)) if len(ref) else None
        rel, abs_ = _tolerance(tolerances, f"{name}.{stat}", name, stat)
        tol = max(rel * abs(ref_v or 0.0), abs_)
        entry = _entry(cur_v, ref_v, LOWER, tol, n=[len(cur), len(ref)],
                       basis=f"bootstrap CI of the {stat} difference, {len(cur)} vs {len(ref)} samples")
        entries[f"{name}.{stat}"] = entry
        need = MIN_SAMPLES[stat]
        if not comparable:
            entry["verdict"] = "incomparable"
        elif len(cur) < need or len(ref) < need:
            entry["note"] = (f"{stat} needs n >= {need} on both sides, have {len(cur)} (current) and {len(ref)} "
                             "(reference)")
        else:
            due.append((stat, q, entry))
    if due:
        cis = bootstrap_diff_cis(cur, ref, [q for _, q, _ in due], seed=seed, resamples=resamples,
                                 confidence=confidence, name=name)
        for (_stat, _q, entry), (lo, hi) in zip(due, cis, strict=True):
            entry["ci"] = [lo, hi]  # lower-better: already "positive = worse"
            entry["verdict"] = _verdict(lo, hi, entry["tol"])
    return entries


def _repeats(summary: Mapping[str, Any], name: str, path: tuple[str, ...]) -> np.ndarray:
    repeats = summary.get("repeats") or {}
    raw = repeats.get(name, repeats.get(".".join(path)))
    return _values(raw) if raw is not None else np.asarray([], dtype=float)


def _compare_run_level(name: str, current: Mapping[str, Any], reference: Mapping[str, Any],
                       tolerances: Mapping[str, Any], *, comparable: bool, seed: int, resamples: int,
                       confidence: float, single_run_rel: float) -> dict | None:
    path, direction = RUN_LEVEL[name]
    cur_rep, ref_rep = _repeats(current, name, path), _repeats(reference, name, path)
    repeated = len(cur_rep) >= 3 and len(ref_rep) >= 3
    cur_v = float(np.median(cur_rep)) if repeated else _get(current, path)
    ref_v = float(np.median(ref_rep)) if repeated else _get(reference, path)
    if cur_v is None or ref_v is None:
        return None
    rel, abs_ = _tolerance(tolerances, name, name, None)
    tol = max(rel * abs(ref_v), abs_)
    if repeated:
        entry = _entry(cur_v, ref_v, direction, tol, n=[len(cur_rep), len(ref_rep)],
                       basis=f"bootstrap CI of the difference of medians, {len(cur_rep)} vs {len(ref_rep)} repeats")
        if not comparable:
            entry["verdict"] = "incomparable"
            return entry
        lo, hi = bootstrap_diff_ci(cur_rep, ref_rep, 50.0, seed=seed, resamples=resamples, confidence=confidence,
                                   name=name)
        lo, hi = sorted((_normalise(direction, lo), _normalise(direction, hi)))
        entry["ci"] = [lo, hi]
        entry["verdict"] = _verdict(lo, hi, tol)
        return entry
    wide = max(single_run_rel * abs(ref_v), SINGLE_RUN_ABS.get(name, abs_))
    entry = _entry(cur_v, ref_v, direction, wide, n=[1, 1], basis="one run per side")
    if not comparable:
        entry["verdict"] = "incomparable"
        return entry
    delta = entry["delta"]
    if delta > wide:
        entry["verdict"] = "regressed"
    elif delta < -wide:
        entry["verdict"] = "improved"
    elif cur_v == ref_v:
        entry["verdict"] = "unchanged"
    entry["note"] = (f"one run per side gives no spread: only a change beyond the wide tolerance "
                     f"(±{single_run_rel:.0%}) is called; give >= 3 repeats for a real verdict")
    return entry


def _flags(summary: Mapping[str, Any], side: str) -> list[str]:
    out = []
    for flag, value in sorted((summary.get("flags") or {}).items()):
        if isinstance(value, Mapping) and value.get("set"):
            detail = value.get("detail")
            out.append(f"{side}: {flag}" + (f" ({detail})" if detail else ""))
    return out


def _config_diff(current: Mapping[str, Any], reference: Mapping[str, Any]) -> list[str]:
    cur = (current.get("run") or {}).get("config") or {}
    ref = (reference.get("run") or {}).get("config") or {}
    if not cur or not ref:
        return []
    return sorted(k for k in set(cur) | set(ref) if cur.get(k) != ref.get(k))


def overall_verdict(verdicts: Iterable[str]) -> str:
    """regressed > inconclusive > improved > unchanged (incomparable when any metric is)."""
    seen = set(verdicts)
    for verdict in ("incomparable", "regressed", "inconclusive", "improved"):
        if verdict in seen:
            return verdict
    return "unchanged"


def compare(current: Mapping[str, Any], reference: Mapping[str, Any], *,
            tolerances: Mapping[str, Any] | None = None, metrics: Iterable[str] | None = None, seed: int = 0,
            resamples: int = 2000, confidence: float = 0.95, single_run_rel: float = SINGLE_RUN_REL) -> dict:
    """Compare two summaries (see the module documentation for the rules).

    ``tolerances`` override the defaults (``DEFAULT_TOLERANCES``) by exact result name (``"ttft_ms.p95"``),
    metric (``"ttft_ms"``) or statistic (``"p95"``), each ``{"rel": 0.05, "abs": 1.0}`` or ``(rel, abs)``.
    ``metrics`` picks what to compare: distribution names (``"ttft_ms"``: its p50 and p95) and run-level
    names (``RUN_LEVEL``); default: ``DEFAULT_DISTRIBUTIONS`` and every run-level metric both runs have.

    Returns ``{"verdict", "config_key_match", "config_diff", "metrics": {name: {"verdict", "current",
    "reference", "delta", "delta_rel", "ci", "tol", "direction", "basis", "note", "n"}}, "skipped": {name:
    reason}, "counts": {verdict: n}, "warnings": [validity flags set on either side], "note"}``.
    """
    tolerances = {**DEFAULT_TOLERANCES, **(tolerances or {})}
    if resamples < 1000:
        raise ValueError(f"resamples must be >= 1000 for a stable 95 % interval; got {resamples}")
    cur_key = (current.get("run") or {}).get("config_key")
    ref_key = (reference.get("run") or {}).get("config_key")
    comparable = bool(cur_key) and cur_key == ref_key
    wanted = list(metrics) if metrics is not None else [*DEFAULT_DISTRIBUTIONS, *RUN_LEVEL]
    cur_samples, ref_samples = current.get("samples") or {}, reference.get("samples") or {}
    results: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    for name in wanted:
        if name in RUN_LEVEL:
            entry = _compare_run_level(name, current, reference, tolerances, comparable=comparable, seed=seed,
                                       resamples=resamples, confidence=confidence, single_run_rel=single_run_rel)
            if entry is None:
                skipped[name] = "not in both runs"
            else:
                results[name] = entry
            continue
        missing = [side for side, s in (("current", cur_samples), ("reference", ref_samples))
                   if not len(_values(s.get(name)))]
        if missing:
            skipped[name] = "no samples in " + " and ".join(missing)
            continue
        results.update(_compare_distribution(name, cur_samples[name], ref_samples[name], tolerances,
                                             comparable=comparable, seed=seed, resamples=resamples,
                                             confidence=confidence))
    if comparable:
        note = None
    elif not cur_key or not ref_key:
        note = "a run has no configuration key: refusing to judge (every verdict is incomparable)"
    else:
        diff = _config_diff(current, reference)
        note = ("configuration keys differ" + (f" ({', '.join(diff)})" if diff else "")
                + ": refusing to judge (every verdict is incomparable)")
    verdicts = [e["verdict"] for e in results.values()]
    overall = "incomparable" if not comparable else overall_verdict(verdicts)
    return {"verdict": overall, "config_key_match": comparable, "config_diff": _config_diff(current, reference),
            "metrics": results, "skipped": skipped, "counts": dict(Counter(verdicts)),
            "warnings": _flags(current, "current") + _flags(reference, "reference"), "note": note}
