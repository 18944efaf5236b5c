"""The batch checks on hand-made batches: each passes on the right data and fails with one precise line."""

import types

import pytest

from llamatest import machine
from llamatest.concurrency import checks
from llamatest.concurrency.batch import Batch
from llamatest.concurrency.timeline import MetricsSample, Probe, RequestSpan, SlotSample, SlotState, Timeline
from llamatest.machine import NotJudged
from llamatest.streaming.result import StreamEvent, StreamResult

OVERFLOW = {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}


def plain(obj, status=200):
    return StreamResult(url="http://h/completion", status=status, headers={"content-type": "application/json"},
                        json_body=obj)


def native(text, n=None, status=200):
    return plain({"content": text, "stop": True, "tokens_predicted": len(text) if n is None else n,
                  "stop_type": "limit"}, status)


def streamed(*objects, done=0, error=None):
    events = [StreamEvent(0.01 * k, "message", "x", obj) for k, obj in enumerate(objects)]
    events += [StreamEvent(1.0, "message", "[DONE]", None)] * done
    return StreamResult(url="http://h/completion", status=200, headers={"content-type": "text/event-stream"},
                        events=events, error=error)


def batch(*results, timeline=None, abandoned=()):
    return Batch("POST /completion", list(results), timeline, list(abandoned))


def test_texts():
    same = batch(native("abc"), native("abc"))
    checks.every_request_gave_the_same_text(same)
    checks.every_request_gave_the_text(same, "abc")
    checks.batch_texts_equal(same, same)
    with pytest.raises(AssertionError, match=r"request 1 of 2 gave another text than request 0: they differ "
                                             r"from char 2 \('c' vs 'd'; 3 and 3 chars\)"):
        checks.every_request_gave_the_same_text(batch(native("abc"), native("abd")))
    with pytest.raises(AssertionError, match="requests 0 and 2 gave the same text"):
        checks.texts_all_differ(batch(native("a"), native("b"), native("a")))
    with pytest.raises(AssertionError, match="the batches differ in size"):
        checks.batch_texts_equal(same, batch(native("abc")))
    checks.texts_all_differ(batch(native("a"), native("b")))


def test_abandoned_requests_are_left_out():
    mixed = batch(streamed({"content": "x", "stop": False}, error="abandoned by the client after 1 events"),
                  native("ok"), abandoned=[0])
    checks.every_request_succeeded(mixed)
    checks.no_request_lost_or_duplicated(mixed)
    checks.every_request_predicted(mixed, 2)


def test_predicted_or_failed_cleanly():
    error_stream = streamed({"content": "a", "stop": False}, {"error": OVERFLOW})
    outcomes = checks.every_request_predicted_or_failed_cleanly(
        batch(native("abcd"), plain({"error": OVERFLOW}, 500), error_stream), 4)
    assert outcomes == ["4 tokens", "error 500 Context size has been exceeded.",
                        "error 500 Context size has been exceeded."]
    with pytest.raises(AssertionError, match="request 0 of 1 neither predicted 4 tokens nor failed cleanly"):
        checks.every_request_predicted_or_failed_cleanly(batch(native("abc")), 4)
    with pytest.raises(AssertionError, match="status 200 but error code 500"):
        checks.every_request_predicted_or_failed_cleanly(batch(plain({"error": OVERFLOW})), 4)
    with pytest.raises(AssertionError, match="the error event does not close the stream cleanly"):
        checks.every_request_predicted_or_failed_cleanly(batch(streamed({"error": OVERFLOW}, done=1)), 4)
    with pytest.raises(AssertionError, match="malformed error object"):
        checks.every_request_predicted_or_failed_cleanly(batch(plain({"error": {"message": "x"}}, 500)), 4)


