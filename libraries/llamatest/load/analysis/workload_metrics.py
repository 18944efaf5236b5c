"""What a workload adds to a run's summary (``summary["workload"]``): prompt-cache reuse, per turn of a
multi-turn run, and per route of a mixed one. Derived from ``metrics.measure`` like every other number.

- ``cache``: prompt tokens, cached prompt tokens (``timings.cache_n``, else ``usage.prompt_tokens_details``),
  their ratio and the requests that reused any.
- ``turns`` (multi-turn runs only): per turn, the requests, TTFT p50/p95, mean prompt and cached tokens, the
  cached ratio, and one ``[turn, prompt tokens, cached tokens, ttft ms]`` point per request (TTFT against
  prompt length).
- ``routes``: per route, requests, errors, latency (``e2e_closed``, the whole answer) p50/p95, TTFT
  p50/p95 on streamed routes only, and throughput over the measurement window: requests/s, output tokens/s
  (streamed) or inputs/s (embeddings, rerank).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from llamatest.load.analysis.metrics import window_of
from llamatest.load.engine.record import RequestRecord, RunRecord
from llamatest.load.workloads import routes


def _pct(values: list[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def cache_block(pairs: list[tuple[RequestRecord, dict]]) -> dict[str, Any]:
    counted = [m for _, m in pairs if m["n_in"] is not None]
    prompt = sum(m["n_in"] for m in counted)
    cached = sum(m["n_cached"] or 0 for m in counted)
    return {"requests": len(counted), "prompt_tokens": prompt, "cached_tokens": cached,
            "cached_ratio": _ratio(cached, prompt),
            "requests_with_cache_hit": sum(1 for m in counted if (m["n_cached"] or 0) > 0)}


def turns_block(pairs: list[tuple[RequestRecord, dict]]) -> list[dict[str, Any]] | None:
    by_turn: dict[int, list[dict]] = defaultdict(list)
    for r, m in pairs:
        if r.turn is not None:
            by_turn[r.turn].append(m)
    if not by_turn:
        return None
    out = []
    for turn in sorted(by_turn):
        mets = by_turn[turn]
        ttft = [m["ttft"] for m in mets if m["ttft"] is not None]
        cache = cache_block([(None, m) for m in mets])
        out.append({"turn": turn, "requests": len(mets), "ttft_ms_p50": _pct(ttft, 50), "ttft_ms_p95": _pct(ttft, 95),
                    "prompt_tokens_mean": _ratio(cache["prompt_tokens"], cache["requests"]),
                    "cached_tokens_mean": _ratio(cache["cached_tokens"], cache["requests"]),
                    "cached_ratio": cache["cached_ratio"],
                    "points": [[turn, m["n_in"], m["n_cached"], m["ttft"]] for m in mets]})
    return out


def routes_block(reqs: list[RequestRecord], measured: dict, window: tuple[float, float]) -> dict[str, Any]:
    w0, w1 = window
    span = w1 - w0
    out: dict[str, Any] = {}
    for route in sorted({r.route for r in reqs}):
        mine = [r for r in reqs if r.route == route]
        ok = [(r, measured[r.index][0]) for r in mine if r.ok]
        in_window = [(r, m) for r, m in ok if w0 <= r.t_dispatched <= w1]
        latency = [m["e2e_closed"] for _, m in ok if m["e2e_closed"] is not None]
        block = {"attempted": len(mine), "succeeded": len(ok),
                 "errors_by_class": dict(Counter(r.error or "unfinished" for r in mine if not r.ok)),
                 "latency_ms_p50": _pct(latency, 50), "latency_ms_p95": _pct(latency, 95),
                 "requests_per_s": _ratio(len(in_window), span)}
        if routes.streamed(route):
            ttft = [m["ttft"] for _, m in ok if m["ttft"] is not None]
            block.update({"ttft_ms_p50": _pct(ttft, 50), "ttft_ms_p95": _pct(ttft, 95),
                          "output_tokens_per_s": _ratio(sum(m["n_out"] or 0 for _, m in in_window), span)})
        else:
            block["inputs_per_s"] = _ratio(sum(r.n_inputs or 0 for r, _ in in_window), span)
        out[route] = block
    return out


def workload_block(run: RunRecord, measured: dict) -> dict[str, Any]:
    """``summary["workload"]`` of ``run``; ``measured`` is ``metrics.measure(run)``."""
    reqs = run.measured
    pairs = [(r, measured[r.index][0]) for r in reqs if r.ok]
    return {"cache": cache_block(pairs), "turns": turns_block(pairs),
            "routes": routes_block(reqs, measured, window_of(run))}
