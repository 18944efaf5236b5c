"""llamatest.crosscheck: what llama-server reports about itself, on sample answers shaped like the pinned build's."""

import pytest

from llamatest import crosscheck
from llamatest.crosscheck import Check, SentRequest
from llamatest.http import prometheus
from llamatest.server.flags import effective_settings

MODEL = "/m/tiny.gguf"
TIMINGS = {"cache_n": 0, "prompt_n": 3, "prompt_ms": 0.502, "prompt_per_token_ms": 0.16733333333333333,
           "prompt_per_second": 5976.09561752988, "predicted_n": 4, "predicted_ms": 0.275,
           "predicted_per_token_ms": 0.09166666666666667, "predicted_per_second": 10909.090909090908}


def settings(*flags, env=None):
    return effective_settings(["--model", MODEL, *flags], env)


def wrong(checks):
    return [check.figure for check in checks if not check.ok]


def props_of(**changes):
    props = {"total_slots": 3, "model_path": MODEL, "model_alias": "self-report", "endpoint_slots": True,
             "endpoint_props": True, "endpoint_metrics": False,
             "default_generation_settings": {"n_ctx": 512, "params": {"seed": 4242, "top_k": 13, "n_keep": 0}}}
    props.update(changes)
    return props


# ----- Check and verdict -----

def test_a_check_compares_exactly_and_never_takes_a_bool_for_a_number():
    assert Check("x", 1, 1, "b").ok
    assert not Check("x", True, 1, "b").ok
    assert not Check("x", 1.5, 1, "b").ok
    assert Check("x", 1.5, 1, "b", tolerance=0.5).ok
    assert Check("x", 2, 3, "b", relation="<=").ok and not Check("x", 4, 3, "b", relation="<=").ok
    assert Check("x", 0.1, 0, "b", relation=">").ok and not Check("x", "1", 0, "b", relation=">").ok


def test_verdict_lists_every_disagreeing_figure():
    checks = [Check("a", 1, 1, "one"), Check("b", 2, 3, "the flag"), Check("c", 5, 4, "a sum", relation="<=")]
    with pytest.raises(AssertionError) as failure:
        crosscheck.verdict("title", checks)
    assert str(failure.value) == ("title: 2 of 3 figures disagree:\n- b was 2, expected 3 (the flag)\n"
                                  "- c was 5, expected at most 4 (a sum)")
    crosscheck.verdict("title", checks[:1])
    with pytest.raises(AssertionError, match="nothing was checked"):
        crosscheck.verdict("title", [])


# ----- configuration -----

@pytest.mark.parametrize(("flags", "context"), [
    (["-c", "1536", "-np", "3"], 512),
    (["-c", "1000", "-np", "3"], 512),  # 1000 -> 1024; 1024 / 3 = 341 -> 512
    (["-c", "1024", "-np", "2", "--kv-unified"], 1024),
    (["-c", "1024", "-np", "2", "--kv-unified", "--kv-unified-per-slot", "300"], 300),
    (["-c", "100", "-np", "1"], 256),
])
def test_slot_context_pads_and_splits_like_llama_context(flags, context):
    assert crosscheck.slot_context(settings(*flags)) == context


def test_slot_context_from_the_model_needs_its_training_context():
    assert crosscheck.slot_context(settings("-np", "2", "-c", "0"), n_ctx_train=4096) == 2048
    with pytest.raises(ValueError, match="give n_ctx_train"):
        crosscheck.slot_context(settings("-np", "2"))


def test_props_match_the_flags_they_were_started_with():
    started = settings("-c", "1000", "-np", "3", "--alias", "self-report", "--props")
    assert wrong(crosscheck.props_checks(props_of(), started)) == []
    mismatched = props_of(total_slots=2, model_alias=MODEL, endpoint_metrics=True)
    assert wrong(crosscheck.props_checks(mismatched, started)) == ["total_slots", "model_alias", "endpoint_metrics"]


def test_request_defaults_keep_the_sampling_flags_apart():
    started = settings("--seed", "4242", "--top-k", "13", "--keep", "5")
    props = props_of()
    assert wrong(crosscheck.request_default_checks(props, "default_generation_settings.params", started,
                                                   sampling_only=True)) == []
    checks = crosscheck.request_default_checks(props, "default_generation_settings.params", started)
    assert wrong(checks) == ["default_generation_settings.params.n_keep"]
    assert checks[-1].basis == "--keep 5"


def test_props_defaults_against_a_request_compare_keys_with_dots():
    defaults = {"seed": 1, "speculative.types": "none", "n_predict": -1}
    answered = {"seed": 1, "speculative.types": "none,draft-simple", "n_predict": 4}
    checks = crosscheck.same_settings_checks(defaults, answered, ignored=["n_predict"])
    assert wrong(checks) == ["default_generation_settings.params.speculative.types"]
    missing = crosscheck.same_settings_checks({"extra": 1}, {})
    assert missing[0].reported == 1 and missing[0].expected == crosscheck.MISSING and not missing[0].ok


