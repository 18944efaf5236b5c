"""Every load metric, derived from the per-request event logs of ``record.py`` and nothing else.

- ``request_metrics(r)``: the latencies and token counts of one request, in milliseconds, ``None`` when the
  quantity does not exist for that request (no TPOT for a single output token, no TTFT without a token).
- ``distribution(values)``: n, mean, std, min, max and the p50/p90/p95/p99/p99.9 percentiles (numpy
  ``linear`` method) with seeded bootstrap 95 % confidence intervals. A percentile that needs more samples
  than there are is ``None``, with the reason under ``missing``.
- the pieces of the run's summary (``summary.summarize``, which adds the validity flags): throughput in two
  windows, goodput, concurrency, a 1-s time series, server telemetry.
- ``compat(run, tool)``: the TTFT/ITL/TPOT/E2E that vLLM, guidellm or genai-perf would report for the same
  requests, to explain a difference with another tool.

Conventions. A *token event* is a content, reasoning or tool-call event with text (``LoadEvent.is_token``):
role, progress, ping, finish, usage and done events are never tokens and never the first token. Output token
counts come from the server when it says (``usage.completion_tokens``, then ``timings.predicted_n``, then the
native per-chunk ``tokens``), and only as a last resort from the number of token events (source
``"chunks"``: an estimate, wrong when a chunk carries several tokens).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from llamatest.load.analysis.bootstrap import resampled_percentiles
from llamatest.load.engine.record import RequestRecord, RunRecord

SCHEMA = "llamatest.load.summary/1"
PERCENTILES = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0, "p99_9": 99.9}
# Fewest samples a percentile may be computed from; below it the percentile is None (reported as missing).
MIN_SAMPLES = {"p50": 1, "p90": 1, "p95": 1, "p99": 100, "p99_9": 1000}
CI_PERCENTILES = ("p50", "p95", "p99")
CI_LEVEL = 0.95

# Per-request duration metrics, in ms (request_metrics keys without the "_ms" the summary adds).
DURATION_METRICS = ("ttft", "tpot", "itl_chunk", "itl_token", "e2e", "e2e_closed", "e2e_from_schedule",
                    "ttft_from_schedule", "client_queue", "ttfb", "ttfe", "ttfo", "max_stall", "server_prompt",
                    "server_predicted", "overhead_ttft", "overhead_decode")
# Summary "metrics" entries: name in the summary -> request_metrics key.
SUMMARY_METRICS = {f"{m}_ms": (f"{m}_ms" if m.startswith("server_") else m) for m in DURATION_METRICS}
SUMMARY_METRICS.update({"n_out": "n_out", "n_in": "n_in", "n_cached": "n_cached",
                        "tokens_per_chunk": "tokens_per_chunk", "server_decode_tps": "server_decode_tps"})
LIST_METRICS = frozenset({"itl_chunk", "itl_token"})

# Telemetry names that are counters (their delta over the run is reported), after normalisation.
_COUNTER_SUFFIX = "_total"
_START_TIME_KEYS = ("process_start_time_unix", "process_start_time", "process_start_time_seconds")

DEFINITIONS = {
    "ttfb_ms": "response headers received - request dispatched",
    "ttfe_ms": "first SSE event of any kind (role, progress, ping included) - request dispatched; diagnostic",
    "ttft_ms": "first token-bearing event (content, reasoning or tool-call text) - request dispatched; role, "
               "progress, ping, finish, usage and [DONE] events never count",
    "ttfo_ms": "first visible output (content or tool-call text, not reasoning) - request dispatched",
    "tpot_ms": "(last token event - first token event) / (n_out - 1); undefined (null, never 0) when n_out <= 1",
    "itl_chunk_ms": "gaps between consecutive token-bearing events, one sample per chunk (vLLM's ITL); gaps to "
                    "events that arrived in the same socket read are counted in coalesced_fraction",
    "itl_token_ms": "for each token event after the first carrying m tokens, m samples of gap / m (per-chunk "
                    "counts from the server; estimated from the characters when the server gives none)",
    "max_stall_ms": "longest gap between consecutive token-bearing events of a request",
    "e2e_ms": "last token event - request dispatched (vLLM's end-to-end latency)",
    "e2e_closed_ms": "stream closed (or [DONE]) - request dispatched; includes the finish, usage and [DONE] tail",
    "e2e_from_schedule_ms": "stream closed - time the profile scheduled the request; includes client queueing",
    "ttft_from_schedule_ms": "first token event - time the profile scheduled the request",
    "client_queue_ms": "request dispatched - request scheduled: time lost inside the load client",
    "server_prompt_ms": "server timings.prompt_ms: prompt processing time reported by llama-server",
    "server_predicted_ms": "server timings.predicted_ms: generation time reported by llama-server",
    "server_decode_tps": "server timings.predicted_per_second (excludes the first token)",
    "overhead_ttft_ms": "ttft - server prompt_ms: server queueing, HTTP and client time before the first token",
    "overhead_decode_ms": "tpot - the server's timings.predicted_per_token_ms (predicted_ms / predicted_n when it "
                          "sends none): per-token streaming and transport overhead",
    "n_out": "output tokens: usage.completion_tokens, else timings.predicted_n, else the sum of native per-chunk "
             "token counts, else the number of token events (source 'chunks', an estimate)",
    "n_in": "prompt tokens: usage.prompt_tokens, else timings.prompt_n + timings.cache_n",
    "n_cached": "prompt tokens reused from the server's cache: timings.cache_n, else "
                "usage.prompt_tokens_details.cached_tokens",
    "tokens_per_chunk": "n_out / number of token events",
    "percentiles": "numpy 'linear' method; p99 needs n >= 100 and p99.9 n >= 1000, else null with the reason; "
                   "95 % CI by bootstrap over per-request values (seeded)",
    "std": "population standard deviation (numpy default, ddof=0)",
    "window": "throughput over the measurement window: requests dispatched inside it, divided by its length",
    "wall": "throughput from the first dispatch to the last completion, tail included (vLLM style)",
    "request_throughput": "successful requests / duration",
    "output_throughput": "sum of n_out of successful requests / duration",
    "total_token_throughput": "sum of n_in + n_out of successful requests / duration",
    "goodput": "successful requests meeting every per-request SLO / duration (DistServe); an undefined tpot "
               "(n_out <= 1) counts as met; goodput_ratio = good / successful",
    "peak_output_tps": "highest 1-s bucket of output tokens, token-weighted (a chunk of m tokens adds m)",
    "concurrency_mean": "time-weighted mean number of requests in flight, first dispatch to last completion",
    "peak_concurrency": "most requests in flight at one instant (sweep line over dispatch and close times)",
    "achieved_rate": "requests dispatched inside the window / window length; target_rate is the profile's rate, "
                     "offered_rate the requests the schedule placed inside the window / window length",
    "error_rate": "(errored + dropped) / attempted; a dropped request (never sent) counts as attempted",
    "coalesced_fraction": "share of chunk gaps whose later event came in the same socket read (a zero gap "
                          "that says nothing about the server)",
}


# --------------------------------------------------------------------------------------------- per request

def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000.0


def _diff_ms(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else (a - b) * 1000.0


def _last(events, attr: str, key: str):
    """The last event whose dict attribute ``attr`` holds ``key``; that dict, or None."""
    for e in reversed(events):
        d = getattr(e, attr)
        if isinstance(d, dict) and d.get(key) is not None:
            return d
    return None


def token_counts(r: RequestRecord, tok: list | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """Every count the server gave of ``r``'s output and prompt tokens, by source, in order of preference:
    output from ``usage``, ``timings.predicted_n`` and native per-chunk ``tokens``; prompt from ``usage`` and
    ``timings`` (``prompt_n + cache_n``). ``tok``: ``r.token_events`` when the caller has them already."""
    outs: dict[str, int] = {}
    prompts: dict[str, int] = {}
    usage = _last(r.events, "usage", "completion_tokens")
    if usage is not None:
        outs["usage"] = int(usage["completion_tokens"])
    timings = _last(r.events, "timings", "predicted_n")
    if timings is not None:
        outs["timings"] = int(timings["predicted_n"])
    tok = r.token_events if tok is None else tok
    if tok and all(e.n_tokens is not None for e in tok):
        outs["tokens"] = sum(e.n_tokens or 0 for e in r.events)
    usage = _last(r.events, "usage", "prompt_tokens")
    if usage is not None:
        prompts["usage"] = int(usage["prompt_tokens"])
    timings = _last(r.events, "timings", "prompt_n")
    if timings is not None:
        prompts["timings"] = int(timings["prompt_n"]) + int(timings.get("cache_n") or 0)
    return outs, prompts


def _n_out(r: RequestRecord, tok: list | None = None) -> tuple[int | None, str | None]:
    tok = r.token_events if tok is None else tok
    outs, _ = token_counts(r, tok)
    if outs:
        source = next(iter(outs))
        return outs[source], source
    if tok:
        return len(tok), "chunks"
    return None, None


def _n_in(r: RequestRecord) -> int | None:
    _, prompts = token_counts(r)
    return next(iter(prompts.values()), None)


def _n_cached(r: RequestRecord) -> int | None:
    timings = _last(r.events, "timings", "cache_n")
    if timings is not None:
        return int(timings["cache_n"])
    for e in reversed(r.events):
        details = (e.usage or {}).get("prompt_tokens_details")
        if isinstance(details, dict) and details.get("cached_tokens") is not None:
            return int(details["cached_tokens"])
    return None


def _share(total: int, weights: list[int]) -> list[int]:
    """``total`` split over ``weights`` proportionally, each part >= 1, largest remainders first."""
    k = len(weights)
    if total < k or sum(weights) <= 0:
        return [1] * k
    spare = total - k  # every chunk carries at least one token
    wsum = float(sum(weights))
    raw = [spare * w / wsum for w in weights]
    parts = [math.floor(x) for x in raw]
    order = sorted(range(k), key=lambda i: raw[i] - parts[i], reverse=True)
    for i in order[: spare - sum(parts)]:
        parts[i] += 1
    return [1 + p for p in parts]


def chunk_tokens(r: RequestRecord, n_out: int | None = None, source: str | None = None,
                 tok: list | None = None) -> tuple[list[int], bool]:
    """Tokens carried by each token event of ``r``, and whether the split is an estimate.

    Exact when the server gave per-chunk counts (native ``tokens`` arrays; tokens on events without text are
    added to the next token event), when every token event carries a cumulative ``timings.predicted_n``, or when
    the server's count equals the number of token events. Otherwise n_out is shared by characters (estimated).
    ``tok``: ``r.token_events`` when the caller has them already.
    """
    tok = r.token_events if tok is None else tok
    if not tok:
        return [], False
    if n_out is None:
        n_out, source = _n_out(r, tok)
    if all(e.n_tokens is not None for e in tok):
        counts, pending, ti = [], 0, 0
        for e in r.events:
            if e.is_token:
                counts.append(pending + (e.n_tokens or 0))
                pending, ti = 0, ti + 1
            else:
                pending += e.n_tokens or 0
        counts[-1] += pending
        return counts, False
    cumulative = [(e.timings or {}).get("predicted_n") for e in tok]
    if all(c is not None for c in cumulative):
        counts, prev = [], 0
        for c in cumulative:
            counts.append(int(c) - prev)
            prev = int(c)
        if all(c >= 0 for c in counts):
            return counts, False
    if source in ("usage", "timings", "tokens") and n_out == len(tok):
        return [1] * len(tok), False
    if source == "chunks" or n_out is None:
        return [1] * len(tok), True
    return _share(n_out, [e.n_chars for e in tok]), True


def request_metrics(r: RequestRecord) -> dict[str, Any]:
    """Every per-request metric of ``r`` (see `_measure`)."""
    return _measure(r)[0]


def measure(run: RunRecord) -> dict[int, tuple[dict[str, Any], list[int]]]:
    """``request_metrics`` and the per-chunk token counts of every request of ``run``, by ``index``: computed
    once and handed to `summarize`, `compat` and the JSONL writer."""
    return {r.index: _measure(r) for r in run.requests}


def _measure(r: RequestRecord) -> tuple[dict[str, Any], list[int]]:
    """Every per-request metric of ``r``: durations in ms (None when undefined), token counts and their source.

    Keys: ttfb ttfe ttft ttfo tpot itl_chunk[] itl_token[] max_stall e2e e2e_closed e2e_from_schedule
    ttft_from_schedule client_queue n_out n_in n_cached n_out_source itl_token_estimated tokens_per_chunk
    n_chunks coalesced_gaps out_tps_user server_prompt_ms server_predicted_ms server_decode_tps overhead_ttft
    overhead_decode.
    """
    td = r.t_dispatched
    tok = r.token_events
    n_out, source = _n_out(r, tok)
    t_first = tok[0].t if tok else None
    t_last = tok[-1].t if tok else None
    visible = next((e.t for e in tok if e.kind != "reasoning"), None)
    gaps = [b.t - a.t for a, b in zip(tok, tok[1:], strict=False)]
    counts, estimated = chunk_tokens(r, n_out, source, tok)
    itl_token = _per_token_gaps(gaps, counts)
    tpot = None
    if n_out is not None and n_out > 1 and t_first is not None:
        tpot = (t_last - t_first) * 1000.0 / (n_out - 1)
    end = r.t_closed if r.t_closed is not None else r.t_done
    timings = _last(r.events, "timings", "predicted_n") or _last(r.events, "timings", "prompt_ms") or {}
    prompt_ms = timings.get("prompt_ms")
    predicted_ms = timings.get("predicted_ms")
    ttft = _diff_ms(t_first, td)
    return {
        "ttfb": _diff_ms(r.t_headers, td),
        "ttfe": _diff_ms(r.events[0].t, td) if r.events else None,
        "ttft": ttft,
        "ttfo": _diff_ms(visible, td),
        "tpot": tpot,
        "out_tps_user": 1000.0 / tpot if tpot else None,
        "itl_chunk": [g * 1000.0 for g in gaps],
        "itl_token": itl_token,
        "itl_token_estimated": estimated,
        "coalesced_gaps": sum(1 for e in tok[1:] if e.coalesced),
        "max_stall": max(gaps) * 1000.0 if gaps else None,
        "e2e": _diff_ms(t_last, td),
        "e2e_closed": _diff_ms(end, td),
        "e2e_from_schedule": _diff_ms(end, r.t_scheduled),
        "ttft_from_schedule": _diff_ms(t_first, r.t_scheduled),
        "client_queue": _diff_ms(td, r.t_scheduled),
        "n_out": n_out,
        "n_out_source": source,
        "n_in": _n_in(r),
        "n_cached": _n_cached(r),
        "n_chunks": len(tok),
        "tokens_per_chunk": n_out / len(tok) if tok and n_out is not None else None,
        "server_prompt_ms": prompt_ms,
        "server_predicted_ms": predicted_ms,
        "server_decode_tps": timings.get("predicted_per_second"),
        "overhead_ttft": ttft - prompt_ms if ttft is not None and prompt_ms is not None else None,
        "overhead_decode": _overhead_decode(tpot, timings),
    }, counts


def _overhead_decode(tpot: float | None, timings: dict) -> float | None:
    """TPOT minus the server's own time per generated token. Build 11434 divides predicted_ms by predicted_n - 1
    (its first token is free, it comes with the prompt), so predicted_ms / predicted_n would leave tpot / n
    unexplained: its ``predicted_per_token_ms`` first, that division only when it sends none."""
    per_token = timings.get("predicted_per_token_ms")
    if per_token is None and timings.get("predicted_ms") is not None and timings.get("predicted_n"):
        per_token = timings["predicted_ms"] / timings["predicted_n"]
    return tpot - per_token if tpot is not None and per_token is not None else None


def _per_token_gaps(gaps: list[float], counts: list[int]) -> list[float]:
    """Each gap (s) spread over the tokens of the chunk that ended it: m tokens give m gaps of gap/m (ms)."""
    return [gap * 1000.0 / m for gap, m in zip(gaps, counts[1:], strict=False) if m > 0 for _ in range(m)]


# ---------------------------------------------------------------------------------------------- distributions

def _bootstrap(x: np.ndarray, qs: list[float], resamples: int, seed: int) -> np.ndarray:
    """(len(qs), 2) bounds of the percentile-bootstrap CI of each percentile in ``qs`` (the resamples drawn by
    ``bootstrap.resampled_percentiles``: O(1) each, so a 250,000-sample ITL takes milliseconds)."""
    xs = np.sort(x)
    rng = np.random.default_rng(seed)
    tail = (1.0 - CI_LEVEL) / 2.0 * 100.0
    out = np.empty((len(qs), 2))
    for i, q in enumerate(qs):
        out[i] = np.percentile(resampled_percentiles(xs, q, resamples, rng), [tail, 100.0 - tail], method="linear")
    return out


def distribution(values, *, seed: int = 0, resamples: int = 1000) -> dict[str, Any]:
    """n, mean, std, min, max, p50…p99.9 and bootstrap 95 % CIs of p50/p95/p99 of ``values`` (None skipped).

    A percentile with fewer samples than ``MIN_SAMPLES`` asks for is None, and ``missing`` says why
    ("needs n >= 100, have 37"); its CI is None too.
    """
    x = np.asarray([float(v) for v in values if v is not None], dtype=float)
    n = int(x.size)
    out: dict[str, Any] = {"n": n, "mean": None, "std": None, "min": None, "max": None}
    out.update({k: None for k in PERCENTILES})
    out["ci"] = {k: None for k in CI_PERCENTILES}
    out["missing"] = {}
    out["method"] = "linear"
    out["resamples"] = resamples
    if n:
        out.update(mean=float(x.mean()), std=float(x.std()), min=float(x.min()), max=float(x.max()))
    have = []
    for k in PERCENTILES:
        if n >= MIN_SAMPLES[k]:
            have.append(k)
        else:
            out["missing"][k] = f"needs n >= {MIN_SAMPLES[k]}, have {n}"
    if have:
        vals = np.percentile(x, [PERCENTILES[k] for k in have], method="linear")
        for k, v in zip(have, vals, strict=True):
            out[k] = float(v)
    ci_keys = [k for k in CI_PERCENTILES if k in have]
    if ci_keys and resamples > 0:
        bounds = _bootstrap(x, [PERCENTILES[k] for k in ci_keys], resamples, seed)
        for k, (lo, hi) in zip(ci_keys, bounds, strict=True):
            out["ci"][k] = [float(lo), float(hi)]
    return out


# --------------------------------------------------------------------------------------------- run level

def end_of(r: RequestRecord) -> float | None:
    """When ``r`` stopped occupying the server: close, else [DONE], else its last event."""
    if r.t_closed is not None:
        return r.t_closed
    if r.t_done is not None:
        return r.t_done
    return r.events[-1].t if r.events else r.t_headers


def intervals_of(requests) -> list[tuple[float, float]]:
    out = []
    for r in requests:
        if r.t_dispatched is None:
            continue
        end = end_of(r)
        out.append((r.t_dispatched, max(r.t_dispatched, end if end is not None else r.t_dispatched)))
    return out


def concurrency(intervals: list[tuple[float, float]]) -> tuple[float | None, int]:
    """(time-weighted mean in flight over first start -> last end, peak in flight) by a sweep line."""
    if not intervals:
        return None, 0
    points = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals], key=lambda p: (p[0], p[1]))
    level = peak = 0
    for _, step in points:
        level += step
        peak = max(peak, level)
    span = max(b for _, b in intervals) - min(a for a, _ in intervals)
    busy = sum(b - a for a, b in intervals)
    return (busy / span if span > 0 else float(len(intervals))), peak


def window_of(run: RunRecord) -> tuple[float, float]:
    """The measurement window; when the run has none, first dispatch (or schedule) to last end."""
    w0, w1 = run.window
    if w1 > w0:
        return float(w0), float(w1)
    reqs = run.measured
    starts = [r.t_dispatched if r.t_dispatched is not None else r.t_scheduled for r in reqs]
    ends = [e for e in (end_of(r) for r in reqs) if e is not None]
    if not starts:
        return 0.0, 0.0
    return min(starts), max(ends + starts)


def _normalise(name: str) -> str:
    name = name.strip().lower().replace("-", "_")
    return name.split(":", 1)[1] if name.startswith("llamacpp:") else name


def telemetry_values(sample: dict[str, Any]) -> dict[str, float]:
    """The numeric readings of one telemetry sample, names normalised (no ``llamacpp:`` prefix).

    Nested dicts are flattened; a list of ``/slots`` objects becomes ``slots_processing`` / ``slots_count``.
    """
    out: dict[str, float] = {}

    def walk(d: dict[str, Any]) -> None:
        for k, v in d.items():
            if k == "t":
                continue
            if isinstance(v, bool):
                out[_normalise(k)] = float(v)
            elif isinstance(v, int | float):
                if math.isfinite(v):
                    out[_normalise(k)] = float(v)
            elif isinstance(v, str):
                try:
                    out[_normalise(k)] = float(v)
                except ValueError:
                    pass
            elif isinstance(v, dict):
                walk(v)
            elif isinstance(v, list) and v and all(isinstance(s, dict) for s in v):
                if any("is_processing" in s for s in v):
                    out["slots_processing"] = float(sum(1 for s in v if s.get("is_processing")))
                    out["slots_count"] = float(len(v))

    walk(sample)
    return out


def _is_counter(name: str) -> bool:
    return name.partition("{")[0].endswith(_COUNTER_SUFFIX)


def answered(sample: dict) -> float:
    """When the sample's /metrics answer was read (its sending time in records made before that was kept): the
    server's counters stood at some moment before it."""
    return sample.get("t_metrics", sample.get("t", 0.0))


