"""answers.py: answers sent again alone, stream validity and /metrics counters against the client's counts."""

from __future__ import annotations

import pytest

from llamatest.load.analysis import answers, judge
from llamatest.load.engine.classify import generated_text
from llamatest.load.engine.client import Target
from llamatest.load.engine.pacing import run_load_sync
from llamatest.load.engine.profiles import Profile
from llamatest.load.engine.record import LoadEvent, RequestRecord, RunRecord
from llamatest.models import catalog
from llamatest.models.tiny import SPACE, build_vocab
from llamatest.reference.llama import Llama
from llamatest.reference.weights import load_weights
from tests.fixtures.scripted_server import DONE, chat, native, text, usage
from tests.load.test_load_pipeline import put_props
from tests.reference.test_reference import PROMPT


def script_answering(*pieces: str, n_prompt: int = 5) -> dict:
    """A chat body whose scripted stream generates ``pieces``, then finish, usage and [DONE]."""
    steps = [[0, chat({"role": "assistant", "content": None})]]
    steps += [[0, chat({"content": p})] for p in pieces]
    steps += [[0, chat({}, "length") + usage(len(pieces), prompt=n_prompt) + DONE]]
    return {"script": steps, "temperature": 0, "seed": 0, "max_tokens": len(pieces)}


