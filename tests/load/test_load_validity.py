"""validity.py: each flag set and not set on hand-built runs, the slope t-test and oversaturation."""

from __future__ import annotations

import numpy as np
import pytest

from llamatest.load.analysis.summary import summarize
from llamatest.load.analysis.validity import DEFAULT_THRESHOLDS, invalid_reasons, trend, validity_flags
from llamatest.load.engine.record import LoadEvent, RequestRecord, RunRecord

approx = pytest.approx


def req(index, t_disp, ttft=0.1, gaps=(0.05, 0.05), *, duration=None, t_sched=None, usage=True, cache_n=0,
        predicted_n=None, n_requested=None, coalesced=False, prompt_expected=None):
    t = t_disp + ttft
    events = [LoadEvent(t_disp + ttft / 2, "role"), LoadEvent(t, "content", n_chars=2)]
    for g in gaps:
        t += g
        events.append(LoadEvent(t, "content", n_chars=2, coalesced=coalesced))
    n = len(gaps) + 1
    timings = {"prompt_n": 20 - cache_n, "cache_n": cache_n, "predicted_n": n if predicted_n is None else predicted_n}
    events.append(LoadEvent(t, "usage", usage={"completion_tokens": n, "prompt_tokens": 20} if usage else None,
                            timings=timings))
    end = t_disp + duration if duration is not None else t + 0.01
    return RequestRecord(index, t_disp if t_sched is None else t_sched, t_dispatched=t_disp, t_headers=t_disp + ttft,
                         t_done=end, t_closed=end, status=200, outcome="finish_length", n_requested=n_requested,
                         n_prompt_expected=prompt_expected, events=events)


def run_of(requests, window=(0.0, 10.0), profile=None, **kw):
    return RunRecord(profile=profile or {"kind": "concurrency", "users": 1}, target={}, t0_wall=0.0, t0_perf=0.0,
                     window=window, requests=requests, **kw)


def flags(run, **kw):
    return summarize(run, resamples=0, **kw)["flags"]


def steady(n=20, **kw):
    return [req(i, i * 0.5, **kw) for i in range(n)]


def test_a_clean_run_sets_no_flag_except_missing_p99():
    f = flags(run_of(steady(), telemetry=[{"t": 0.0, "process_start_time_unix": 5.0}, {"t": 9.0}]))
    assert [k for k, v in f.items() if v["set"]] == ["insufficient_samples"]
    assert "ttft_ms p99 (needs n >= 100, have 20)" in f["insufficient_samples"]["detail"]
    assert all(v["detail"] for v in f.values())


def test_insufficient_samples_not_set_with_enough():
    f = flags(run_of([req(i, i * 0.05) for i in range(120)], window=(0.0, 6.0)))
    assert f["insufficient_samples"]["set"] is False


def test_client_bound_by_schedule_lag_loop_lag_or_cpu():
    assert flags(run_of(steady()))["client_bound"]["set"] is False
    lagged = [req(i, i * 0.5 + 0.05, t_sched=i * 0.5) for i in range(20)]
    f = flags(run_of(lagged))["client_bound"]
    assert f["set"] and "schedule lag p99 50.00 ms (limit 10 ms)" in f["detail"]
    f = flags(run_of(steady(), loop_lag=[(i, 0.03) for i in range(10)]))["client_bound"]
    assert f["set"] and "event-loop lag" in f["detail"]
    assert flags(run_of(steady(), cpu=[(i, 99.0) for i in range(10)]))["client_bound"]["set"]
    assert not flags(run_of(steady(), cpu=[(i, 99.0) for i in range(10)]),
                     thresholds={"cpu_pct": 100.0})["client_bound"]["set"]


def test_rate_shortfall():
    rate = {"kind": "rate", "rate": 2.0}
    assert flags(run_of(steady(), profile=rate))["rate_shortfall"]["set"] is False  # 20 in 10 s
    # a seeded schedule that holds fewer arrivals than target x duration is the load asked for, not a shortfall
    f = flags(run_of(steady(15), profile=rate))["rate_shortfall"]
    assert not f["set"] and "1.500/s offered by the schedule (target 2/s)" in f["detail"]
    late = steady(15) + [RequestRecord(i, i * 0.5, error="dropped") for i in range(15, 20)]
    f = flags(run_of(late, profile=rate))["rate_shortfall"]
    assert f["set"] and "achieved 1.500/s of 2.000/s" in f["detail"] and "ratio 0.750" in f["detail"]
    assert "closed-loop" in flags(run_of(steady()))["rate_shortfall"]["detail"]


def test_dropped_flag():
    assert flags(run_of(steady()))["dropped"]["set"] is False
    f = flags(run_of(steady() + [RequestRecord(20, 9.9, error="dropped")]))["dropped"]
    assert f["set"] and "1 of 21" in f["detail"]


def test_cache_contaminated_only_in_cold_runs():
    cached = steady(9) + [req(9, 5.0, cache_n=4)]
    f = flags(run_of(cached))["cache_contaminated"]
    assert f["set"] and "1 of 10 requests" in f["detail"] and "4 of 200" in f["detail"]
    assert flags(run_of(cached), cold=False)["cache_contaminated"]["set"] is False
    assert flags(run_of(cached), thresholds={"cached_fraction_max": 0.05})["cache_contaminated"]["set"] is False
    assert flags(run_of(steady(10)))["cache_contaminated"]["set"] is False
    server = [{"t": 0.0, "metrics": {"llamacpp:prompt_tokens_cached_total": 0}},
              {"t": 9.0, "metrics": {"llamacpp:prompt_tokens_cached_total": 4}}]
    assert "grew by 4" in flags(run_of(cached, telemetry=server))["cache_contaminated"]["detail"]


