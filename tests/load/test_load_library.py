"""LoadLibrary with Robot not running: `Run Load Profile` end to end against the scripted SSE server (given as a
URL in ``server=``), and every assertion keyword both passing on a good run and failing, with a message that says
why, on a bad one. Bad runs are the good run's summary with one thing changed, or records built by hand (worker
runs: Ray is never started here). Files go to a temporary folder (``_results`` is patched).
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest

import LoadLibrary as load_library
from llamatest import settings
from llamatest.load.analysis import validity
from llamatest.load.analysis.compare import VERDICTS
from llamatest.load.engine.record import RequestRecord, RunRecord
from llamatest.load.output.history import History
from llamatest.load.pipeline import LoadRun, SweepRun
from llamatest.load.workloads.datasets import Dataset
from llamatest.machine import NotJudged
from tests.fixtures.scripted_server import DONE, chat, usage
from tests.load.test_load_pipeline import STEADY

STREAM = [[0.004, chat({"role": "assistant", "content": None})], [0.004, chat({"content": "a"})],
          [0.004, chat({"content": "b"})], [0.004, chat({"content": "c"})], [0, chat({}, "length")],
          [0, usage(3, prompt=4)], [0, DONE]]
FAILING = [{"status": 500, "json": {"error": {"code": 500, "message": "scripted failure", "type": "server_error"}}}]
DATASET = Dataset("two", ("first prompt", "second prompt"))
SHORT = {"users": 2, "duration": 0.3, "max_tokens": 3}


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("results")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(load_library, "_results", lambda: path)
        mp.setenv("LLAMATEST_LOAD_HISTORY", str(path / "load-history"))
        for name, value in STEADY.items():  # the machine is shared: see test_load_pipeline.steady
            mp.setitem(validity.DEFAULT_THRESHOLDS, name, value)
        yield path


@pytest.fixture(scope="module")
def lib(results_dir):
    return load_library.LoadLibrary()


@pytest.fixture(scope="module")
def good(lib, scripted):
    return lib.run_load_profile(DATASET, "concurrency", server=scripted.url, name="good", script=STREAM, **SHORT)


def changed(load_run: LoadRun, **sections) -> LoadRun:
    """``load_run`` with parts of its summary replaced: ``counts={"dropped": 2}`` updates the counts."""
    summary = copy.deepcopy(load_run.summary)
    for name, values in sections.items():
        summary[name].update(values)
    return dataclasses.replace(load_run, summary=summary, comparisons=dict(load_run.comparisons))


# ---- Run Load Profile --------------------------------------------------------------------------------------


def test_run_load_profile_writes_the_run_and_its_history(good, results_dir, scripted):
    assert good.name == "good" and good.outdir == results_dir / "load" / "good"
    assert (good.outdir / "summary.json").is_file() and (good.outdir / "requests.jsonl").is_file()
    assert good.summary["target"]["base_url"] == scripted.url
    assert good.summary["counts"]["succeeded"] >= 2
    assert good.summary["run"]["config"]["request_params"]["script"] == STREAM, "extra options go into the body"
    assert [s["run"]["config_key"] for _, s in History(results_dir / "load-history").runs()] == [
        good.summary["run"]["config_key"]]


def test_a_second_run_is_judged_against_the_first(lib, scripted, good):
    again = lib.run_load_profile(DATASET, "concurrency", server=scripted.url, name="good", history=False,
                                 script=STREAM, **SHORT)
    lib.load_verdict_should_be(again, *VERDICTS)
    actual = again.comparisons["previous"]["verdict"]
    other = next(v for v in VERDICTS if v != actual)
    with pytest.raises(AssertionError, match=f"verdict against previous is {actual}.*, expected {other}"):
        lib.load_verdict_should_be(again, other)
    with pytest.raises(AssertionError, match="'good' has no baseline run to compare with"):
        lib.load_verdict_should_be(again, *VERDICTS, against="baseline")


def test_a_run_without_comparison_has_no_verdict(lib, good):
    with pytest.raises(AssertionError, match="'good' has no previous run to compare with"):
        lib.load_verdict_should_be(good, *VERDICTS)


def test_verdict_names_are_checked(lib, good):
    with pytest.raises(ValueError, match="expected verdict.s. improve: name one or more of improved, unchanged"):
        lib.load_verdict_should_be(good, "improve")
    with pytest.raises(ValueError, match="none given"):
        lib.load_verdict_should_be(good)


def test_a_saved_baseline_is_compared_by_name(lib, scripted, results_dir):
    options = {"server": scripted.url, "name": "based", "script": STREAM, "history": False, **SHORT}
    lib.run_load_profile(DATASET, "concurrency", save_baseline="release", **options)
    second = lib.run_load_profile(DATASET, "concurrency", baseline="release", **options)
    assert second.comparisons["baseline"]["config_key_match"] is True
    lib.load_verdict_should_be(second, *VERDICTS, against="baseline")
    assert (results_dir / "load-history" / "baselines" / "release.based.json").is_file()
    assert not (results_dir / "load-history" / "based").exists(), "history=False keeps the runs out of the history"


def test_compare_load_results(lib, good):
    cmp = lib.compare_load_results(dataclasses.replace(good, comparisons={}), good)
    assert cmp["config_key_match"] is True
    lib.load_verdict_should_be(dataclasses.replace(good, comparisons={"reference": cmp}), *VERDICTS,
                               against="reference")


# ---- SLO ---------------------------------------------------------------------------------------------------


def test_slo_met(lib, good):
    lib.load_results_should_meet_slo(good, ttft_p50_ms=60_000, tpot_p95_ms="60000", error_rate_max=0)


def test_slo_violated(lib, good):
    with pytest.raises(AssertionError, match=r"'good' misses its SLO: ttft p50 [\d.]+ ms > limit 0.001 ms"):
        lib.load_results_should_meet_slo(good, ttft_p50_ms=0.001, error_rate_max=0)


def test_slo_on_a_missing_percentile(lib, good):
    with pytest.raises(AssertionError, match=r"ttft p99: no value \(needs n >= 100, have \d+\)"):
        lib.load_results_should_meet_slo(good, ttft_p99_ms=60_000)


def test_slo_names_and_values_are_checked(lib, good):
    with pytest.raises(ValueError, match=r"unknown SLO 'ttft_p97_ms'; valid: <metric>_<stat>_ms .*error_rate_max"):
        lib.load_results_should_meet_slo(good, ttft_p97_ms=1)
    with pytest.raises(ValueError, match="SLO ttft_p50_ms must be a number; got 'fast'"):
        lib.load_results_should_meet_slo(good, ttft_p50_ms="fast")


def test_slo_from_calibration(lib, good):
    slo = lib.slo_from_calibration(good, factor=2, floor_ms=10)
    p50 = good.summary["metrics"]["ttft_ms"]["p50"]
    assert set(slo) == {"error_rate_max", "ttft_p95_ms", "tpot_p95_ms"}
    assert slo["ttft_p95_ms"] == round(2 * p50 + 10, 1) and slo["error_rate_max"] == 0.0


def test_slo_from_a_calibration_without_tpot(lib, good):
    bad = changed(good, metrics={"tpot_ms": {"n": 0, "p50": None}})
    with pytest.raises(AssertionError, match="calibration run 'good' has no tpot p50: it needs successful requests"):
        lib.slo_from_calibration(bad)


# ---- validity and requests ---------------------------------------------------------------------------------


def test_valid_run(lib, good):
    lib.load_results_should_be_valid(good)


def test_a_set_flag_fails_unless_allowed(lib, good):
    bad = changed(good, flags={"client_bound": {"set": True, "detail": "schedule lag p99 42 ms > 10 ms"}})
    with pytest.raises(AssertionError, match=r"'good' is not valid: client_bound \(schedule lag p99 42 ms > 10 ms\)"):
        lib.load_results_should_be_valid(bad)
    lib.load_results_should_be_valid(bad, "client_bound")


def test_a_machine_side_flag_skips_instead_of_failing(lib, good):
    busy = changed(good, flags={"machine_busy": {"set": True, "detail": "other processes used 1.62 cores"},
                                "oversaturated": {"set": True, "detail": "TTFT rose"}})
    with pytest.raises(NotJudged, match=r"^not judged, the machine or the client spoiled the run: machine_busy "
                                        r"\(other processes used 1.62 cores\)\. load run 'good' is not valid: "):
        lib.load_results_should_be_valid(busy)
    with pytest.raises(NotJudged, match=r"misses its SLO: ttft p50 [0-9.]+ ms > limit 0.001 ms"):
        lib.load_results_should_meet_slo(busy, ttft_p50_ms=0.001)


def test_a_server_side_flag_fails_even_on_a_busy_machine(lib, good):
    wrong = changed(good, flags={"machine_busy": {"set": True, "detail": "other processes used 1.62 cores"},
                                 "server_restarted": {"set": True, "detail": "process start time changed"}})
    with pytest.raises(AssertionError, match="server_restarted") as failure:
        lib.load_results_should_be_valid(wrong)
    assert not isinstance(failure.value, NotJudged)
    slow = changed(good, flags={"oversaturated": {"set": True, "detail": "TTFT rose"}})
    with pytest.raises(AssertionError, match="oversaturated") as failure:
        lib.load_results_should_be_valid(slow)
    assert not isinstance(failure.value, NotJudged)
    with pytest.raises(AssertionError, match="misses its SLO") as failure:
        lib.load_results_should_meet_slo(good, ttft_p50_ms=0.001)
    assert not isinstance(failure.value, NotJudged)


def test_unknown_allowed_flag(lib, good):
    with pytest.raises(ValueError, match="unknown validity flag.s. client_bond: known are client_bound, "):
        lib.load_results_should_be_valid(good, "client_bond")


def test_every_request_succeeded(lib, good):
    lib.every_load_request_should_succeed(good)
    lib.every_load_request_should_have_had(good, prompt_tokens=4, output_tokens=3)


def test_failing_requests(lib, scripted):
    bad = lib.run_load_profile(DATASET, "synchronous", max_requests=2, duration=2, server=scripted.url,
                               name="failing", history=False, script=FAILING)
    with pytest.raises(AssertionError, match=r"'failing': errored=2, no request succeeded; .*'http_5xx': 2"):
        lib.every_load_request_should_succeed(bad)


def test_dropped_requests(lib, good):
    with pytest.raises(AssertionError, match=r"'good': dropped=3; errors by class"):
        lib.every_load_request_should_succeed(changed(good, counts={"dropped": 3}))


def test_wrong_output_length(lib, good):
    with pytest.raises(AssertionError, match=r"n_out should be 5 for every request; \d+ values, others seen: \[3"):
        lib.every_load_request_should_have_had(good, output_tokens=5)
    no_samples = dataclasses.replace(good, summary={**good.summary, "samples": {}})
    with pytest.raises(AssertionError, match="n_in should be 4 for every request; 0 values"):
        lib.every_load_request_should_have_had(no_samples, prompt_tokens=4)


# ---- sweeps and capacity -----------------------------------------------------------------------------------


def sweep_summary(request_throughput: float, achieved: float = 1.0, shortfall: bool = False) -> dict:
    return {"throughput": {"window": {"request_throughput": request_throughput}, "achieved_rate": achieved},
            "flags": {"rate_shortfall": {"set": shortfall, "detail": ""}}}


def sweep_run(*points) -> SweepRun:
    return SweepRun(name="s", kind="sweep", result={"points": list(points)}, outdir=Path("/tmp"))


SYNC = {"kind": "synchronous", "load": 1.0, "profile": {"users": 1}, "summary": sweep_summary(1.0)}
TOP = {"kind": "concurrency", "load": 3.0, "profile": {"users": 4}, "summary": sweep_summary(3.0)}


def test_sweep_throughput_grows(lib):
    rate = {"kind": "rate", "load": 2.0, "summary": sweep_summary(2.0, achieved=2.0)}
    not_run = {"kind": "rate", "load": 2.5, "summary": None}
    lib.sweep_throughput_should_grow_with_the_load(sweep_run(SYNC, TOP, rate, not_run))


def test_sweep_throughput_that_does_not_grow(lib):
    flat = {**TOP, "summary": sweep_summary(0.9)}
    with pytest.raises(AssertionError, match="4 users served 0.90 req/s, not more than one user's 1.00 req/s"):
        lib.sweep_throughput_should_grow_with_the_load(sweep_run(SYNC, flat))


def test_sweep_rate_shortfall(lib):
    short = {"kind": "rate", "load": 2.0, "summary": sweep_summary(1.2, achieved=1.2, shortfall=True)}
    with pytest.raises(AssertionError, match="rate points fell short of their targets: 2.00/s achieved 1.20/s"):
        lib.sweep_throughput_should_grow_with_the_load(sweep_run(SYNC, TOP, short))


def test_run_load_sweep_with_several_users(lib, scripted, results_dir):
    run = lib.run_load_sweep(DATASET, points=0, users=2, duration=0.25, server=scripted.url, name="sweep",
                             max_tokens=3, script=STREAM)
    assert [p["kind"] for p in run.points] == ["synchronous", "concurrency"]
    assert run.points[1]["profile"]["users"] == 2
    assert (results_dir / "load" / "sweep" / "sweep.json").is_file()


def test_find_capacity_needs_an_slo(lib, scripted):
    with pytest.raises(ValueError, match="Find Capacity Under SLO needs slo="):
        lib.find_capacity_under_slo(DATASET, 1, 2, server=scripted.url)


def capacity_run(value, points) -> SweepRun:
    return SweepRun(name="c", kind="capacity", outdir=Path("/tmp"),
                    result={"capacity": value, "bracket": [value, 8.0] if value else [None, 2.0], "points": points})


def test_capacity_found(lib):
    found = capacity_run(4.0, [{"load": 4.0, "meets": True, "violations": []}])
    assert lib.capacity_should_have_been_found(found) == 4.0


def test_capacity_not_found(lib):
    points = [{"load": 2.0, "meets": False, "violations": ["ttft p95 900.0 ms > limit 500 ms", "invalid point: x"]}]
    with pytest.raises(AssertionError, match=r"no load from \[None, 2.0\] met the SLO: ttft p95 900.0 ms > limit"
                                             r" 500 ms; invalid point: x"):
        lib.capacity_should_have_been_found(capacity_run(None, points))


# ---- workers -----------------------------------------------------------------------------------------------


def worker_run(workers, senders) -> LoadRun:
    requests = [RequestRecord(index=i, t_scheduled=0.1 * i, worker=w) for i, w in enumerate(senders)]
    run = RunRecord(profile={"kind": "rate"}, target={}, t0_wall=0.0, t0_perf=0.0, requests=requests,
                    workers=workers)
    return LoadRun(name="sharded", run=run, summary={}, outdir=Path("/tmp"))


TWO = [{"id": 0, "host": "a", "offset_s": 0.0}, {"id": 1, "host": "b", "offset_s": 0.0004}]


def test_workers_used(lib):
    lib.load_run_should_have_used_workers(worker_run(TWO, [0, 1, 0, 1]), 2)


def test_wrong_worker_count(lib):
    with pytest.raises(AssertionError, match="'sharded' used 2 workers, expected 3"):
        lib.load_run_should_have_used_workers(worker_run(TWO, [0, 1]), 3)


def test_idle_worker(lib):
    with pytest.raises(AssertionError, match=r"worker\(s\) \[1\] sent no request: \{0: 2, 1: 0\}"):
        lib.load_run_should_have_used_workers(worker_run(TWO, [0, 0]), 2)


def test_worker_without_clock_offset(lib):
    workers = [TWO[0], {"id": 1, "host": "b", "offset_s": None}]
    with pytest.raises(AssertionError, match=r"worker\(s\) \[1\] have no measured clock offset"):
        lib.load_run_should_have_used_workers(worker_run(workers, [0, 1]), 2)


# ---- arguments ---------------------------------------------------------------------------------------------


def test_ramp_text():
    assert load_library._ramp("0:1 10:2.5  20:4") == ((0.0, 1.0), (10.0, 2.5), (20.0, 4.0))
    assert load_library._ramp("") == ()


@pytest.mark.parametrize(("text", "message"), [
    ("0:1 10", "ramp step '10' needs a colon: 'at_s:rate'"),
    ("0:fast", "ramp steps are 'at_s:rate' pairs separated by spaces, like '0:1 10:2'; got '0:fast'"),
    ("0:1,10:2", "ramp steps are 'at_s:rate' pairs .* got '0:1,10:2'"),
])
def test_bad_ramp_text(text, message):
    with pytest.raises(ValueError, match=message):
        load_library._ramp(text)


def test_run_names_are_folder_safe():
    assert load_library._safe_name(" My Test: <ok> ") == "my-test---ok"
    assert load_library._safe_name("v1.2_run") == "v1.2_run"
    for name in ("..", ".", "../..", "???"):
        assert load_library._safe_name(name) == "load", "a name never leaves the load folder"


def test_history_stays_in_one_place_whatever_the_output_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("LLAMATEST_LOAD_HISTORY", raising=False)
    assert load_library._history() == settings.RESULTS / "load-history"
    monkeypatch.setenv("LLAMATEST_LOAD_HISTORY", str(tmp_path))
    assert load_library._history() == tmp_path
