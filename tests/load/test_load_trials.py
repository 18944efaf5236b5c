"""trials.py: repeated trials, their between-trial intervals, and verdicts that use the spread between trials."""

from __future__ import annotations

import numpy as np
import pytest
from test_load_results import summary_from_samples

from llamatest.load.analysis import compare as plain
from llamatest.load.analysis import trials


def trial(ttft_center: float, throughput: float = 2.0, n: int = 200, seed: int = 0) -> dict:
    """One trial's summary: tight TTFT samples around ``ttft_center`` ms (little noise inside the run)."""
    rng = np.random.default_rng(seed)
    ttft = list(ttft_center + rng.normal(0, 0.2, n))
    summary = summary_from_samples({"ttft_ms": ttft})
    summary["throughput"]["window"]["request_throughput"] = throughput
    return summary


def repeated(centers: list[float], throughputs: list[float] | None = None) -> dict:
    """A repeated run: the last trial's summary with the trials block of all of them."""
    runs = [trial(c, t, seed=i) for i, (c, t) in enumerate(zip(centers, throughputs or [2.0] * len(centers),
                                                             strict=True))]
    return {**runs[-1], "trials": trials.trials_block(runs, restart=None)}


def test_trials_block_gives_each_figure_its_values_and_interval():
    block = repeated([10.0, 12.0, 11.0])["trials"]
    assert block["n"] == 3 and block["server_restarted"] is False
    values = block["values"]["ttft_ms.p50"]
    assert len(values) == 3 and values == pytest.approx([10.0, 12.0, 11.0], abs=0.1)
    iv = block["intervals"]["ttft_ms.p50"]
    assert iv["lo"] < iv["mean"] < iv["hi"] and iv["mean"] == pytest.approx(11.0, abs=0.1)
    # t interval of 3 values with s = 1: mean ± 4.303 / sqrt(3)
    assert iv["hi"] - iv["mean"] == pytest.approx(4.303 * np.std(values, ddof=1) / np.sqrt(3), rel=1e-3)
    assert trials.describe(block) == "3 trials, server not restarted between trials"


def test_between_trial_drift_is_not_called_a_regression():
    """The case of the issue: the last trials differ by 2 ms but trials of one build drift by that much."""
    reference, current = repeated([10.0, 13.0, 11.0]), repeated([12.0, 10.0, 13.0])
    within = plain.compare(current, reference, metrics=["ttft_ms"])
    assert within["metrics"]["ttft_ms.p50"]["verdict"] == "regressed"
    between = trials.compare(current, reference, metrics=["ttft_ms"])
    entry = between["metrics"]["ttft_ms.p50"]
    assert entry["verdict"] == "inconclusive" and entry["n"] == [3, 3]
    assert entry["basis"] == "between-trial interval of the difference of means, 3 vs 3 trials"
    assert between["verdict"] == "inconclusive"


def test_a_shift_beyond_the_between_trial_spread_is_a_regression():
    reference, current = repeated([10.0, 10.5, 10.2]), repeated([20.0, 20.4, 20.1])
    result = trials.compare(current, reference, metrics=["ttft_ms", "request_throughput"])
    assert result["metrics"]["ttft_ms.p50"]["verdict"] == "regressed"
    lo, hi = result["metrics"]["ttft_ms.p50"]["ci"]
    assert 9.0 < lo < 9.9 < 10.0 < hi < 10.8
    assert result["verdict"] == "regressed"


def test_identical_trials_are_unchanged_and_throughput_direction_is_respected():
    same = repeated([10.0, 10.0, 10.0], [2.0, 2.0, 2.0])
    assert trials.compare(same, same, metrics=["ttft_ms"])["metrics"]["ttft_ms.p50"]["verdict"] == "unchanged"
    faster = repeated([10.0, 10.0, 10.0], [3.0, 3.1, 2.9])
    slower = repeated([10.0, 10.0, 10.0], [2.0, 2.1, 1.9])
    entry = trials.compare(slower, faster, metrics=["request_throughput"])["metrics"]["request_throughput"]
    assert entry["verdict"] == "regressed" and entry["ci"][0] > 0  # positive = worse


def test_one_side_with_trials_uses_a_prediction_interval():
    reference = repeated([10.0, 11.0, 12.0])
    single = trial(11.5)
    lo, hi = trials.difference_interval([11.5], reference["trials"]["values"]["ttft_ms.p50"])
    assert lo < 0 < hi
    entry = trials.compare(single, reference, metrics=["ttft_ms"])["metrics"]["ttft_ms.p50"]
    assert entry["n"] == [1, 3] and entry["verdict"] == "inconclusive"


def test_single_runs_keep_the_within_run_verdict():
    a, b = trial(10.0), trial(10.0, seed=1)
    assert trials.compare(a, b, metrics=["ttft_ms"]) == plain.compare(a, b, metrics=["ttft_ms"])


def test_different_configurations_stay_incomparable():
    a, b = repeated([10.0, 11.0]), repeated([10.0, 11.0])
    b["run"]["config_key"] = "other"
    assert trials.compare(a, b)["verdict"] == "incomparable"


def test_run_trials_restarts_between_trials_only():
    calls = []
    out = trials.run_trials(lambda i: calls.append(f"run {i}") or i, 3, restart=lambda: calls.append("restart"))
    assert out == [1, 2, 3] and calls == ["run 1", "restart", "run 2", "restart", "run 3"]
    with pytest.raises(ValueError, match="repeats must be an int >= 1"):
        trials.run_trials(lambda i: i, 0)