def test_requests_get_what_they_asked_for():
    def asked(r, n):
        r.request_body = {"n_predict": n}
        return r

    bad_request = {"code": 400, "message": "n_predict", "type": "invalid_request_error"}
    checks.every_request_got_what_it_asked(batch(asked(native("ab"), 2), asked(plain({"error": bad_request}, 400),
                                                                                 -5)))
    with pytest.raises(AssertionError, match="request 0 of 1 asked for 3 tokens and got 2"):
        checks.every_request_got_what_it_asked(batch(asked(native("ab"), 3)))
    with pytest.raises(AssertionError, match="states no n_predict or max_tokens"):
        checks.every_request_got_what_it_asked(batch(native("ab")))
    tl = Timeline(slots=[slots(0.0, None, None)])
    slotted = plain({"content": "a", "stop": True, "id_slot": 5})
    with pytest.raises(AssertionError, match="request 0 of 1 names slot 5, but the server has 2 slots"):
        checks.every_answer_named_a_real_slot(batch(slotted, timeline=tl))
    with pytest.raises(AssertionError, match="no answer names a slot"):
        checks.every_answer_named_a_real_slot(batch(plain({"choices": []}), timeline=tl))


def test_chunks_with_one_choice_and_named_slots():
    role = {"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}
    finish = {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}
    usage = {"choices": [], "usage": {"completion_tokens": 0}}
    checks.every_chunk_carried_one_choice(batch(streamed(role, finish, usage, done=1)))
    two = {"choices": [{"index": 0, "delta": {}}, {"index": 1, "delta": {}}]}
    with pytest.raises(AssertionError, match="request 0 of 1, event 1: expected exactly one choice with index 0"):
        checks.every_chunk_carried_one_choice(batch(streamed(role, two, finish)))
    with pytest.raises(AssertionError, match="request 0 of 1 is not a stream"):
        checks.every_chunk_carried_one_choice(batch(native("a")))


def test_embeddings():
    def vectors(*values, text="x"):
        r = plain({"data": [{"embedding": list(v), "index": k} for k, v in enumerate(values)]})
        r.request_body = {"input": text}
        return r

    checks.every_request_gave_the_same_embedding(batch(vectors((0.5, 0.5)), vectors((0.5, 0.5 + 1e-9))), 1e-6)
    with pytest.raises(AssertionError, match="request 1 of 2 got other vectors than request 0: components "
                                             "differ by up to 0.1"):
        checks.every_request_gave_the_same_embedding(batch(vectors((0.5, 0.5)), vectors((0.5, 0.6))), 1e-6)
    alone = batch(vectors((1.0, 0.0), text="a"), vectors((0.0, 1.0), text="b"))
    both = vectors((0.0, 1.0), (1.0, 0.0), text=["b", "a"])
    checks.embeddings_match_their_inputs(batch(both, vectors((1.0, 0.0), text="a")), alone, 1e-6)
    with pytest.raises(AssertionError, match="request 0 of 1: input '\"b\"' got another vector than alone: "
                                             "components differ by up to 1"):
        checks.embeddings_match_their_inputs(batch(vectors((1.0, 0.0), text="b")), alone, 1e-6)
    with pytest.raises(AssertionError, match="request 0 of 1: its input '\"c\"' was not sent alone"):
        checks.embeddings_match_their_inputs(batch(vectors((1.0,), text="c")), alone, 1e-6)
    with pytest.raises(AssertionError, match="request 0 of 1 has not one vector per input: status 500"):
        checks.every_request_gave_the_same_embedding(batch(plain({"error": OVERFLOW}, 500)), 1e-6)
    with pytest.raises(AssertionError, match="request 0 of 1 has not one vector per input"):
        checks.embeddings_match_their_inputs(batch(vectors((1.0, 0.0), text=["a", "b"])), alone, 1e-6)


def slots(t, *tasks):
    return SlotSample(t, t - 0.001, tuple(SlotState(i, task is not None, task) for i, task in enumerate(tasks)))


def test_order_and_overlap_read_the_timeline():
    tl = Timeline(slots=[slots(0.0, None, None), slots(0.1, 4, 3), slots(0.2, None, 3), slots(0.3, None, None)],
                  requests=[RequestSpan(0, 0.01, 0.05, 0.2, slot=0), RequestSpan(1, 0.02, 0.06, 0.15, slot=1)],
                  requests_done=0.2, end=0.3)
    out_of_order = batch(native("a"), native("b"), timeline=tl)
    with pytest.raises(AssertionError, match=r"request 1 \(task 3, slot 1, from 0.100 s\) was served before "
                                             r"request 0 \(task 4"):
        checks.served_in_order(out_of_order)
    checks.requests_overlapped(out_of_order, 0, 1)
    checks.slots_went_back_to_idle(out_of_order)


def test_start_order_is_judged_to_the_sampler_resolution():
    # Request 1 (task 4) was seen on slot 1 at 0.1; request 0 (task 3) only appeared at 0.3, and the 0.2
    # sample still showed its slot idle: request 1 surely started first.
    late = Timeline(slots=[slots(0.0, None, None), slots(0.1, None, 4), slots(0.2, None, 4), slots(0.3, 3, 4),
                           slots(0.4, None, None)],
                    requests=[RequestSpan(0, 0.01, None, 0.35, slot=0), RequestSpan(1, 0.02, None, 0.35, slot=1)],
                    requests_done=0.35, end=0.4)
    with pytest.raises(AssertionError, match=r"request 1 \(task 4, slot 1, from 0.100 s\) was served before"):
        checks.served_in_order(batch(native("a"), native("b"), timeline=late))
    # Request 1 seen at 0.1 and request 0 at 0.11, the sample before that (0.1) being the very one that
    # first showed request 1: both began between 0.0 and 0.11, in an order the sampler cannot tell.
    tie = Timeline(slots=[slots(0.0, None, None), slots(0.1, None, 4), slots(0.11, 3, 4), slots(0.4, None, None)],
                   requests=[RequestSpan(0, 0.01, None, 0.35, slot=0), RequestSpan(1, 0.02, None, 0.35, slot=1)],
                   requests_done=0.35, end=0.4)
    checks.served_in_order(batch(native("a"), native("b"), timeline=tie))


def test_order_is_not_judged_when_a_request_could_hide_between_two_polls():
    # Seen on a busy machine: a 1.1 s gap between polls hid a whole request, and the next one was taken for it.
    def timed(ms):
        return plain({"content": "x", "stop": True, "tokens_predicted": 1, "stop_type": "limit",
                      "timings": {"prompt_ms": 1.0, "predicted_ms": ms}})

    def timeline(gap):
        return Timeline(slots=[slots(0.0, None, None), slots(0.1, 3, 4), slots(0.1 + gap, 5, None),
                               slots(0.2 + gap, None, None)],
                        requests=[RequestSpan(0, 0.01, None, 0.15, slot=0), RequestSpan(1, 0.02, None, 0.15, slot=1),
                                  RequestSpan(2, 0.03, None, 0.15 + gap, slot=0)],
                        requests_done=0.15 + gap, end=0.2 + gap)

    held_200_ms = [timed(199.0), timed(199.0), timed(199.0)]
    with pytest.raises(NotJudged, match=r"two polls 0.501 s apart \(from 0.100 s\), longer than request 0 of 3 held "
                                        r"its slot \(0.200 s\): a whole request may have run unseen"):
        checks.served_in_order(batch(*held_200_ms, timeline=timeline(0.5)))
    checks.served_in_order(batch(*held_200_ms, timeline=timeline(0.1)))


def test_metrics_checks():
    tl = Timeline(slots=[slots(0.0, None), slots(0.2, None)], requests_done=0.1, end=0.2,
                  metrics=[MetricsSample(0.0, 0.0, {"tokens_predicted_total": 10.0, "requests_deferred": 0.0}),
                           MetricsSample(0.2, 0.15, {"tokens_predicted_total": 13.0, "requests_deferred": 1.0})])
    with pytest.raises(AssertionError, match=r"tokens_predicted_total grew by 3 during the batch, but the requests "
                                             r"predicted 4 tokens$"):
        checks.metrics_counted_every_predicted_token(batch(native("ab"), native("cd"), timeline=tl))
    checks.requests_were_deferred(batch(timeline=tl))
    with pytest.raises(AssertionError, match="/metrics did not go back to idle: requests_processing None, "
                                             "requests_deferred 1.0"):
        checks.slots_went_back_to_idle(batch(timeline=tl))
    with pytest.raises(AssertionError, match="no /metrics sample"):
        checks.requests_were_deferred(batch(timeline=Timeline(slots=[slots(0.0, None)])))
    early = Timeline(slots=[slots(0.05, 1)], requests_done=0.1, end=0.2)
    with pytest.raises(AssertionError, match="no /slots sample after the last request ended: the last one was sent "
                                             "0.05 s before"):
        checks.slots_went_back_to_idle(batch(timeline=early))


def test_slots_never_all_busy_are_not_judged_on_a_busy_machine(monkeypatch):
    """Overlap needs the client to send each request while the others run; a starved client may not."""
    tl = Timeline(slots=[slots(0.0, None, None), slots(0.3, 4, None)], end=0.31)
    cores = {}
    monkeypatch.setattr(checks.machine, "monitor", lambda: types.SimpleNamespace(
        share_since=lambda start: machine.Share(cores=cores["n"], seconds=1.0, ours=0.5)))
    cores["n"] = 0.0
    with pytest.raises(AssertionError, match=r"^the slots were never all busy at once") as failure:
        checks.all_slots_were_busy(batch(native("a"), native("b"), timeline=tl))
    assert not isinstance(failure.value, NotJudged)
    cores["n"] = 1.5
    with pytest.raises(NotJudged, match=r"^not judged, the machine was busy: .*never all busy at once"):
        checks.all_slots_were_busy(batch(native("a"), native("b"), timeline=tl))


def test_busy_slots_seen_through_the_server_counters():
    def counters(t, average, decodes):
        return MetricsSample(t, t - 0.001, {"n_busy_slots_per_decode": average, "n_decode_total": decodes})

    tl = Timeline(slots=[slots(0.0, None, None), slots(0.5, None, None)], end=0.5,
                  metrics=[counters(0.0, 1.0, 100.0), counters(0.5, 1.5, 200.0)],
                  requests=[RequestSpan(0, 0.01, 0.02, 0.4), RequestSpan(1, 0.05, 0.06, 0.3)])
    checks.all_slots_were_busy(batch(native("a"), native("b"), timeline=tl))  # 200 busy in 100 decodes
    checks.requests_overlapped(batch(native("a"), native("b"), timeline=tl), 0, 1)
    tl.metrics[-1] = counters(0.5, 1.0, 200.0)  # one busy slot per decode: never both
    with pytest.raises(AssertionError, match=r"never all busy at once: .*; /metrics: 1.000 busy slots per decode"):
        checks.all_slots_were_busy(batch(native("a"), native("b"), timeline=tl))
    with pytest.raises(AssertionError, match=r"request 1 never ran while request 0 did: .*; /metrics: 1.000 busy"):
        checks.requests_overlapped(batch(native("a"), native("b"), timeline=tl), 0, 1)


def test_requests_that_ran_one_at_a_time():
    def counters(t, average, decodes):
        return MetricsSample(t, t - 0.001, {"n_busy_slots_per_decode": average, "n_decode_total": decodes})

    # Task 3 on slot 0, then task 5 on the same slot; one busy slot per decode.
    tl = Timeline(slots=[slots(0.0, None, None), slots(0.1, 3, None), slots(0.2, 5, None), slots(0.3, None, None)],
                  metrics=[counters(0.0, 1.0, 100.0), counters(0.3, 1.0, 300.0)], requests_done=0.25, end=0.3,
                  requests=[RequestSpan(0, 0.01, 0.02, 0.15, slot=0), RequestSpan(1, 0.05, 0.16, 0.25, slot=0)])
    waited = batch(native("a"), native("b"), timeline=tl)
    checks.requests_ran_one_at_a_time(waited)
    tl.metrics[-1] = counters(0.3, 1.1, 300.0)  # 330 busy slots in 200 decodes: some decode had two
    with pytest.raises(AssertionError, match=r"two requests ran at once: /metrics shows 1.150 busy slots per "
                                             r"decode during the batch, more than one"):
        checks.requests_ran_one_at_a_time(waited)
    tl.metrics[-1] = counters(0.3, 1.0, 300.0)
    tl.slots[2] = slots(0.2, 3, 5)  # the sampler caught both busy
    with pytest.raises(AssertionError, match=r"two requests ran at once: the /slots sample at 0.200 s shows "
                                             r"tasks 3 and 5 busy"):
        checks.requests_ran_one_at_a_time(waited)
    tl.slots[2] = slots(0.2, 5, None)
    tl.metrics[-1] = counters(0.2, 1.0, 300.0)  # sent before the last request ended
    with pytest.raises(AssertionError, match="no /metrics sample after the last request ended"):
        checks.requests_ran_one_at_a_time(waited)
    tl.metrics = tl.metrics[:1]
    with pytest.raises(AssertionError, match="fewer than two /metrics samples"):
        checks.requests_ran_one_at_a_time(waited)
    tl.metrics = [counters(0.0, 1.0, 100.0), counters(0.3, 1.0, 100.0)]
    with pytest.raises(AssertionError, match="/metrics shows no decode during the batch"):
        checks.requests_ran_one_at_a_time(waited)


def test_the_no_idle_slot_probe():
    no_slot = {"error": {"code": 503, "message": "no slot available", "type": "unavailable_error"}}
    tl = Timeline(slots=[slots(0.0, 1)], probes=[Probe(0.1, 200, []), Probe(0.2, 503, no_slot)])
    checks.no_idle_slot_reported(batch(timeline=tl))
    tl.probes = [Probe(0.1, 503, {"error": {"code": 503, "message": "busy", "type": "unavailable_error"}})]
    with pytest.raises(AssertionError, match="503 from /slots.fail_on_no_slot=1 with"):
        checks.no_idle_slot_reported(batch(timeline=tl))
    tl.probes = [Probe(0.1, 200, [])]
    with pytest.raises(AssertionError, match="answered 200 all 1 times"):
        checks.no_idle_slot_reported(batch(timeline=tl))
    tl.probes = []
    with pytest.raises(AssertionError, match="never asked /slots.fail_on_no_slot=1"):
        checks.no_idle_slot_reported(batch(timeline=tl))


def test_a_batch_without_timeline_or_abandoned_request():
    with pytest.raises(AssertionError, match="the batch has no slot timeline: send it with watch=True"):
        checks.all_slots_were_busy(batch(native("a")))
    with pytest.raises(AssertionError, match="no request was abandoned by the client"):
        checks.cancelled_requests_freed_their_slots(batch(timeline=Timeline(slots=[slots(0.0, None)])), 1)


def test_no_deferral_seen_is_the_samplers_fault_when_it_began_too_late(monkeypatch):
    def timeline(first_metrics_sent):
        # Request 1 ran first and ended at 0.138 s; request 0 waited for slot 0 until then.
        spans = [RequestSpan(0, 0.004, None, 0.397, slot=0), RequestSpan(1, 0.004, None, 0.138, slot=0)]
        zero = {"requests_deferred": 0.0}
        return Timeline(slots=[slots(0.15, 3), slots(0.4, None)], requests_done=0.4, end=0.4, requests=spans,
                        metrics=[MetricsSample(first_metrics_sent + 0.001, first_metrics_sent, zero),
                                 MetricsSample(0.4, 0.399, zero)])

    with pytest.raises(NotJudged, match=r"^not judged, the /slots sampler fell behind .*no /metrics answer came "
                                        r"between the last request sent \(0.004 s\) and the first one ended "
                                        r"\(0.138 s\)"):
        checks.requests_were_deferred(batch(native("a"), native("b"), timeline=timeline(0.15)))
    quiet_or_busy = {}
    monkeypatch.setattr(checks.machine, "monitor", lambda: types.SimpleNamespace(
        share_since=lambda start: machine.Share(cores=quiet_or_busy["cores"], seconds=1.0, ours=0.5)))
    quiet_or_busy["cores"] = 0.0
    with pytest.raises(AssertionError, match=r"^llamacpp:requests_deferred stayed 0 in 2 samples \(1 of them "
                                             r"between the last request sent and the first one ended\); tasks in "
                                             r"the order their slots showed them: 3 at 0.150 s$") as failure:
        checks.requests_were_deferred(batch(native("a"), native("b"), timeline=timeline(0.01)))
    assert not isinstance(failure.value, NotJudged)
    quiet_or_busy["cores"] = 1.5  # the later request reached the queue late on a busy machine: not judged
    with pytest.raises(NotJudged, match=r"^not judged, the machine was busy: other processes used 1.50 .*"
                                        r"requests_deferred stayed 0"):
        checks.requests_were_deferred(batch(native("a"), native("b"), timeline=timeline(0.01)))
