"""The server's own series (server_series.py), its agreement with the client (server_agreement.py) and the
overhead check of every run (overhead.py), on hand-built runs whose every figure is known."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from llamatest.load.analysis import overhead, server_agreement, server_series, verdicts
from llamatest.load.analysis.metrics import measure
from llamatest.load.analysis.summary import summarize
from llamatest.load.engine.record import LoadEvent, RequestRecord, RunRecord
from llamatest.load.output.charts import server_chart
from llamatest.load.output.results import write_run
from llamatest.load.output.textreport import series_line
from llamatest.machine import NotJudged
from llamatest.report.load import overhead_state

approx = pytest.approx
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def request(index: int, t0: float, *, n: int = 5, gap: float = 0.1, prompt_ms: float = 20.0,
            ttft: float = 0.05) -> RequestRecord:
    """Dispatched at t0, first token at t0 + ttft, then one token every ``gap``; the server's timings say
    ``prompt_ms`` and exactly ``gap`` per generated token; closed right after the last token."""
    tokens = [LoadEvent(t0 + ttft + i * gap, "content", n_chars=2) for i in range(n)]
    last = tokens[-1].t
    timings = {"prompt_n": 8, "cache_n": 0, "prompt_ms": prompt_ms, "predicted_n": n,
               "predicted_ms": n * gap * 1000.0}
    usage = LoadEvent(last + 0.001, "usage", usage={"completion_tokens": n, "prompt_tokens": 8}, timings=timings)
    return RequestRecord(index, t0, t_dispatched=t0, t_headers=t0 + 0.01, t_done=last + 0.002,
                         t_closed=last + 0.003, status=200, n_requested=n, outcome="finish_length",
                         events=[*tokens, usage])


def sample(t: float, predicted: float, processing: float, deferred: float = 0.0, **extra) -> dict:
    return {"t": t, "t_metrics": t + 0.01, "metrics": {
        "llamacpp:tokens_predicted_total": predicted, "llamacpp:prompt_tokens_total": 8.0 * predicted / 5,
        "llamacpp:prompt_tokens_cached_total": 0.0, "llamacpp:requests_processing": processing,
        "llamacpp:requests_deferred": deferred}, "slots": None, **extra}


def two_requests(telemetry: list[dict], **meta) -> RunRecord:
    """Requests at 0.0-0.453 and 1.0-1.453 s (5 tokens each); samples around them."""
    run = RunRecord(profile={"kind": "synchronous"}, target={}, t0_wall=0.0, t0_perf=0.0, window=(0.0, 2.0),
                    requests=[request(0, 0.0), request(1, 1.0)], meta=dict(meta))
    run.telemetry = telemetry
    return run


AGREEING = [sample(-0.1, 0.0, 0.0), sample(0.2, 0.0, 1.0), sample(1.2, 5.0, 1.0), sample(2.0, 10.0, 0.0)]


def test_the_series_holds_the_gauges_and_the_counter_rates_on_the_runs_clock():
    run = two_requests(AGREEING)
    block = server_series.series_block(run, measure(run))
    s = block["series"]
    assert block["reason"] is None
    assert s["t"] == approx([-0.09, 0.21, 1.21, 2.01])
    assert s["processing"] == [0.0, 1.0, 1.0, 0.0] and s["deferred"] == [0.0] * 4
    assert s["predicted_tps"] == approx([None, 0.0, 5.0, 5.0 / 0.8])
    assert s["cached_tps"] == approx([None, 0.0, 0.0, 0.0])
    assert s["kv_used_ratio"] is None  # neither the build's gauge nor /slots
    assert s["client_in_flight"] == [0.0, 1.0, 1.0, 0.0]
    # tokens received by the client: 2 of request 0 by 0.21 (0.05, 0.15), then 3 + 2, then 3
    assert s["client_tps"] == approx([None, 2 / 0.3, 5.0, 3 / 0.8], abs=1e-4)  # kept to 4 decimals


def test_kv_in_use_comes_from_the_gauge_else_from_the_slots():
    slots = [{"id": 0, "n_ctx": 100, "n_prompt_tokens": 30}, {"id": 1, "n_ctx": 100, "n_prompt_tokens": 10}]
    assert server_series.kv_used({"slots": slots}, {}) == approx(0.2)
    assert server_series.kv_used({"slots": slots}, {"kv_cache_usage_ratio": 0.7}) == 0.7
    assert server_series.kv_used({"slots": [{"id": 0}]}, {}) is None


@pytest.mark.parametrize(("errors", "reason"), [
    (["/metrics 501", "/slots 501"], "GET /metrics answered 501: the server was started without --metrics"),
    (["/metrics 404"], "GET /metrics answered 404: the target has no /metrics endpoint"),
    (["/metrics ClientConnectorError"], "every GET /metrics failed (/metrics ClientConnectorError)"),
])
def test_without_metrics_the_series_is_null_and_says_why(errors, reason):
    run = two_requests([{"t": -0.1, "metrics": None, "slots": None, "errors": errors}])
    assert server_series.series_block(run, measure(run)) == {"series": None, "reason": reason}


def test_a_run_never_scraped_says_telemetry_was_off():
    run = two_requests([])
    assert server_series.series_block(run, measure(run))["reason"] == (
        "the server was not scraped during this run (telemetry turned off)")


def test_without_metrics_the_flag_is_not_judged_and_says_why():
    run = two_requests([{"t": -0.1, "metrics": None, "slots": None, "errors": ["/metrics 501"]}])
    flag = summarize(run, resamples=10)["flags"]["server_disagrees"]
    assert flag == {"set": False, "detail": "not judged: GET /metrics answered 501: the server was started without "
                                            "--metrics"}


def test_in_flight_agrees_within_the_requests_started_or_ended_within_the_scrape_window():
    # (possibly counted from, surely counted from, surely until, possibly until)
    spans = [(0.0, 0.2, 0.95, 1.05), (0.5, 0.7, 1.95, 2.05)]
    assert server_agreement.in_flight_misses([(0.8, 0.81, 2.0), (0.3, 0.31, 1.0)], spans) == []
    # the second request is sent but has no token yet at 0.6: 1 and 2 both agree, 0 and 3 do not
    assert server_agreement.in_flight_misses([(0.6, 0.61, 1.0), (0.6, 0.61, 2.0)], spans) == []
    misses = server_agreement.in_flight_misses([(0.6, 0.61, 0.0), (0.8, 0.81, 3.0), (1.0, 1.01, 0.0)], spans)
    assert misses == [{"t": 0.6, "server": 0.0, "lo": 1, "hi": 2}, {"t": 0.8, "server": 3.0, "lo": 2, "hi": 2},
                      {"t": 1.0, "server": 0.0, "lo": 1, "hi": 2}]


def test_output_tokens_agree_within_whole_requests_released_within_a_scrape_window():
    # (surely counted by, tokens, possibly counted from, most tokens); the last was cut: the server may count 32
    ends = [(1.05, 10.0, 0.95, 10.0), (2.05, 7.0, 1.95, 7.0), (np.inf, 0.0, 2.5, 32.0)]
    assert server_agreement.token_misses([(1.5, 1.51, 10.0), (2.0, 2.01, 10.0), (2.0, 2.01, 17.0)], ends) == []
    assert server_agreement.token_misses([(3.5, 3.51, 40.0), (3.5, 3.51, 17.0)], ends) == []
    misses = server_agreement.token_misses([(1.5, 1.51, 11.0), (3.5, 3.51, 50.0), (1.0, 1.01, 0.0)], ends)
    assert misses == [{"t": 1.5, "server": 11.0, "lo": 10.0, "hi": 10.0},
                      {"t": 3.5, "server": 50.0, "lo": 17.0, "hi": 49.0}]


def test_a_request_is_surely_counted_from_its_first_token_to_its_last():
    run = two_requests(AGREEING)
    spans, ends = server_agreement.request_bounds(run, measure(run), 0.05)
    assert spans[1] == approx((1.0, 1.05, 1.40, 1.50))  # sent 1.0, tokens 1.05 to 1.45
    assert ends[1] == approx((1.50, 5.0, 1.40, 5.0))


def test_a_run_whose_server_agrees_with_the_client_is_not_flagged():
    s = summarize(two_requests(AGREEING), resamples=10)
    flag = s["flags"]["server_disagrees"]
    assert flag["set"] is False, flag["detail"]
    assert s["server_series"]["agreement"]["edge_s"] == approx(0.05)  # no loop lag recorded
    assert "0 of 4 samples" in flag["detail"]


def test_a_server_counting_other_requests_and_tokens_is_flagged():
    lying = [sample(-0.1, 0.0, 0.0), sample(0.2, 0.0, 3.0), sample(1.2, 5.0, 1.0), sample(2.0, 25.0, 0.0)]
    flag = summarize(two_requests(lying), resamples=10)["flags"]["server_disagrees"]
    assert flag["set"] is True
    assert "requests in flight (processing + deferred): 1 of 4 samples" in flag["detail"]
    assert "t=0.20 s server 3, client 1-1" in flag["detail"]
    assert "output tokens (tokens_predicted_total): 1 of 4 samples" in flag["detail"]
    assert "t=2.00 s server 25, client 10-10" in flag["detail"]


def test_without_a_baseline_before_the_first_request_the_tokens_are_not_judged():
    late = AGREEING[1:]
    found = server_agreement.agreement(two_requests(late), measure(two_requests(late)))
    assert found["tokens_judged"] is False and found["tokens"] == []
    assert server_agreement.flag_detail(found)[1].startswith("output tokens not judged")


def test_overhead_is_judged_at_any_load_for_requests_that_found_a_slot():
    run = two_requests(AGREEING, total_slots=1)
    block = overhead.overhead_block(run, [measure(run)[i][0] for i in (0, 1)])
    assert block["slots"] == 1
    assert block["ttft"] == {"n": 2, "p95_ms": approx(30.0), "limit_ms": 50.0, "queued": 0,
                             "step_wait_p95_ms": 0.0}  # 50 ms TTFT - 20 ms prompt, nothing else running
    assert block["decode"]["p95_ms"] == approx(0.0) and block["exceeded"] == []
    assert overhead.flag_detail(block)[0] is False


def test_the_step_under_way_when_a_request_arrives_is_taken_out_of_its_ttft_overhead():
    # request 1 arrives at 0.12 while request 0 streams (tokens at 0.05, 0.15, ...): its prompt starts when the
    # step under way ends, at request 0's token of 0.15; its first token comes at 0.20, 20 ms of it the prompt
    reqs = [request(0, 0.0), request(1, 0.12, ttft=0.08)]
    mets = [measure(RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=reqs))[i][0] for i in (0, 1)]
    assert overhead.step_waits(reqs, mets) == approx([0.0, 30.0])  # request 0's steps take 100 ms: 30 is within
    run = RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=reqs, meta={"total_slots": 2})
    block = overhead.overhead_block(run, [measure(run)[i][0] for i in (0, 1)])
    assert block["ttft"]["n"] == 2 and block["ttft"]["p95_ms"] == approx(30.0, abs=1e-6)  # 60 - 30 and 30 - 0
    assert block["exceeded"] == []


def test_a_token_held_back_on_its_way_does_not_pass_for_a_step():
    # a proxy holds every first chunk 300 ms: request 1 arrives at 0.01 and its first token comes after request
    # 0's held one (0.30), but the server says request 0 took 20 ms of prompt and 1 ms a token: that is the step
    reqs = [request(0, 0.0, ttft=0.3, gap=0.001), request(1, 0.01, ttft=0.3, gap=0.001)]
    for r in reqs:
        r.events[-1].timings["predicted_per_token_ms"] = 1.0
    run = RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=reqs, meta={"total_slots": 2})
    mets = [measure(run)[i][0] for i in (0, 1)]
    assert overhead.step_waits(reqs, mets) == approx([0.0, 20.0])
    block = overhead.overhead_block(run, mets)
    # 300 - 20 ms of prompt each, less 0 and 20 ms of step: 280 and 260, p95 279
    assert block["ttft"]["p95_ms"] == approx(279.0) and block["exceeded"] == ["ttft"]


def test_a_server_slow_outside_its_timings_only_when_busy_is_flagged():
    # three requests at once on one slot: two wait for the slot (not judged), the one that found it free took
    # 400 ms to its first token of which the server accounts 20 ms
    reqs = [request(0, 0.0, ttft=0.4), request(1, 0.01, ttft=0.9), request(2, 0.02, ttft=1.4)]
    run = RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=reqs, meta={"total_slots": 1})
    block = overhead.overhead_block(run, [measure(run)[i][0] for i in range(3)])
    assert block["ttft"]["n"] == 1 and block["ttft"]["queued"] == 2
    assert block["ttft"]["p95_ms"] == approx(380.0) and block["exceeded"] == ["ttft"]
    is_set, detail = overhead.flag_detail(block)
    assert is_set and "TTFT - prompt_ms - the step under way p95 380.00 ms (limit 50 ms, n=1)" in detail


def test_decode_overhead_beyond_the_servers_own_time_per_token_is_flagged():
    slow = request(0, 0.0, gap=0.1)
    slow.events[-1].timings["predicted_per_token_ms"] = 90.0  # the server says 90 ms a token, the client saw 100
    run = RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=[slow], meta={"total_slots": 1})
    block = overhead.overhead_block(run, [measure(run)[0][0]])
    assert block["decode"]["p95_ms"] == approx(10.0) and block["exceeded"] == ["decode"]


def test_decode_overhead_uses_the_servers_own_time_per_token_whose_first_token_is_free():
    # build 11434: 5 tokens, 4 steps of 100 ms: predicted_ms 400, predicted_per_token_ms 100 (400 / (5 - 1))
    r = request(0, 0.0, gap=0.1)
    r.events[-1].timings.update(predicted_ms=400.0, predicted_per_token_ms=100.0)
    assert measure(RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=[r]))[0][0][
        "overhead_decode"] == approx(0.0)  # predicted_ms / predicted_n would say 20 ms of overhead


def test_without_a_slot_count_the_ttft_overhead_is_not_judged():
    run = two_requests(AGREEING)
    block = overhead.overhead_block(run, [measure(run)[i][0] for i in (0, 1)])
    assert block["slots"] is None and block["ttft"]["n"] == 0 and block["decode"]["n"] == 2


def test_the_slot_count_comes_from_slots_first():
    slots = [{"id": 0, "is_processing": False}, {"id": 1, "is_processing": True}]
    run = two_requests([{**AGREEING[0], "slots": slots}], total_slots=4)
    assert overhead.slot_count(run) == 2


def test_the_files_hold_the_raw_samples_and_the_chart_shows_both_sides(tmp_path):
    run = two_requests(AGREEING, total_slots=1)
    s = summarize(run, resamples=10)
    paths = write_run(tmp_path, run, s, {"config_key": "k"})
    lines = [json.loads(x) for x in paths["server_series"].read_text().splitlines()]
    assert lines == AGREEING
    written = json.loads(paths["summary"].read_text())
    assert written["server_series"]["series"]["processing"] == [0.0, 1.0, 1.0, 0.0]
    assert server_chart(s, tmp_path / "server_series.png").read_bytes().startswith(PNG_MAGIC)
    assert server_chart(summarize(two_requests([]), resamples=10), tmp_path / "none.png") is None


@pytest.mark.parametrize(("flags", "state"), [
    ({"server_overhead": {"set": False, "detail": "d"}}, "ok: d"),
    ({"server_overhead": {"set": True, "detail": "d"}, "machine_busy": {"set": False, "detail": ""}}, "EXCEEDED: d"),
    ({"server_overhead": {"set": True, "detail": "d"}, "machine_busy": {"set": True, "detail": ""}},
     "not judged (machine_busy): d"),
    ({}, "–"),
])
def test_each_sweep_level_shows_its_overhead_verdict(flags, state):
    assert overhead_state({"flags": flags}) == state


def test_every_sweep_level_is_checked_for_overhead_by_its_own_summary():
    # level 1 (one user on one slot) keeps its overhead; level 2 adds 300 ms outside the timings to the request
    # that found a slot free, as a server that holds answers only when busy would
    quiet = RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=[request(0, 0.0)],
                      meta={"total_slots": 1})
    busy = RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, meta={"total_slots": 1},
                     requests=[request(0, 0.0, ttft=0.35), request(1, 0.01, ttft=0.9)])
    levels = [summarize(run, resamples=10)["flags"]["server_overhead"]["set"] for run in (quiet, busy)]
    assert levels == [False, True]


def test_the_command_line_says_whether_the_series_was_kept():
    assert series_line({"series": {"t": [0.0, 1.0, 2.0]}, "reason": None}) == (
        "server series: 3 /metrics samples (server_series in summary.json, server-series.jsonl)")
    assert series_line({"series": None, "reason": "GET /metrics answered 501: the server was started without "
                        "--metrics"}) == ("server series: none (GET /metrics answered 501: the server was started "
                                          "without --metrics)")


def test_a_sharded_run_keeps_its_scrapers_samples_on_the_drivers_clock():
    from llamatest.load.engine.distributed import merge_runs

    # worker 0 scrapes; it started 0.5 s (driver time) after the driver's t0: every time of a sample moves
    scraper = two_requests([{**AGREEING[1], "t_slots": 0.22}])
    scraper.t0_wall = 1000.5
    other = RunRecord(profile={}, target={}, t0_wall=1000.0, t0_perf=0.0, requests=[request(0, 0.3)])
    merged = merge_runs([scraper, other], offsets=[0.0, 0.0], t0_wall=1000.0, t0_perf=0.0)
    sample = merged.telemetry[0]
    assert (sample["t"], sample["t_metrics"], sample["t_slots"]) == approx((0.7, 0.71, 0.72))
    assert sample["worker"] == 0


def summary_with(series_t: list[float] | None, disagrees: bool = False, busy: bool = False) -> dict:
    series = None if series_t is None else {"t": series_t}
    return {"window": [0.0, 3.5], "server_series": {"series": series, "reason": None if series else "GET /metrics "
                                                    "answered 501: the server was started without --metrics"},
            "flags": {"server_disagrees": {"set": disagrees, "detail": "1 of 5 samples outside"},
                      "machine_busy": {"set": busy, "detail": "other processes used 1.3 cores"}}}


def test_the_keyword_passes_on_a_series_of_one_sample_a_second_that_agrees():
    assert verdicts.server_series_agree(summary_with([-0.1, 0.0, 1.0, 2.0, 3.0]), "r") == 5


@pytest.mark.parametrize(("summary", "message"), [
    (summary_with(None), "load run 'r' has no server series: GET /metrics answered 501: the server was started "
                         "without --metrics"),
    (summary_with([0.0, 1.0]), "load run 'r': 2 server samples over a 3.5 s window, expected at least 3"),
    (summary_with([0.0, 1.0, 2.0, 3.0], disagrees=True), "the server's series and the client disagree: 1 of 5"),
])
def test_the_keyword_fails_without_the_series_or_when_it_disagrees(summary, message):
    with pytest.raises(AssertionError, match=re.escape(message)):
        verdicts.server_series_agree(summary, "r")


def test_a_disagreement_on_a_spoiled_machine_is_not_judged():
    with pytest.raises(NotJudged, match="not judged, the machine or the client spoiled the run"):
        verdicts.server_series_agree(summary_with([0.0, 1.0, 2.0, 3.0], disagrees=True, busy=True), "r")