def server_block(run: RunRecord, window: tuple[float, float]) -> dict[str, Any]:
    """Counter deltas (baseline: the last sample answered at or before the window start), gauge maxima,
    restarts."""
    samples = sorted((s for s in run.telemetry if isinstance(s, dict)), key=lambda s: s.get("t", 0.0))
    out: dict[str, Any] = {"samples": len(samples)}
    if not samples:
        return out
    values = [(answered(s), telemetry_values(s)) for s in samples]
    before = [v for t, v in values if t <= window[0]]
    base = before[-1] if before else values[0][1]
    last = values[-1][1]
    decreased = []
    names = sorted({k for _, v in values for k in v})
    for name in names:
        if name in _START_TIME_KEYS:
            continue
        if _is_counter(name):
            stem, brace, labels = name.partition("{")
            if name in base and name in last:
                out[stem[: -len(_COUNTER_SUFFIX)] + "_delta" + brace + labels] = last[name] - base[name]
            series = [v[name] for _, v in values if name in v]
            if any(b < a for a, b in zip(series, series[1:], strict=False)):
                decreased.append(name)
        else:
            series = [v[name] for _, v in values if name in v]
            out[name + "_max"] = max(series)
    starts = sorted({v[k] for _, v in values for k in _START_TIME_KEYS if k in v})
    out["process_start_times"] = starts
    out["counters_decreased"] = decreased
    return out