def test_generated_text_reads_every_route():
    import json

    chat_data = chat({"content": "Hé"})[len("data: "):].strip()
    assert generated_text(chat_data) == "Hé"
    assert generated_text(text("abc")[len("data: "):].strip()) == "abc"
    assert generated_text(native("xyz", [1, 2])[len("data: "):].strip()) == "xyz"
    tool = json.dumps({"choices": [{"delta": {"tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}}]})
    assert generated_text(tool) == "f{}"
    assert generated_text("not json") == ""


def test_keep_text_records_each_answer(scripted):
    target = Target(scripted.url, keep_text=True)
    run = run_load_sync(target, Profile("synchronous", max_requests=2, duration_s=30),
                        lambda i: script_answering("one", " two"), telemetry=False)
    assert [r.text for r in run.requests] == ["one two", "one two"]
    plain = run_load_sync(Target(scripted.url), Profile("synchronous", max_requests=1, duration_s=30),
                          lambda i: script_answering("one"), telemetry=False)
    assert plain.requests[0].text is None


def measured_run(texts: list[str]) -> RunRecord:
    reqs = [RequestRecord(index=i, t_scheduled=0.0, route="/v1/chat/completions", request_id=f"r{i}",
                          t_dispatched=0.0, t_closed=0.1, text=t) for i, t in enumerate(texts)]
    return RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=0.0, requests=reqs)


def test_an_answer_that_changed_is_reported_with_both_texts(scripted):
    run = measured_run(["same", "under load"])
    bodies = [script_answering("same"), script_answering("alone")]
    result = answers.answer_check(Target(scripted.url), run, lambda i: bodies[i], 5, seed=3)
    assert result["checked"] == 2 and result["errors"] == [] and result["skipped"] is None
    assert result["changed"] == [{"index": 1, "request_id": "r1", "under_load": "under load", "alone": "alone"}]
    block, flags = answers.assess(run, result)
    assert flags["answer_changed_under_load"]["set"] is True
    assert "1 of 2 answers differ" in flags["answer_changed_under_load"]["detail"]


def test_answers_that_repeat_set_no_flag(scripted):
    run = measured_run(["a b", "c"])
    bodies = [script_answering("a", " b"), script_answering("c")]
    result = answers.answer_check(Target(scripted.url), run, lambda i: bodies[i], 2)
    assert result["checked"] == 2 and result["changed"] == []
    assert answers.assess(run, result)[1]["answer_changed_under_load"] == {
        "set": False, "detail": "2 answers sent again alone were the same"}


def test_a_run_at_temperature_above_zero_is_not_checked(scripted):
    body = {**script_answering("x"), "temperature": 0.8}
    result = answers.answer_check(Target(scripted.url), measured_run(["x"]), lambda i: body, 1)
    assert result["checked"] == 0 and "temperature is 0.8" in result["skipped"]


def test_pick_is_seeded_and_skips_failed_requests():
    run = measured_run([f"t{i}" for i in range(20)])
    run.requests[3].error = "http_5xx"
    first, again = answers.pick(run, 5, seed=7), answers.pick(run, 5, seed=7)
    assert [r.index for r in first] == [r.index for r in again] and len(first) == 5
    assert 3 not in [r.index for r in answers.pick(run, 19, seed=1)]


def test_stream_without_done_or_with_bad_utf8_is_a_problem():
    run = measured_run(["x", "y", "z"])
    run.requests[0].events = [LoadEvent(0.05, "content", n_chars=1), LoadEvent(0.06, "done")]
    run.requests[1].events = [LoadEvent(0.05, "content", n_chars=1), LoadEvent(0.06, "finish", finish_reason="stop")]
    run.requests[2].events = [LoadEvent(0.05, "content", n_chars=1), LoadEvent(0.06, "done")]
    run.requests[2].invalid_utf8_lines = 2
    assert answers.stream_problems(run) == ["request 1 (r1): the stream ended without [DONE]",
                                            "request 2 (r2): 2 line(s) were not valid UTF-8"]


def counted_run(n_out: int, server_predicted: float) -> RunRecord:
    run = measured_run(["a", "b"])
    for r in run.requests:
        r.t_dispatched = 0.2
        r.events = [LoadEvent(0.3, "content", n_chars=1),
                    LoadEvent(0.4, "usage", usage={"completion_tokens": n_out, "prompt_tokens": 7}),
                    LoadEvent(0.4, "done")]
    run.telemetry = [{"t": 0.0, "metrics": {"llamacpp:tokens_predicted_total": 10.0,
                                            "llamacpp:prompt_tokens_total": 0.0}},
                     {"t": 1.0, "metrics": {"llamacpp:tokens_predicted_total": 10.0 + server_predicted,
                                            "llamacpp:prompt_tokens_total": 14.0}}]
    return run


def test_metrics_counters_agree_with_the_client_counts():
    result = answers.counter_agreement(counted_run(3, 6))
    assert result["judged"] is True
    assert {r["counter"]: (r["server"], r["client"], r["agree"]) for r in result["rows"]} == {
        "tokens_predicted_total": (6.0, 6, True), "prompt_tokens_total": (14.0, 14, True)}


def test_a_counter_that_disagrees_sets_counter_mismatch():
    _, flags = answers.assess(counted_run(3, 5))
    assert flags["counter_mismatch"] == {"set": True, "detail": "tokens_predicted_total moved by 5, the client "
                                         "counted 6"}


def test_the_counters_baseline_is_a_scrape_answered_before_the_first_request():
    """A scrape sent before the first request but answered after it may already count that request's prompt
    (seen once in ten runs: prompt_tokens_total one prompt short); the baseline is the last one answered before."""
    run = counted_run(3, 6)
    early = {"t": -0.01, "t_metrics": -0.005, "metrics": {"llamacpp:tokens_predicted_total": 10.0,
                                                         "llamacpp:prompt_tokens_total": 0.0}}
    raced = {"t": 0.1, "t_metrics": 0.25, "metrics": {"llamacpp:tokens_predicted_total": 10.0,
                                                     "llamacpp:prompt_tokens_total": 7.0}}
    run.telemetry = [early, raced, run.telemetry[1]]
    rows = {r["counter"]: r["agree"] for r in answers.counter_agreement(run)["rows"]}
    assert rows == {"tokens_predicted_total": True, "prompt_tokens_total": True}
    run.telemetry = [raced, run.telemetry[2]]
    assert answers.counter_agreement(run)["reason"] == "no /metrics scrape answered before the first request"


def test_counters_are_not_judged_when_a_request_failed():
    run = counted_run(3, 6)
    run.requests[0].error = "timeout_stall"
    result = answers.counter_agreement(run)
    assert result["judged"] is False and "not every request sent succeeded" in result["reason"]


def test_dropped_requests_do_not_stop_the_counter_check():
    run = counted_run(3, 6)
    run.requests.append(RequestRecord(index=2, t_scheduled=0.5, error="dropped"))
    assert answers.counter_agreement(run)["judged"] is True


def test_routes_without_done_are_only_checked_for_utf8():
    run = measured_run(["x", "y"])
    for r, route in zip(run.requests, ("/v1/messages", "/completion"), strict=True):
        r.route = route
        r.events = [LoadEvent(0.05, "content", n_chars=1), LoadEvent(0.06, "finish", finish_reason="stop")]
    assert answers.stream_problems(run) == []


@pytest.fixture
def tiny_served(scripted, tmp_path, monkeypatch):
    """The scripted server's /props names a generated tiny file (the models in a cache of this test's own);
    /tokenize, /detokenize and /apply-template answer from the tiny vocabulary (the scripted server has none)."""
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path / "cache"))
    path = str(catalog.resolve_model("tiny"))
    pieces = [p.replace(SPACE, " ") for p in build_vocab()[0]]
    replies = {"/tokenize": lambda body: {"tokens": PROMPT},
               "/apply-template": lambda body: {"prompt": "<|im_start|>user\nhello<|im_end|>\n"},
               "/detokenize": lambda body: {"content": "".join(pieces[t] for t in body["tokens"])}}
    monkeypatch.setattr(judge, "_post", lambda target, route, body: replies[route](body))
    put_props(scripted.url, {"model_path": path})
    yield [pieces[t] for t in Llama(load_weights(path)).greedy(PROMPT, 8)]
    put_props(scripted.url, {"model_path": ""})


def test_the_reference_says_which_side_of_a_changed_answer_is_right(scripted, tiny_served):
    wrong = [*tiny_served[:3], "#" if tiny_served[3] != "#" else "%", *tiny_served[4:]]
    run = measured_run(["".join(wrong)])
    body = {**script_answering(*tiny_served), "messages": [{"role": "user", "content": "hello"}]}
    result = answers.answer_check(Target(scripted.url), run, lambda i: body, 1)
    assert result["judge_skipped"] is None and len(result["changed"]) == 1
    entry = result["changed"][0]["judge"]
    assert entry["matches"] == "alone" and entry["under_load_differs_at"] == 3 and entry["alone_differs_at"] is None
    assert entry["tokens"] == 8 and entry["reference"] == "".join(tiny_served)
    detail = answers.assess(run, result)[1]["answer_changed_under_load"]["detail"]
    assert detail.endswith("the reference: request 0: the answer under load was wrong (departs from the "
                           "reference at token 3)")


def test_both_sides_wrong_and_a_model_not_ours(scripted, tiny_served):
    body = {**script_answering("x", "y"), "messages": [{"role": "user", "content": "hello"}]}
    run = measured_run(["".join(tiny_served[:5]) + "z"])
    run.requests[0].n_requested = 8  # the longer answer (no usage in this record): the chain's length
    result = answers.answer_check(Target(scripted.url), run, lambda i: body, 1)
    entry = result["changed"][0]["judge"]
    assert (entry["matches"], entry["under_load_differs_at"], entry["alone_differs_at"]) == ("neither", 5, 0)
    put_props(scripted.url, {"model_path": ""})
    result = answers.answer_check(Target(scripted.url), measured_run(["a"]), lambda i: script_answering("b"), 1)
    assert "judge" not in result["changed"][0]
    assert result["judge_skipped"].startswith("the reference judges only a model the project generates: its "
                                              "model_path (none) is not a file here")