def test_token_count_mismatch():
    assert flags(run_of(steady()))["token_count_mismatch"]["set"] is False
    f = flags(run_of(steady(19) + [req(19, 9.5, predicted_n=4)]))["token_count_mismatch"]
    assert f["set"] and "usage=3, timings=4" in f["detail"]
    f = flags(run_of(steady(19) + [req(19, 9.5, prompt_expected=25)]))["token_count_mismatch"]
    assert f["set"] and "prompt usage=20, timings=20, expected=25" in f["detail"]


def test_osl_mismatch():
    assert flags(run_of(steady(n_requested=3)))["osl_mismatch"]["set"] is False
    f = flags(run_of(steady(n_requested=4)))["osl_mismatch"]
    assert f["set"] and "3 tokens (usage) for 4 requested" in f["detail"]
    assert "no request states" in flags(run_of(steady()))["osl_mismatch"]["detail"]


def test_server_restarted():
    same = [{"t": 0.0, "process_start_time_unix": 100.0}, {"t": 5.0, "process_start_time_unix": 100.0}]
    assert flags(run_of(steady(), telemetry=same))["server_restarted"]["set"] is False
    moved = same + [{"t": 6.0, "process_start_time_unix": 160.0}]
    f = flags(run_of(steady(), telemetry=moved))["server_restarted"]
    assert f["set"] and "100, 160" in f["detail"]
    fell = [{"t": 0.0, "metrics": {"llamacpp:tokens_predicted_total": 50}},
            {"t": 5.0, "metrics": {"llamacpp:tokens_predicted_total": 3}}]
    assert flags(run_of(steady(), telemetry=fell))["server_restarted"]["set"] is True


def test_high_coalescing():
    assert flags(run_of(steady()))["high_coalescing"]["set"] is False
    f = flags(run_of(steady(coalesced=True)))["high_coalescing"]
    assert f["set"] and "40 of 40 chunk gaps" in f["detail"]


def overloaded(n=60, rate=6.0, service=0.5, slots=2):
    """An open loop faster than a 2-slot server that needs 0.5 s per request: the queue grows without bound."""
    free = [0.0] * slots
    out = []
    for i in range(n):
        t = i / rate
        slot = min(range(slots), key=lambda s: free[s])
        start = max(t, free[slot])
        free[slot] = start + service
        out.append(req(i, t, ttft=start - t + 0.05, gaps=(0.05,) * 3, duration=start - t + service))
    return out


def test_oversaturated_when_ttft_and_in_flight_rise():
    run = run_of(overloaded(), window=(0.0, 10.0), profile={"kind": "rate", "rate": 6.0})
    f = flags(run)["oversaturated"]
    assert f["set"] is True and "p=" in f["detail"]


def test_not_oversaturated_below_capacity():
    run = run_of(overloaded(rate=3.0), window=(0.0, 20.0), profile={"kind": "rate", "rate": 3.0})
    f = flags(run)["oversaturated"]
    assert f["set"] is False
    assert "needs >= 8" in flags(run_of(steady(5)))["oversaturated"]["detail"]


def test_trend_gives_the_one_sided_p_value_of_a_rising_slope():
    x = np.arange(20.0)
    rising = 0.05 * x + np.random.default_rng(1).normal(0, 0.1, 20)
    t_crit = 1.734  # Student's t, 18 degrees of freedom, one-sided 5 %
    assert trend(x, rising)["t"] > t_crit and trend(x, rising)["p"] < 0.05
    assert trend(x, 3 * x + 1)["p"] == 0.0 and trend(x, 3 * x + 1)["slope"] == approx(3)
    assert trend(x, np.full(20, 4.0))["p"] == 0.5
    noisy = trend(x, np.random.default_rng(0).normal(0, 1, 20))
    assert noisy["p"] > 0.05


def test_thresholds_are_validated_and_invalid_reasons_lists_set_flags():
    run = run_of(steady())
    with pytest.raises(ValueError, match="unknown validity threshold 'cpu'"):
        validity_flags(run, summarize(run, resamples=0), thresholds={"cpu": 1})
    assert "cpu_pct" in DEFAULT_THRESHOLDS
    s = summarize(run_of(steady(), cpu=[(1.0, 99.0)]), resamples=0)
    assert invalid_reasons(s) == [f"client_bound: {s['flags']['client_bound']['detail']}"]


def test_machine_busy_from_the_share_of_other_processes():
    assert flags(run_of(steady()))["machine_busy"] == {"set": False, "detail": "not measured (a run sharded over "
                                                       "workers, or an old record)"}
    quiet = flags(run_of(steady(), meta={"machine": {"other_cores": 0.05, "own_cores": 1.2, "seconds": 9.5}}))
    assert quiet["machine_busy"]["set"] is False
    busy = flags(run_of(steady(), meta={"machine": {"other_cores": 1.62, "own_cores": 0.4, "seconds": 9.5}}))
    assert busy["machine_busy"] == {"set": True, "detail": "other processes used 1.62 cores on average over the "
                                    "9.5 s run (limit 0.25); this run's own processes (client, servers) 0.40"}