def target_rate(run: RunRecord, window: tuple[float, float]) -> float | None:
    p = run.profile or {}
    kind = p.get("kind")
    if kind == "rate" and p.get("rate"):
        return float(p["rate"])
    if kind == "ramp":
        duration = window[1] - window[0]
        n = sum(1 for r in run.measured if window[0] <= r.t_scheduled <= window[1])
        return n / duration if duration > 0 else None
    return None


def throughput_of(ok: list[tuple[RequestRecord, dict]], good: int | None, duration: float) -> dict[str, Any]:
    n_out = sum(m["n_out"] or 0 for _, m in ok)
    n_in = sum(m["n_in"] or 0 for _, m in ok)

    def per_s(x):
        return x / duration if duration > 0 else None

    return {"duration_s": duration, "request_throughput": per_s(len(ok)), "output_throughput": per_s(n_out),
            "total_token_throughput": per_s(n_in + n_out), "goodput": None if good is None else per_s(good),
            "goodput_ratio": None if good is None or not ok else good / len(ok)}


PER_REQUEST_SLO = ("ttft_ms", "tpot_ms", "e2e_ms", "e2e_closed_ms", "e2e_from_schedule_ms", "ttft_from_schedule_ms",
                   "ttfo_ms", "max_stall_ms", "client_queue_ms")


