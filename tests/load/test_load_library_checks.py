"""LoadLibrary's checks beyond one pass, with Robot not running, against the scripted SSE server: answers sent
again alone, repeated trials, server sampling, and the keywords that judge them."""

from __future__ import annotations

import dataclasses

import pytest

from llamatest.load.analysis.compare import compare
from tests.load.test_load_library import DATASET, SHORT, STREAM, changed, lib, results_dir  # noqa: F401


@pytest.fixture(scope="module")
def checked(lib, scripted):  # noqa: F811
    return lib.run_load_profile(DATASET, "concurrency", server=scripted.url, name="checked", script=STREAM,
                                check_answers=2, **SHORT)


def test_answers_sent_again_match_and_the_keyword_passes(lib, checked):  # noqa: F811
    check = checked.summary["answers"]["check"]
    assert check["checked"] == 2 and check["changed"] == [] and check["errors"] == []
    assert checked.summary["flags"]["answer_changed_under_load"]["set"] is False
    lib.answers_should_not_change_under_load(checked)


def test_a_changed_answer_fails_with_both_texts(lib, checked):  # noqa: F811
    bad = changed(checked, answers={"check": {**checked.summary["answers"]["check"], "changed": [
        {"index": 4, "request_id": "x-4", "under_load": "abd", "alone": "abc"}]}})
    with pytest.raises(AssertionError, match="answer_changed_under_load: 1 of 2 answers differ when sent again "
                       "alone: request 4: under load 'abd', alone 'abc'"):
        lib.answers_should_not_change_under_load(bad)


def test_answer_keyword_needs_a_checked_run(lib, scripted):  # noqa: F811
    plain = lib.run_load_profile(DATASET, "concurrency", server=scripted.url, name="plain", script=STREAM,
                                 history=False, **SHORT)
    with pytest.raises(ValueError, match="'plain' sent no answer again: give check_answers"):
        lib.answers_should_not_change_under_load(plain)


def test_counters_of_a_server_without_token_counters_are_not_judged(lib, checked):  # noqa: F811
    with pytest.raises(AssertionError, match="counters not compared: the server's /metrics has no token counters"):
        lib.server_token_counters_should_agree_with_the_client(checked)
    assert checked.summary["flags"]["counter_mismatch"]["set"] is False


def test_repeated_trials_are_judged_from_their_spread(lib, scripted, results_dir):  # noqa: F811
    options = {"server": scripted.url, "name": "trials", "script": STREAM, "repeats": 3, **SHORT}
    lib.run_load_profile(DATASET, "concurrency", **options)
    second = lib.run_load_profile(DATASET, "concurrency", **options)
    block = second.summary["trials"]
    assert block["n"] == 3 and block["server_restarted"] is False and len(block["values"]["ttft_ms.p50"]) == 3
    assert sorted(p.name for p in second.outdir.iterdir() if p.name.startswith("trial-")) == [
        "trial-1", "trial-2", "trial-3"]
    lib.load_verdict_should_be_judged_from_trials(second)
    within = dataclasses.replace(second, comparisons={"previous": compare(second.summary, second.summary)})
    with pytest.raises(AssertionError, match="'trials' against previous: not judged from trials: ttft_ms.p50: "
                       "bootstrap CI"):
        lib.load_verdict_should_be_judged_from_trials(within)


def test_a_sampled_run_too_short_for_a_slope_is_not_judged(lib, scripted):  # noqa: F811
    sampled = lib.run_load_profile(DATASET, "concurrency", server=scripted.url, name="sampled", script=STREAM,
                                   sample_server=True, history=False, **SHORT)
    assert sampled.summary["resources"]["judged"] is False
    with pytest.raises(AssertionError, match="'sampled': not judged: .* run longer"):
        lib.server_resources_should_not_grow(sampled)
