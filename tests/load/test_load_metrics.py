"""metrics.py on hand-built event logs whose every metric is known exactly."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from llamatest.load.analysis.metrics import chunk_tokens, compat, concurrency, distribution, request_metrics
from llamatest.load.analysis.summary import summarize
from llamatest.load.engine.record import LoadEvent, RequestRecord, RunRecord

approx = pytest.approx


def ev(t, kind="content", chars=None, **kw) -> LoadEvent:
    if chars is None:
        chars = 2 if kind in ("content", "reasoning", "tool_call") else 0
    return LoadEvent(t, kind, n_chars=chars, **kw)


def chat_record(index=0, t0=1.0) -> RequestRecord:
    """Scheduled t0-0.1, dispatched t0; role +50 ms, tokens +100/+150/+250 ms, usage 3 tokens, closed +262 ms."""
    usage = {"completion_tokens": 3, "prompt_tokens": 10}
    timings = {"prompt_n": 10, "cache_n": 0, "prompt_ms": 60.0, "predicted_n": 3, "predicted_ms": 150.0,
               "predicted_per_second": 20.0}
    return RequestRecord(
        index=index, t_scheduled=t0 - 0.1, t_dispatched=t0, t_headers=t0 + 0.05, t_done=t0 + 0.261,
        t_closed=t0 + 0.262, status=200, outcome="finish_length", n_requested=3,
        events=[ev(t0 + 0.05, "role"), ev(t0 + 0.1, chars=2), ev(t0 + 0.12, "ping"), ev(t0 + 0.15, chars=3),
                ev(t0 + 0.25, chars=1), ev(t0 + 0.26, "finish", finish_reason="length"),
                ev(t0 + 0.26, "usage", usage=usage, timings=timings, coalesced=True), ev(t0 + 0.261, "done")])


def test_chat_stream_metrics_are_exact():
    m = request_metrics(chat_record())
    assert m["ttfb"] == approx(50) and m["ttfe"] == approx(50)
    assert m["ttft"] == approx(100)  # the role chunk and the ping are not tokens
    assert m["ttfo"] == approx(100)
    assert m["tpot"] == approx(75)  # (250 - 100) / (3 - 1)
    assert m["itl_chunk"] == approx([50, 100])
    assert m["itl_token"] == approx([50, 100]) and m["itl_token_estimated"] is False
    assert m["max_stall"] == approx(100)
    assert m["e2e"] == approx(250) and m["e2e_closed"] == approx(262)
    assert m["e2e_from_schedule"] == approx(362) and m["ttft_from_schedule"] == approx(200)
    assert m["client_queue"] == approx(100)
    assert (m["n_out"], m["n_out_source"], m["n_in"], m["n_cached"], m["n_chunks"]) == (3, "usage", 10, 0, 3)
    assert m["server_prompt_ms"] == 60.0 and m["overhead_ttft"] == approx(40)
    assert m["overhead_decode"] == approx(25)  # 75 - 150 / 3
    assert m["server_decode_tps"] == 20.0


def test_usage_chunk_and_finish_are_not_tokens():
    r = RequestRecord(0, 0.0, t_dispatched=0.0, t_closed=1.0, events=[
        ev(0.1, "role"), ev(0.2, "progress"), ev(0.3, "ping"), ev(0.4, "finish"),
        ev(0.5, "usage", usage={"completion_tokens": 0}), ev(0.6, "done")])
    m = request_metrics(r)
    assert m["ttft"] is None and m["ttfo"] is None and m["e2e"] is None
    assert m["ttfe"] == approx(100) and m["n_chunks"] == 0 and m["itl_chunk"] == []
    assert m["n_out"] == 0 and m["tpot"] is None


def test_reasoning_counts_for_ttft_but_not_ttfo():
    r = RequestRecord(0, 0.0, t_dispatched=0.0, t_closed=2.0,
                      events=[ev(0.1, "reasoning"), ev(0.5, "reasoning"), ev(1.5, "content")])
    m = request_metrics(r)
    assert m["ttft"] == approx(100) and m["ttfo"] == approx(1500)
    assert (m["n_out"], m["n_out_source"]) == (3, "chunks") and m["itl_token_estimated"] is True


@pytest.mark.parametrize("n_out", [0, 1])
def test_tpot_is_none_for_at_most_one_token(n_out):
    events = [ev(0.2)] if n_out else []
    r = RequestRecord(0, 0.0, t_dispatched=0.0, t_closed=0.3,
                      events=events + [ev(0.25, "usage", usage={"completion_tokens": n_out})])
    m = request_metrics(r)
    assert m["tpot"] is None and m["out_tps_user"] is None and m["max_stall"] is None
    assert m["itl_chunk"] == [] and m["itl_token"] == []


def test_n_out_sources_in_order():
    def rec(*extra, n_tokens=None):
        return RequestRecord(0, 0.0, t_dispatched=0.0, t_closed=1.0,
                             events=[ev(0.1, n_tokens=n_tokens), ev(0.2, n_tokens=n_tokens), *extra])
    usage = ev(0.3, "usage", usage={"completion_tokens": 7}, timings={"predicted_n": 6})
    assert request_metrics(rec(usage, n_tokens=2))["n_out_source"] == "usage"
    assert request_metrics(rec(usage, n_tokens=2))["n_out"] == 7
    timings = ev(0.3, "finish", timings={"predicted_n": 6})
    assert (request_metrics(rec(timings, n_tokens=2))["n_out"], request_metrics(rec(timings))["n_out_source"]) == (
        6, "timings")
    assert (request_metrics(rec(n_tokens=2))["n_out"], request_metrics(rec(n_tokens=2))["n_out_source"]) == (
        4, "tokens")
    assert (request_metrics(rec())["n_out"], request_metrics(rec())["n_out_source"]) == (2, "chunks")


def test_native_multi_token_chunks_give_exact_token_itl():
    # /completion: tokens [a], [b c], then a token with no text yet (partial UTF-8), then [d]; stop carries timings
    r = RequestRecord(0, 0.0, t_dispatched=0.0, t_closed=0.31, events=[
        ev(0.0, n_tokens=1), ev(0.1, n_tokens=2), ev(0.15, "other", chars=0, n_tokens=1), ev(0.3, n_tokens=1),
        ev(0.3, "finish", timings={"predicted_n": 5, "predicted_ms": 290.0}, coalesced=True)])
    m = request_metrics(r)
    assert (m["n_out"], m["n_out_source"]) == (5, "timings")
    assert chunk_tokens(r) == ([1, 2, 2], False)
    assert m["itl_chunk"] == approx([100, 200])
    assert m["itl_token"] == approx([50, 50, 100, 100])  # gap / m, m samples per chunk
    assert m["tpot"] == approx(75)  # 300 ms / (5 - 1)
    assert m["tokens_per_chunk"] == approx(5 / 3)


def test_cumulative_timings_per_token_give_exact_counts():
    r = RequestRecord(0, 0.0, t_dispatched=0.0, t_closed=1.0, events=[
        ev(0.1, timings={"predicted_n": 1}), ev(0.2, timings={"predicted_n": 3}), ev(0.4, timings={"predicted_n": 4}),
        ev(0.5, "usage", usage={"completion_tokens": 4})])
    assert chunk_tokens(r) == ([1, 2, 1], False)
    assert request_metrics(r)["itl_token"] == approx([50, 50, 200])


def test_char_share_estimate_is_flagged():
    r = RequestRecord(0, 0.0, t_dispatched=0.0, t_closed=1.0, events=[
        ev(0.1, chars=1), ev(0.2, chars=1), ev(0.5, chars=4), ev(0.6, "usage", usage={"completion_tokens": 6})])
    counts, estimated = chunk_tokens(r)
    assert counts == [2, 1, 3] and estimated
    m = request_metrics(r)
    assert m["itl_token_estimated"] is True
    assert m["itl_token"] == approx([100, 100, 100, 100])  # 100/1, then 300/3 three times
    assert len(m["itl_token"]) == 6 - counts[0]


def test_coalesced_gaps_are_counted_not_silent():
    r = RequestRecord(0, 0.0, t_dispatched=0.0, t_closed=1.0, events=[
        ev(0.1), ev(0.2), ev(0.2, coalesced=True), ev(0.3)])
    m = request_metrics(r)
    assert m["itl_chunk"] == approx([100, 0, 100])
    assert m["coalesced_gaps"] == 1
    run = RunRecord(profile={"kind": "synchronous"}, target={}, t0_wall=0, t0_perf=0, window=(0.0, 1.0), requests=[r])
    s = summarize(run, resamples=50)
    assert s["counts"]["coalesced_gaps"] == 1 and s["counts"]["coalesced_fraction"] == approx(1 / 3)
    assert s["flags"]["high_coalescing"]["set"] is True


# ---------------------------------------------------------------------------------------------- distribution

def test_p99_missing_with_37_samples():
    d = distribution(range(37))
    assert d["n"] == 37 and d["p99"] is None and d["p99_9"] is None
    assert d["missing"] == {"p99": "needs n >= 100, have 37", "p99_9": "needs n >= 1000, have 37"}
    assert d["p50"] == 18.0 and d["p95"] == approx(np.percentile(range(37), 95))
    assert d["ci"]["p99"] is None and d["ci"]["p50"] is not None and d["method"] == "linear"


def test_percentiles_are_numpy_linear_and_ci_contains_them():
    x = np.random.default_rng(3).lognormal(3, 0.5, 1500)
    d = distribution(x, seed=1)
    for key, q in (("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("p99_9", 99.9)):
        assert d[key] == approx(np.percentile(x, q, method="linear"))
    for key in ("p50", "p95", "p99"):
        lo, hi = d["ci"][key]
        assert lo <= d[key] <= hi and lo < hi
    assert d["missing"] == {}
    assert d["mean"] == approx(x.mean()) and d["std"] == approx(x.std())
    assert distribution(x, seed=1)["ci"] == d["ci"]  # seeded


def test_distribution_of_nothing_and_of_one():
    empty = distribution([None, None])
    assert empty["n"] == 0 and empty["p50"] is None and empty["mean"] is None
    assert empty["missing"]["p50"] == "needs n >= 1, have 0"
    one = distribution([5.0])
    assert one["p50"] == 5.0 and one["ci"]["p50"] == [5.0, 5.0] and one["std"] == 0.0


def test_bootstrap_ci_matches_naive_resampling():
    x = np.random.default_rng(5).lognormal(3, 0.6, 300)
    idx = np.random.default_rng(6).integers(0, 300, size=(4000, 300))
    naive = np.percentile(np.percentile(x[idx], [50, 95, 99], axis=1), [2.5, 97.5], axis=1).T
    d = distribution(x, resamples=4000)
    for (lo, hi), key in zip(naive, ("p50", "p95", "p99"), strict=True):
        assert d["ci"][key] == approx([lo, hi], rel=0.03)


def test_bootstrap_is_fast():
    x = np.random.default_rng(0).normal(100, 10, 20000)
    start = time.perf_counter()
    distribution(x, resamples=1000)
    assert time.perf_counter() - start < 3.0


# ------------------------------------------------------------------------------------------------- summarize

def stream(index, t_disp, ttft, gaps, *, n_out=None, t_sched=None, tail=0.01, error=None, native=None):
    """A successful chat-like request: first token at t_disp + ttft, then one per gap, usage with n_out."""
    t = t_disp + ttft
    events = [ev(t_disp + ttft / 2, "role"), ev(t, n_tokens=native)]
    for g in gaps:
        t += g
        events.append(ev(t, n_tokens=native))
    n = n_out if n_out is not None else len(gaps) + 1
    events += [ev(t, "finish"), ev(t, "usage", usage={"completion_tokens": n, "prompt_tokens": 10},
                                   timings={"prompt_n": 10, "cache_n": 0, "predicted_n": n, "prompt_ms": 5.0})]
    return RequestRecord(index, t_disp if t_sched is None else t_sched, t_dispatched=t_disp, t_headers=t_disp + ttft,
                         t_done=t + tail, t_closed=t + tail, status=200, error=error,
                         outcome=None if error else "finish_length", events=events)


def dropped(index, t):
    return RequestRecord(index, t, error="dropped")


def run_of(requests, window=(0.0, 4.0), profile=None, **kw):
    return RunRecord(profile=profile or {"kind": "rate", "rate": 1.0}, target={"route": "/v1/chat/completions"},
                     t0_wall=1000.0, t0_perf=0.0, window=window, requests=requests, **kw)


def test_window_and_wall_throughput_differ_with_a_tail():
    reqs = [stream(i, float(i), 0.1, [0.1, 0.1, 0.19]) for i in range(3)]
    reqs.append(stream(3, 3.0, 0.1, [1.0, 1.0, 2.89]))  # ends at 8.0: a tail after the 4-s window
    s = summarize(run_of(reqs), resamples=50)
    win, wall = s["throughput"]["window"], s["throughput"]["wall"]
    assert win["duration_s"] == 4.0 and win["request_throughput"] == approx(1.0)
    assert win["output_throughput"] == approx(16 / 4) and win["total_token_throughput"] == approx(56 / 4)
    assert wall["duration_s"] == approx(8.0) and wall["request_throughput"] == approx(0.5)
    assert wall["output_throughput"] == approx(2.0)
    assert s["throughput"]["achieved_rate"] == approx(1.0) and s["throughput"]["target_rate"] == 1.0


def test_dropped_requests_count_in_error_rate():
    reqs = [stream(i, float(i) / 2, 0.1, [0.1]) for i in range(6)]
    failed = stream(6, 3.0, 0.1, [0.1], error="http_5xx")
    failed.t_closed, failed.events = 3.05, []
    reqs += [failed, dropped(7, 3.5)]
    s = summarize(run_of(reqs), resamples=50)
    c = s["counts"]
    assert (c["attempted"], c["sent"], c["succeeded"], c["errored"], c["dropped"]) == (8, 7, 6, 1, 1)
    assert c["errors_by_class"] == {"dropped": 1, "http_5xx": 1} and c["outcomes"] == {"finish_length": 6}
    assert s["throughput"]["error_rate"] == approx(2 / 8)
    assert s["flags"]["dropped"]["set"] is True and "1 of 8" in s["flags"]["dropped"]["detail"]


def test_goodput_counts_undefined_tpot_as_met():
    reqs = [stream(0, 0.0, 0.1, [0.02, 0.02]),  # ttft 100, tpot 20: good
            stream(1, 1.0, 0.3, [0.02]),  # ttft 300: bad
            stream(2, 2.0, 0.1, [0.2, 0.2]),  # tpot 200: bad
            stream(3, 3.0, 0.1, [])]  # one token: tpot undefined, counts as met
    s = summarize(run_of(reqs), slo={"ttft_ms": 150, "tpot_ms": 50}, resamples=50)
    assert s["metrics"]["tpot_ms"]["n"] == 3
    assert s["throughput"]["window"]["goodput"] == approx(2 / 4)
    assert s["throughput"]["window"]["goodput_ratio"] == approx(0.5)
    assert s["slo"] == {"ttft_ms": 150.0, "tpot_ms": 50.0}
    assert summarize(run_of(reqs), resamples=0)["throughput"]["window"]["goodput"] is None
    with pytest.raises(ValueError, match="valid: ttft_ms"):
        summarize(run_of(reqs), slo={"ttft_p95": 1})


def test_peak_output_tps_is_token_weighted():
    # two native chunks of 3 tokens each inside second 0, one token in second 1
    r = stream(0, 0.0, 0.1, [0.3, 0.7], native=3)
    r.events[-1].usage = None
    r.events[-1].timings = {"predicted_n": 9}
    s = summarize(run_of([r], window=(0.0, 2.0)), resamples=0)
    assert s["throughput"]["peak_output_tps"] == 6.0
    assert [p["output_tps"] for p in s["timeseries"]] == [6.0, 3.0]


def test_concurrency_sweep_line():
    assert concurrency([(0.0, 2.0), (1.0, 3.0)]) == (approx(4 / 3), 2)
    assert concurrency([(0.0, 1.0), (1.0, 2.0)]) == (approx(1.0), 1)  # end before start at the same instant
    assert concurrency([]) == (None, 0)


def test_timeseries_server_block_and_client_block():
    reqs = [stream(0, 0.0, 0.1, [0.1]), stream(1, 0.5, 0.2, [0.1]), stream(2, 1.2, 0.1, [0.1], t_sched=1.1)]
    telemetry = [
        {"t": 0.0, "metrics": {"llamacpp:prompt_tokens_cached_total": 4.0, "llamacpp:requests_deferred": 0.0},
         "slots": [{"id": 0, "is_processing": False}]},
        {"t": 0.9, "metrics": {"llamacpp:prompt_tokens_cached_total": 9.0, "llamacpp:requests_deferred": 2.0},
         "slots": [{"id": 0, "is_processing": True}], "errors": ["/slots TimeoutError"]},
        {"t": 1.5, "metrics": {"llamacpp:prompt_tokens_cached_total": 12.0, "llamacpp:requests_deferred": 1.0}}]
    run = run_of(reqs, window=(0.0, 2.0), telemetry=telemetry, loop_lag=[(0.5, 0.001), (1.0, 0.003)],
                 cpu=[(1.0, 30.0), (2.0, 50.0)])
    s = summarize(run, resamples=50)
    assert s["server"]["prompt_tokens_cached_delta"] == 8.0 and s["server"]["requests_deferred_max"] == 2.0
    assert s["server"]["slots_processing_max"] == 1.0 and s["server"]["samples"] == 3
    ts = s["timeseries"]
    assert [p["t"] for p in ts] == [0, 1] and [p["started"] for p in ts] == [2, 1]
    assert ts[0]["ttft_ms_p50"] == approx(150) and ts[1]["ttft_ms_p50"] == approx(100)
    assert ts[0]["in_flight"] == approx(0.21 + 0.31) and ts[0]["server"]["requests_deferred"] == 2.0
    assert s["client"]["schedule_lag_ms"]["max"] == approx(100) and s["client"]["loop_lag_ms"]["max"] == approx(3)
    assert s["client"]["cpu_pct_max"] == 50.0
    assert s["throughput"]["peak_concurrency"] == 1  # [0, 0.21], [0.5, 0.81], [1.2, 1.41] never overlap


def test_summary_has_the_documented_keys_and_is_json():
    reqs = [stream(i, i * 0.25, 0.1, [0.05] * 4) for i in range(12)] + [dropped(12, 3.0)]
    s = summarize(run_of(reqs, meta={"dataset": "x"}), slo={"ttft_ms": 500}, resamples=100)
    assert {"schema", "profile", "target", "meta", "counts", "metrics", "samples", "throughput", "slo", "timeseries",
            "server", "client", "flags", "definitions", "server_series", "overhead"} <= set(s)
    assert s["schema"] == "llamatest.load.summary/1"
    for key in ("ttft_ms", "tpot_ms", "itl_chunk_ms", "itl_token_ms", "e2e_ms", "e2e_closed_ms", "e2e_from_schedule_ms",
                "ttft_from_schedule_ms", "client_queue_ms", "ttfb_ms", "ttfo_ms", "max_stall_ms", "n_out", "n_in",
                "server_prompt_ms", "overhead_ttft_ms"):
        assert key in s["metrics"] and key in s["samples"] and key in s["definitions"]
    assert set(s["throughput"]["window"]) == {"duration_s", "request_throughput", "output_throughput",
                                              "total_token_throughput", "goodput", "goodput_ratio"}
    assert set(s["flags"]) == {"client_bound", "machine_busy", "rate_shortfall", "dropped", "cache_contaminated",
                               "token_count_mismatch", "osl_mismatch", "oversaturated", "insufficient_samples",
                               "server_restarted", "high_coalescing", "server_disagrees", "server_overhead",
                               "worker_lost"}
    assert all(set(f) == {"set", "detail"} for f in s["flags"].values())
    assert s["samples"]["itl_chunk_ms"] == approx([50.0] * 48)
    json.dumps(s, allow_nan=False)


def test_warmup_is_counted_apart():
    warm = stream(0, 0.0, 2.0, [0.1])
    warm.phase = "warmup"
    s = summarize(run_of([warm, stream(1, 1.0, 0.1, [0.1])], window=(1.0, 2.0)), resamples=0)
    assert s["counts"]["warmup"] == 1 and s["counts"]["attempted"] == 1
    assert s["metrics"]["ttft_ms"]["max"] == approx(100)


# ---------------------------------------------------------------------------------------------- compat views

def test_compat_views_recompute_other_tools_numbers():
    run = run_of([chat_record(0, 0.0)], window=(0.0, 1.0))
    vllm = compat(run, "vllm", resamples=0)["metrics"]
    assert vllm["ttft_ms"]["p50"] == approx(50)  # the role chunk counts for vLLM
    assert vllm["e2e_ms"]["p50"] == approx(260)  # the finish chunk has choices
    assert vllm["tpot_ms"]["p50"] == approx(105)  # (260 - 50) / 2
    assert vllm["itl_ms"]["n"] == 4  # role->token, token->token x2, token->finish
    guide = compat(run, "guidellm", resamples=0)["metrics"]
    assert guide["ttft_ms"]["p50"] == approx(100) and guide["itl_ms"]["p50"] == approx(75)
    assert guide["tpot_ms"]["p50"] == approx(250 / 3)  # includes TTFT
    assert guide["e2e_ms"]["p50"] == approx(261)  # after [DONE]
    gp = compat(run, "genai-perf", resamples=0)["metrics"]
    assert gp["ttft_ms"]["p50"] == approx(100) and gp["itl_ms"]["p50"] == approx(75) and gp["tpot_ms"]["n"] == 0
    with pytest.raises(ValueError, match="valid: vllm, guidellm, genai-perf"):
        compat(run, "llmperf")