def check_request_slo(slo: dict[str, Any] | None) -> dict[str, float] | None:
    """Validated per-request SLO limits (ms), or None; an unknown name raises ValueError listing the valid ones."""
    if not slo:
        return None
    out = {}
    for k, v in slo.items():
        if k not in PER_REQUEST_SLO:
            raise ValueError(f"unknown per-request SLO {k!r}; valid: {', '.join(PER_REQUEST_SLO)}")
        out[k] = float(v)
    return out


def meets_slo(m: dict[str, Any], slo: dict[str, float]) -> bool:
    """True when the request metrics ``m`` meet every limit; an undefined tpot (n_out <= 1) counts as met."""
    for k, limit in slo.items():
        v = m.get(k[:-3])
        if v is None:
            if k == "tpot_ms":
                continue
            return False
        if v > limit:
            return False
    return True


def timeseries(run: RunRecord, reqs, mets, chunk_counts, intervals, window) -> list[dict[str, Any]]:
    starts = [a for a, _ in intervals] + [r.t_scheduled for r in reqs]
    ends = [b for _, b in intervals]
    if not starts:
        return []
    first = int(math.floor(min(starts + [window[0]])))
    last = int(math.floor(max(ends + starts)))
    n = last - first + 1
    out_tokens = np.zeros(n)
    busy = np.zeros(n)
    errors = np.zeros(n, dtype=int)
    started = np.zeros(n, dtype=int)
    ttfts: list[list[float]] = [[] for _ in range(n)]

    def at(t: float) -> int:
        return min(n - 1, max(0, int(math.floor(t)) - first))

    for r, m, counts in zip(reqs, mets, chunk_counts, strict=True):
        for e, c in zip(r.token_events, counts, strict=True):
            out_tokens[at(e.t)] += c
        if r.error is not None:
            end = end_of(r)
            t_err = end if end is not None else (r.t_dispatched if r.t_dispatched is not None else r.t_scheduled)
            errors[at(t_err)] += 1
        if r.t_dispatched is not None:
            i = at(r.t_dispatched)
            started[i] += 1
            if m["ttft"] is not None:
                ttfts[i].append(m["ttft"])
    for a, b in intervals:
        i, j = int(math.floor(a)) - first, int(math.floor(b)) - first
        for k in range(i, j + 1):
            lo, hi = max(a, first + k), min(b, first + k + 1)
            if hi > lo:
                busy[k] += hi - lo
    server: dict[int, dict[str, float]] = {}
    for s in sorted((s for s in run.telemetry if isinstance(s, dict)), key=lambda s: s.get("t", 0.0)):
        i = int(math.floor(s.get("t", 0.0))) - first
        if 0 <= i < n:
            server[i] = {k: v for k, v in telemetry_values(s).items()
                         if not _is_counter(k) and k not in _START_TIME_KEYS}
    return [{"t": first + i, "output_tps": float(out_tokens[i]), "in_flight": float(busy[i]),
             "started": int(started[i]), "ttft_ms_p50": float(np.median(ttfts[i])) if ttfts[i] else None,
             "errors": int(errors[i]), "server": server.get(i, {})} for i in range(n)]


