"""The verdicts on a load run (llamatest.load.analysis.verdicts), on synthetic summaries: whose fault a flag is
decides between a failure and a run not judged; the messages carry the figures."""

from __future__ import annotations

import pytest

from llamatest.load.analysis import verdicts
from llamatest.machine import NotJudged


def flags(**set_flags: str) -> dict:
    """A summary whose flags are those given as set (name=detail), and a quiet ``dropped``."""
    found = {"dropped": {"set": False, "detail": "0 dropped"}}
    found.update({name: {"set": True, "detail": detail} for name, detail in set_flags.items()})
    return {"flags": found}


def test_a_miss_on_a_busy_machine_is_not_judged_and_on_a_quiet_one_fails():
    with pytest.raises(NotJudged, match=r"^not judged, the machine or the client spoiled the run: machine_busy "
                                        r"\(steal 40 %\)\. late$"):
        verdicts.judge(flags(machine_busy="steal 40 %"), "r", "late")
    with pytest.raises(AssertionError, match="^late$") as failed:
        verdicts.judge(flags(), "r", "late")
    assert not isinstance(failed.value, NotJudged)


def test_a_server_correctness_flag_fails_even_beside_a_machine_side_one():
    summary = flags(osl_mismatch="3 requests", client_bound="cpu 99 %")
    with pytest.raises(AssertionError) as failed:
        verdicts.is_valid(summary, "r")
    assert not isinstance(failed.value, NotJudged)
    assert str(failed.value) == "load run 'r' is not valid: osl_mismatch (3 requests); client_bound (cpu 99 %)"


def test_an_allowed_flag_passes_and_an_unknown_one_is_refused():
    verdicts.is_valid(flags(dropped="2 dropped"), "r", ("dropped",))
    with pytest.raises(ValueError, match="unknown validity flag"):
        verdicts.is_valid(flags(), "r", ("droped",))


def test_timeouts_beside_a_machine_side_flag_are_not_judged_but_errors_fail():
    counts = {"succeeded": 8, "errored": 2, "errors_by_class": {"timeout_ttft": 2}}
    with pytest.raises(NotJudged):
        verdicts.every_request_succeeded({**flags(machine_busy="x"), "counts": counts}, "r")
    counts = {**counts, "errors_by_class": {"http_5xx": 2}}
    with pytest.raises(AssertionError, match=r"^load run 'r': errored=2; errors by class: \{'http_5xx': 2\}$"):
        verdicts.every_request_succeeded({**flags(machine_busy="x"), "counts": counts}, "r")


def test_slo_from_calibration_is_factor_times_p50_plus_floor():
    summary = {"metrics": {"ttft_ms": {"p50": 10.0}, "tpot_ms": {"p50": 2.5}}}
    assert verdicts.slo_from_calibration(summary, "cal", 4.0, 25.0, 0) == {
        "error_rate_max": 0.0, "ttft_p95_ms": 65.0, "tpot_p95_ms": 35.0}


def test_a_disconnect_run_names_every_problem():
    out = {"streams": 4, "statuses": [200, 200, 200, 500], "hung_up": 2, "finished_ok": 1, "idle_after_s": None,
           "followup": 4, "followup_ok": 4, "followup_errors": []}
    with pytest.raises(AssertionError, match=r"^after hanging up half the streams at once: statuses \[200, 200, 200, "
                                             r"500\]; 1 of the 2 streams left open ended normally; slots still "
                                             r"processing 5 s after the last open answer ended$"):
        verdicts.recovered_from_disconnects(out, 5)
