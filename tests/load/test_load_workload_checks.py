"""The workload checks on hand-built runs, and the typed stream events of /v1/responses and /v1/messages."""

from __future__ import annotations

import json

import pytest

from llamatest.load.analysis import metrics, workload_checks
from llamatest.load.engine.classify import classify_data
from llamatest.load.engine.record import LoadEvent, RequestRecord, RunRecord
from llamatest.load.workloads.routes import normalized_usage


def request(index, *, n_in, cached, session=None, turn=None, expected=None, n_out=4, error=None):
    usage = {"prompt_tokens": n_in, "completion_tokens": n_out, "prompt_tokens_details": {"cached_tokens": cached}}
    return RequestRecord(index=index, t_scheduled=0.0, session=session, turn=turn, n_prompt_expected=expected,
                         n_requested=4, t_dispatched=0.0, t_closed=1.0, error=error,
                         events=[LoadEvent(0.5, "content", n_chars=3), LoadEvent(0.9, "usage", usage=usage)])


def checked(check, requests, *args):
    run = RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=requests)
    return check(run, metrics.measure(run), *args)


def test_a_later_turn_that_recomputed_its_history_is_named():
    turns = [request(0, n_in=30, cached=0, session=0, turn=0), request(1, n_in=60, cached=30, session=0, turn=1),
             request(2, n_in=90, cached=12, session=0, turn=2)]
    assert checked(workload_checks.history_reuse_problems, turns) == [
        "1 of 2 later turns are wrong: session 0 turn 2: 12 cached tokens, the previous turn's prompt was 60 tokens"]
    assert checked(workload_checks.history_reuse_problems, turns[:2]) == []
    assert checked(workload_checks.history_reuse_problems, turns[:1]) == [
        "no later turn to check: the run needs sessions of 2 turns or more that succeeded"]


def test_a_turn_after_a_failed_turn_is_not_judged():
    turns = [request(0, n_in=30, cached=0, session=0, turn=0, error="http_5xx"),
             request(1, n_in=60, cached=0, session=0, turn=1)]
    assert checked(workload_checks.history_reuse_problems, turns) == [
        "no later turn to check: the run needs sessions of 2 turns or more that succeeded"]


def test_one_miss_per_slot_is_allowed_for_a_shared_prefix():
    reqs = [request(0, n_in=120, cached=0), request(1, n_in=120, cached=0), request(2, n_in=120, cached=101)]
    assert checked(workload_checks.prefix_reuse_problems, reqs, 100, 2) == []
    assert checked(workload_checks.prefix_reuse_problems, reqs, 100, 1) == [
        "2 of 3 requests cached fewer than the 100 tokens of the shared prefix (at most 1, one per slot, may miss): "
        "request 0: 0, request 1: 0"]


def test_a_trace_row_with_other_token_counts_is_named():
    reqs = [request(0, n_in=50, cached=0, expected=50), request(1, n_in=51, cached=0, expected=50, n_out=3)]
    assert checked(workload_checks.trace_problems, reqs) == [
        "1 of 2 trace rows are wrong: request 1: 51 prompt and 3 output tokens, the trace row asked for 50 and 4"]


@pytest.mark.parametrize(("block", "problem"), [
    ({"attempted": 3, "succeeded": 3, "errors_by_class": {}, "requests_per_s": 2.0, "inputs_per_s": 8.0}, None),
    ({"attempted": 3, "succeeded": 3, "errors_by_class": {}, "requests_per_s": 2.0, "inputs_per_s": 6.0},
     "/v1/embeddings: 6.0 inputs/s for 2.0 requests/s of 4 inputs"),
    ({"attempted": 3, "succeeded": 2, "errors_by_class": {"bad_answer": 1}, "requests_per_s": 2.0,
      "inputs_per_s": 8.0}, "/v1/embeddings: 2 of 3 requests answered ({'bad_answer': 1})"),
])
def test_inputs_per_second_must_count_every_input(block, problem):
    summary = {"workload": {"routes": {"/v1/embeddings": block}}}
    assert workload_checks.inputs_problems(summary, "/v1/embeddings", 4) == ([problem] if problem else [])


def test_responses_events_are_classified_and_their_usage_read_as_openai():
    delta, final = classify_data(json.dumps({"type": "response.output_text.delta", "delta": "Hi"}), 1.0, False)[:2]
    assert (delta.kind, delta.n_chars, final) == ("content", 2, False)
    done = {"type": "response.completed", "response": {"status": "completed", "usage": {
        "input_tokens": 9, "output_tokens": 4, "input_tokens_details": {"cached_tokens": 3}}}}
    event, final, not_json = classify_data(json.dumps(done), 2.0, False)
    assert (event.kind, event.finish_reason, final, not_json) == ("usage", "stop", True, False)
    assert event.usage == {"completion_tokens": 4, "prompt_tokens": 9, "prompt_tokens_details": {"cached_tokens": 3}}


def test_messages_events_are_classified_and_their_usage_read_as_openai():
    start = {"type": "message_start", "message": {"usage": {"input_tokens": 6, "cache_read_input_tokens": 3,
                                                            "output_tokens": 0}}}
    event = classify_data(json.dumps(start), 0.1, False)[0]
    assert (event.kind, event.usage) == ("role", {"prompt_tokens": 9, "prompt_tokens_details": {"cached_tokens": 3}})
    thinking = {"type": "content_block_delta", "delta": {"type": "thinking_delta", "thinking": "hmm"}}
    assert classify_data(json.dumps(thinking), 0.2, False)[0].kind == "reasoning"
    stop = {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 4}}
    event = classify_data(json.dumps(stop), 0.3, False)[0]
    assert (event.kind, event.finish_reason, event.usage) == ("finish", "length", {"completion_tokens": 4})
    assert classify_data(json.dumps({"type": "message_stop"}), 0.4, False)[:2][1] is True


def test_usage_already_in_openai_terms_is_kept_and_nonsense_is_dropped():
    assert normalized_usage({"prompt_tokens": 1}) == {"prompt_tokens": 1}
    assert normalized_usage("many") is None
    assert normalized_usage({}) is None