# --------------------------------------------------------------------------------------------- compat views

COMPAT_TOOLS = ("vllm", "guidellm", "genai-perf")
_VLLM_CHOICE_KINDS = frozenset({"role", "content", "reasoning", "tool_call", "finish"})

def definitions_table() -> str:
    """`DEFINITIONS` as the Markdown table of docs/load.md (checked against it by a pytest)."""
    rows = ["| metric | definition |", "|---|---|"]
    rows += [f"| `{name}` | {text.replace('|', chr(92) + '|')} |" for name, text in DEFINITIONS.items()]
    return "\n".join(rows)


COMPAT_DEFINITIONS = {
    "vllm": {"ttft_ms": "first chunk with non-empty choices (a role-only chunk counts)",
             "itl_ms": "gaps between consecutive chunks with choices, one sample per chunk",
             "tpot_ms": "(E2E - TTFT) / (N - 1), only when N > 1",
             "e2e_ms": "last chunk with choices - send",
             "n_out": "usage.completion_tokens (else our n_out)",
             "window": "first dispatch -> last completion"},
    "guidellm": {"ttft_ms": "first non-empty content, reasoning or tool-call delta",
                 "itl_ms": "per request (last token - first token) / (N - 1)",
                 "tpot_ms": "per request (last token - send) / N, TTFT included",
                 "e2e_ms": "after [DONE] (stream end) - send",
                 "n_out": "usage, else the count of token chunks",
                 "window": "measurement window (warmup excluded)"},
    "genai-perf": {"ttft_ms": "first non-empty response (role-only and usage-only responses dropped)",
                   "itl_ms": "per request (E2E - TTFT) / (N - 1)",
                   "tpot_ms": "not reported (its ITL)",
                   "e2e_ms": "last non-empty response - send",
                   "n_out": "server count here (genai-perf tokenizes the joined text on the client)",
                   "window": "first send -> last non-empty response"},
}