def test_slots_list_one_entry_per_slot_with_its_context():
    started = settings("-c", "1536", "-np", "3")
    slots = [{"id": index, "n_ctx": 512} for index in range(3)]
    assert wrong(crosscheck.slots_checks(slots, started)) == []
    assert wrong(crosscheck.slots_checks(slots[:2], started)) == ["number of /slots entries"]
    assert wrong(crosscheck.slots_checks([slots[1], slots[0], slots[2]], started)) == ["0.id", "1.id"]


def test_a_decode_call_takes_the_batch_size_capped_by_the_whole_context():
    assert crosscheck.decode_batch(settings("-c", "512", "-np", "1", "-b", "32")) == 32
    assert crosscheck.decode_batch(settings("-c", "1000", "-np", "3")) == 1536  # 3 slots of 512
    assert crosscheck.decode_batch(settings("-c", "1024", "-np", "2", "--kv-unified")) == 1024
    assert crosscheck.decode_batch(settings("-c", "1024", "-np", "2", "--kv-unified", "--kv-unified-per-slot",
                                            "300")) == 1024


def test_model_lists_name_the_first_alias_in_sorted_order():
    started = settings("-c", "512", "-np", "1", "--alias", "zeta,alpha")
    models = {"data": [{"id": "alpha", "aliases": ["alpha", "zeta"], "meta": {"n_ctx": 512}}],
              "models": [{"name": "alpha", "model": "alpha"}]}
    assert crosscheck.model_name(started) == "alpha"
    assert wrong(crosscheck.model_list_checks(models, started)) == []
    models["data"][0]["id"] = "zeta"
    assert wrong(crosscheck.model_list_checks(models, started)) == ["data.0.id"]


# ----- an answer's own figures -----

def test_usage_agrees_with_the_timings_beside_it():
    answer = {"usage": {"completion_tokens": 5, "prompt_tokens": 24, "total_tokens": 29,
                        "prompt_tokens_details": {"cached_tokens": 23}},
              "timings": {**TIMINGS, "cache_n": 23, "prompt_n": 1, "predicted_n": 5}}
    assert wrong(crosscheck.usage_checks(answer)) == []
    answer["usage"]["completion_tokens"] = 10  # the tokens of two choices, say
    assert wrong(crosscheck.usage_checks(answer)) == ["usage.completion_tokens"]


def test_native_counts_agree_with_timings_and_the_slot_keeps_all_but_the_last_token():
    answer = {"tokens_evaluated": 3, "tokens_predicted": 4, "tokens_cached": 6, "timings": TIMINGS}
    assert wrong(crosscheck.native_count_checks(answer)) == []
    assert wrong(crosscheck.native_count_checks({**answer, "tokens_cached": 7})) == ["tokens_cached"]


def test_rates_agree_with_times_and_counts():
    assert wrong(crosscheck.prompt_rate_checks(TIMINGS)) == []
    assert wrong(crosscheck.generation_rate_checks(TIMINGS)) == []  # 0.275 ms over 3 decode steps
    per_token = {**TIMINGS, "predicted_per_token_ms": 0.275 / 4, "predicted_per_second": 4 / 0.275e-3}
    assert wrong(crosscheck.generation_rate_checks(per_token)) == ["timings.predicted_per_token_ms",
                                                                   "timings.predicted_per_second"]
    assert wrong(crosscheck.prompt_rate_checks({**TIMINGS, "prompt_per_second": 5976.1})) == \
        ["timings.prompt_per_second"]


def test_rates_of_nothing_are_zero():
    idle = {"prompt_n": 0, "prompt_ms": 0.0, "prompt_per_token_ms": 0.0, "prompt_per_second": 0.0,
            "predicted_n": 1, "predicted_ms": 0.001, "predicted_per_token_ms": 0.0, "predicted_per_second": 0.0}
    assert wrong(crosscheck.prompt_rate_checks(idle) + crosscheck.generation_rate_checks(idle)) == []


def test_an_idle_slot_reports_what_the_answer_left():
    answer = {"id_slot": 1, "tokens_cached": 8, "generation_settings": {"n_predict": 6}}
    slots = [{"id": 0}, {"id": 1, "is_processing": False, "n_prompt_tokens": 8, "params": {"n_predict": 6}}]
    assert wrong(crosscheck.slot_report_checks(slots, answer)) == []
    slots[1]["n_prompt_tokens"] = 9
    assert wrong(crosscheck.slot_report_checks(slots, answer)) == ["1.n_prompt_tokens"]


# ----- /metrics -----

def scrape(**values):
    return prometheus.parse("".join(f"llamacpp:{name} {value}\n" for name, value in values.items()))


