"""compare.py: direction-aware, noise-aware verdicts that refuse runs of another configuration."""

from __future__ import annotations

import time

import numpy as np
import pytest
from test_load_results import summary_from_samples

from llamatest.load.analysis.compare import bootstrap_diff_ci, bootstrap_diff_cis, compare, overall_verdict

LATENCY = ["ttft_ms", "tpot_ms"]


def latencies(n: int = 200, *, scale: float = 1.0, sigma: float = 0.1, seed: int = 1) -> dict[str, list[float]]:
    rng = np.random.default_rng(seed)
    return {"ttft_ms": list(scale * 100 * np.exp(rng.normal(0, sigma, n))),
            "tpot_ms": list(scale * 20 * np.exp(rng.normal(0, sigma, n)))}


def run_with(samples: dict, key: str = "k1", **kw) -> dict:
    return summary_from_samples(samples, config_key_=key, **kw)


def throughput(output: float, *, error_rate: float = 0.0) -> dict:
    return {"window": {"duration_s": 10.0, "request_throughput": output / 32, "output_throughput": output},
            "error_rate": error_rate}


def test_identical_samples_are_unchanged():
    base = latencies()
    result = compare(run_with(base), run_with(base), metrics=LATENCY)
    assert result["verdict"] == "unchanged" and result["config_key_match"] is True
    assert set(result["metrics"]) == {"ttft_ms.p50", "ttft_ms.p95", "tpot_ms.p50", "tpot_ms.p95"}
    for entry in result["metrics"].values():
        lo, hi = entry["ci"]
        assert lo <= 0 <= hi and entry["delta"] == 0 and entry["direction"] == "lower-better"


def test_a_fresh_sample_of_the_same_distribution_is_not_a_regression():
    result = compare(run_with(latencies(seed=2)), run_with(latencies(seed=3)), metrics=LATENCY)
    assert result["verdict"] in ("unchanged", "inconclusive")


def test_thirty_percent_slower_is_regressed():
    result = compare(run_with(latencies(scale=1.3, seed=2)), run_with(latencies(seed=3)), metrics=LATENCY)
    assert result["verdict"] == "regressed"
    ttft = result["metrics"]["ttft_ms.p50"]
    assert ttft["verdict"] == "regressed" and ttft["delta"] > ttft["tol"] > 0
    assert ttft["ci"][0] > ttft["tol"] and 0.2 < ttft["delta_rel"] < 0.4


def test_faster_is_improved_with_a_negative_delta():
    result = compare(run_with(latencies(scale=0.7, seed=2)), run_with(latencies(seed=3)), metrics=LATENCY)
    assert result["verdict"] == "improved"
    assert all(e["verdict"] == "improved" and e["delta"] < 0 and e["ci"][1] < -e["tol"]
               for e in result["metrics"].values())


def test_a_noisy_small_sample_is_inconclusive():
    current = run_with(latencies(30, scale=1.08, sigma=0.6, seed=4))
    result = compare(current, run_with(latencies(30, sigma=0.6, seed=5)), metrics=["ttft_ms"])
    assert result["metrics"]["ttft_ms.p50"]["verdict"] == "inconclusive"
    assert result["verdict"] == "inconclusive"


def test_too_few_samples_for_a_p95_are_inconclusive_and_say_so():
    result = compare(run_with(latencies(12)), run_with(latencies(12)), metrics=["ttft_ms"])
    p95 = result["metrics"]["ttft_ms.p95"]
    assert p95["verdict"] == "inconclusive" and p95["ci"] is None
    assert p95["note"] == "p95 needs n >= 20 on both sides, have 12 (current) and 12 (reference)"
    assert result["metrics"]["ttft_ms.p50"]["verdict"] == "unchanged"


def test_different_configuration_keys_are_incomparable_everywhere():
    current = run_with(latencies(scale=2.0), key="k1")
    reference = run_with(latencies(), key="k2")
    current["run"]["config"] = {"server_build": "b2", "profile": {"kind": "rate"}}
    reference["run"]["config"] = {"server_build": "b1", "profile": {"kind": "rate"}}
    result = compare(current, reference)
    assert result["verdict"] == "incomparable" and result["config_key_match"] is False
    assert {e["verdict"] for e in result["metrics"].values()} == {"incomparable"}
    assert result["config_diff"] == ["server_build"]
    assert result["note"].startswith("configuration keys differ (server_build)")


def test_a_run_without_a_key_is_incomparable():
    current = run_with(latencies())
    del current["run"]["config_key"]
    result = compare(current, run_with(latencies()), metrics=LATENCY)
    assert result["verdict"] == "incomparable" and "no configuration key" in result["note"]


@pytest.mark.parametrize(("output", "verdict", "sign"), [(140.0, "improved", -1), (60.0, "regressed", 1),
                                                         (105.0, "inconclusive", -1)])
def test_throughput_is_higher_better(output, verdict, sign):
    current = run_with(latencies(), throughput=throughput(output))
    result = compare(current, run_with(latencies(), throughput=throughput(100.0)), metrics=["output_throughput"])
    entry = result["metrics"]["output_throughput"]
    assert (entry["verdict"], entry["direction"]) == (verdict, "higher-better")
    assert np.sign(entry["delta"]) == sign and entry["basis"] == "one run per side"
    assert "wide tolerance" in entry["note"]