def _compat_request(r: RequestRecord, m: dict, tool: str) -> dict[str, Any]:
    td = r.t_dispatched
    n = m["n_out"]
    tok = r.token_events
    out: dict[str, Any] = {"n_out": n, "itl": []}
    if tool == "vllm":
        usage = _last(r.events, "usage", "completion_tokens")
        n = int(usage["completion_tokens"]) if usage else n
        chosen = [e for e in r.events if e.kind in _VLLM_CHOICE_KINDS]
        ttft = _diff_ms(chosen[0].t, td) if chosen else None
        e2e = _diff_ms(chosen[-1].t, td) if chosen else None
        out["itl"] = [(b.t - a.t) * 1000.0 for a, b in zip(chosen, chosen[1:], strict=False)]
        tpot = (e2e - ttft) / (n - 1) if n is not None and n > 1 and ttft is not None else None
        out.update(ttft=ttft, e2e=e2e, tpot=tpot, n_out=n, end=chosen[-1].t if chosen else None)
    elif tool == "guidellm":
        if m["n_out_source"] not in ("usage",):
            n = len(tok) if tok else n
        end = r.t_done if r.t_done is not None else r.t_closed
        ttft = m["ttft"]
        itl = (tok[-1].t - tok[0].t) * 1000.0 / (n - 1) if tok and n is not None and n > 1 else None
        tpot = (tok[-1].t - td) * 1000.0 / n if tok and n else None
        out.update(ttft=ttft, e2e=_diff_ms(end, td), tpot=tpot, n_out=n, end=end)
        out["itl"] = [itl] if itl is not None else []
    else:  # genai-perf
        ttft, e2e = m["ttft"], m["e2e"]
        itl = (e2e - ttft) / (n - 1) if n is not None and n > 1 and ttft is not None else None
        out.update(ttft=ttft, e2e=e2e, tpot=None, n_out=n, end=tok[-1].t if tok else None)
        out["itl"] = [itl] if itl is not None else []
    return out