def test_the_slot_model_reuses_the_common_prefix_but_the_last_token():
    requests = [SentRequest([1, 10, 11, 12], 3, cache_prompt=False, generated=[20, 21, 22]),
                SentRequest([1, 10, 11, 12], 2, generated=[20, 21]),
                SentRequest([1, 10, 30], 2),
                SentRequest(list(range(100)), 4, cache_prompt=False)]
    costs = crosscheck.single_slot_accounting(requests, n_batch=32)
    assert [(c.prompt_n, c.cache_n, c.decode_calls) for c in costs] == [(4, 0, 3), (1, 3, 2), (1, 2, 2),
                                                                        (100, 0, 7)]


def test_the_first_counted_request_must_be_cold():
    with pytest.raises(ValueError, match="must be sent with cache_prompt false"):
        crosscheck.single_slot_accounting([SentRequest([1, 2], 1)], n_batch=32)


def test_counters_grow_by_the_counted_requests():
    sent = [SentRequest.of({"prompt": [1, 2, 3], "n_predict": 3, "cache_prompt": False}),
            SentRequest.of({"prompt": [1, 2, 3], "n_predict": 2, "cache_prompt": True, "generated": [7, 8]})]
    before = scrape(prompt_tokens_total=10, prompt_tokens_cached_total=0, tokens_predicted_total=4, n_decode_total=5)
    after = scrape(prompt_tokens_total=14, prompt_tokens_cached_total=2, tokens_predicted_total=9, n_decode_total=10)
    assert wrong(crosscheck.counter_checks(before, after, sent, n_batch=32)) == []
    off = scrape(prompt_tokens_total=14, prompt_tokens_cached_total=2, tokens_predicted_total=9, n_decode_total=11)
    assert wrong(crosscheck.counter_checks(before, off, sent, n_batch=32)) == ["growth of llamacpp:n_decode_total"]


def test_exposition_rounding_is_half_the_sixth_significant_digit():
    assert crosscheck.exposition_rounding(0) == 0
    assert crosscheck.exposition_rounding(0.00582512) == pytest.approx(5e-9)
    assert crosscheck.exposition_rounding(123.456) == pytest.approx(5e-4)


def test_time_counters_agree_with_the_answers_timings():
    sent = [SentRequest([1], 3, False, timings={"predicted_ms": 0.5, "prompt_ms": 5.052}),
            SentRequest([1], 5, False, timings={"predicted_ms": 4.516, "prompt_ms": 0.391})]
    before = scrape(tokens_predicted_seconds_total=0.000275, prompt_seconds_total=0.000418)
    after = scrape(tokens_predicted_seconds_total=0.005291, prompt_seconds_total=0.005418)
    assert wrong(crosscheck.time_counter_checks(before, after, sent)) == []
    slow = scrape(tokens_predicted_seconds_total=0.005391, prompt_seconds_total=0.006)
    assert wrong(crosscheck.time_counter_checks(before, slow, sent)) == [
        "growth of llamacpp:tokens_predicted_seconds_total", "growth of llamacpp:prompt_seconds_total"]


# ----- streamed chunks -----

CHUNKS = [{"content": " llama", "tokens": [379], "tokens_predicted": 1, "tokens_evaluated": 4,
           "completion_probabilities": [{"id": 379, "token": " llama", "bytes": list(b" llama")}]},
          {"content": "é", "tokens": [300, 301], "tokens_predicted": 3, "tokens_evaluated": 4,
           "completion_probabilities": [{"id": 300, "token": "", "bytes": [0xC3]},
                                        {"id": 301, "token": "é", "bytes": [0xA9]}]},
          {"content": "", "tokens": [], "tokens_predicted": 3, "tokens_evaluated": 4, "stop": True}]


def test_streamed_tokens_and_contents():
    assert crosscheck.streamed_tokens(CHUNKS) == [379, 300, 301]
    assert wrong(crosscheck.chunk_text_checks(CHUNKS, [" llama", "é", ""])) == []
    assert wrong(crosscheck.chunk_text_checks(CHUNKS, [" llama", "e", ""])) == ["chunk 1 content"]
    with pytest.raises(ValueError, match="2 detokenized texts for 3 chunks"):
        crosscheck.chunk_text_checks(CHUNKS, ["a", "b"])


def test_running_counts_add_up_chunk_by_chunk():
    assert wrong(crosscheck.running_count_checks(CHUNKS, 4)) == []
    assert wrong(crosscheck.running_count_checks(CHUNKS, 3)) == [f"chunk {i} tokens_evaluated" for i in range(3)]


def test_probabilities_name_the_chunk_tokens():
    assert wrong(crosscheck.probability_checks(CHUNKS)) == []  # chunk 1 holds the two bytes of one character
    assert len(crosscheck.probability_checks(CHUNKS)) == 6  # the final chunk carries no token
    renamed = [{**CHUNKS[0], "tokens": [380]}]
    assert wrong(crosscheck.probability_checks(renamed)) == ["chunk 0 probability ids"]