def test_error_rate_is_lower_better_and_equal_values_are_unchanged():
    same = compare(run_with(latencies(), throughput=throughput(100)), run_with(latencies(), throughput=throughput(100)),
                   metrics=["error_rate"])
    assert same["metrics"]["error_rate"]["verdict"] == "unchanged"
    worse = compare(run_with(latencies(), throughput=throughput(100, error_rate=0.2)),
                    run_with(latencies(), throughput=throughput(100)), metrics=["error_rate"])
    assert worse["metrics"]["error_rate"]["verdict"] == "regressed"
    assert worse["metrics"]["error_rate"]["delta"] == pytest.approx(0.2)


def test_repeats_give_run_level_metrics_a_real_interval():
    current = run_with(latencies(), throughput=throughput(80.0))
    reference = run_with(latencies(), throughput=throughput(100.0))
    current["repeats"] = {"output_throughput": [79.0, 80.0, 81.0, 80.5, 79.5]}
    reference["repeats"] = {"throughput.window.output_throughput": [99.0, 100.0, 101.0, 100.5, 99.5]}
    entry = compare(current, reference, metrics=["output_throughput"])["metrics"]["output_throughput"]
    assert entry["verdict"] == "regressed" and entry["basis"].endswith("5 vs 5 repeats")
    assert entry["ci"][0] > entry["tol"] and entry["current"] == 80.0


def test_tolerances_can_be_widened_per_metric():
    slower = run_with(latencies(scale=1.3, seed=2))
    result = compare(slower, run_with(latencies(seed=3)), metrics=["ttft_ms"], tolerances={"ttft_ms": (0.6, 0.0)})
    assert result["verdict"] == "unchanged"
    assert result["metrics"]["ttft_ms.p50"]["tol"] == pytest.approx(0.6 * result["metrics"]["ttft_ms.p50"]["reference"])


def test_metrics_missing_on_one_side_are_skipped_with_the_reason():
    current = run_with({**latencies(), "itl_token_ms": [1.0] * 50})
    result = compare(current, run_with(latencies()), metrics=["ttft_ms", "itl_token_ms", "capacity"])
    assert result["skipped"] == {"itl_token_ms": "no samples in reference", "capacity": "not in both runs"}


def test_default_metrics_and_validity_warnings():
    flags = {"client_bound": {"set": True, "detail": "loop lag p99 40 ms"}, "dropped": {"set": False}}
    current = run_with(latencies(), flags=flags, throughput=throughput(101.0))
    result = compare(current, run_with(latencies(), throughput=throughput(100.0)))
    assert {"ttft_ms.p95", "tpot_ms.p50", "output_throughput", "request_throughput", "error_rate"} <= set(
        result["metrics"])
    assert result["warnings"] == ["current: client_bound (loop lag p99 40 ms)"]
    assert result["verdict"] == "inconclusive"  # single-run throughput cannot be called unchanged
    assert sum(result["counts"].values()) == len(result["metrics"])


@pytest.mark.parametrize(("verdicts", "overall"), [
    (["unchanged", "improved", "regressed", "inconclusive"], "regressed"),
    (["unchanged", "improved", "inconclusive"], "inconclusive"),
    (["unchanged", "improved"], "improved"),
    (["unchanged"], "unchanged"),
    ([], "unchanged"),
])
def test_overall_verdict_order(verdicts, overall):
    assert overall_verdict(verdicts) == overall


def test_comparison_is_deterministic_and_fast_on_large_samples():
    rng = np.random.default_rng(9)
    big = {"itl_token_ms": list(rng.gamma(4.0, 5.0, 60_000))}
    started = time.perf_counter()
    first = compare(run_with(big), run_with(big), metrics=["itl_token_ms"])
    assert time.perf_counter() - started < 5
    assert first == compare(run_with(big), run_with(big), metrics=["itl_token_ms"])


def test_bootstrap_interval_of_a_known_shift_contains_it():
    rng = np.random.default_rng(3)
    ref = rng.normal(100, 5, 400)
    lo, hi = bootstrap_diff_ci(ref + 10, ref, 50.0, seed=1)
    assert lo < 10 < hi and hi - lo < 3
    with pytest.raises(ValueError, match="resamples must be >= 1000"):
        compare(run_with(latencies()), run_with(latencies()), resamples=100)


def test_bootstrap_intervals_agree_with_resamples_drawn_whole():
    """The order-statistic draw gives the intervals of resamples drawn value by value (the textbook bootstrap,
    the code before), to within their Monte Carlo error."""
    rng = np.random.default_rng(5)
    cur, ref, qs = rng.gamma(4.0, 5.0, 300), rng.gamma(4.0, 5.2, 280), [50.0, 95.0]
    draw = np.random.default_rng(11)
    sides = [np.percentile(x[draw.integers(0, len(x), size=(20_000, len(x)))], qs, axis=1) for x in (cur, ref)]
    expected = np.percentile(sides[0] - sides[1], [2.5, 97.5], axis=1).T
    got = np.array(bootstrap_diff_cis(cur, ref, qs, resamples=20_000))
    width = (expected[:, 1] - expected[:, 0])[:, None]
    assert np.all(np.abs(got - expected) < 0.05 * width)