def compat(run: RunRecord, tool: str, *, seed: int = 0, resamples: int = 1000,
           measured: dict | None = None) -> dict[str, Any]:
    """TTFT/ITL/TPOT/E2E, N and output throughput as ``tool`` ("vllm", "guidellm", "genai-perf") defines them,
    recomputed from this run's event logs (successful measured requests); ``measured`` as for `summarize`."""
    if tool not in COMPAT_TOOLS:
        raise ValueError(f"unknown tool {tool!r}; valid: {', '.join(COMPAT_TOOLS)}")
    ok = [r for r in run.measured if r.ok]
    rows = [_compat_request(r, measured[r.index][0] if measured is not None else request_metrics(r), tool)
            for r in ok]
    if tool == "guidellm":
        w0, w1 = window_of(run)
        duration = w1 - w0
    else:
        ends = [x["end"] for x in rows if x["end"] is not None]
        duration = (max(ends) - min(r.t_dispatched for r in ok)) if ends else 0.0
    n_total = sum(x["n_out"] or 0 for x in rows)

    def dist(key):
        return distribution([x[key] for x in rows], seed=seed, resamples=resamples)

    return {
        "tool": tool,
        "definitions": dict(COMPAT_DEFINITIONS[tool]),
        "metrics": {"ttft_ms": dist("ttft"), "itl_ms": distribution([v for x in rows for v in x["itl"]], seed=seed,
                                                                    resamples=resamples),
                    "tpot_ms": dist("tpot"), "e2e_ms": dist("e2e"), "n_out": dist("n_out")},
        "throughput": {"duration_s": duration, "request_throughput": len(rows) / duration if duration > 0 else None,
                       "output_throughput": n_total / duration if duration > 0 else None},
    }
