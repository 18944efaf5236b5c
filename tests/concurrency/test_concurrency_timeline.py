"""The slot timeline model and the parsing of /slots and /metrics: pure code, hand-made samples."""

import pytest

from llamatest.concurrency.sampler import parse_metrics, parse_slots
from llamatest.concurrency.timeline import MetricsSample, RequestSpan, SlotSample, SlotState, Timeline


def sample(t, *states, sent=None):
    """``states``: per slot, None for idle or the busy task id."""
    slots = tuple(SlotState(i, task is not None, task) for i, task in enumerate(states))
    return SlotSample(t, t - 0.001 if sent is None else sent, slots)


def timeline():
    tl = Timeline(slots=[sample(0.0, None, None), sample(0.1, 5, None), sample(0.2, 5, 6), sample(0.3, 7, 6),
                         sample(0.4, None, None)], end=0.45, requests_done=0.35)
    tl.requests = [RequestSpan(0, 0.01, 0.12, 0.3, slot=0), RequestSpan(1, 0.02, 0.2, 0.35),
                   RequestSpan(2, 0.03, 0.31, 0.35, slot=0)]
    return tl


def test_intervals_split_on_idle_and_on_a_new_task():
    found = [(iv.slot, iv.id_task, iv.start, iv.end, iv.until) for iv in timeline().intervals()]
    assert found == [(0, 5, 0.1, 0.2, 0.3), (0, 7, 0.3, 0.3, 0.4), (1, 6, 0.2, 0.3, 0.4)]


def test_an_interval_still_open_at_the_end_ends_at_its_last_sample():
    tl = Timeline(slots=[sample(0.0, None), sample(0.1, 3), sample(0.2, 3)], end=0.2)
    (interval,) = tl.intervals()
    assert (interval.end, interval.until) == (0.2, 0.2)


def test_busy_queries():
    tl = timeline()
    assert tl.n_slots == 2 and tl.max_busy == 2
    assert tl.first_all_busy().t == 0.2
    assert tl.idle_after(0.35).t == 0.4 and tl.idle_after(0.41) is None


def test_requests_are_matched_to_intervals_by_slot_and_overlap():
    matched = timeline().request_intervals()
    assert {i: (iv.slot, iv.id_task) for i, iv in matched.items()} == {0: (0, 5), 1: (1, 6), 2: (0, 7)}


def test_an_unsent_request_and_an_unseen_one_are_not_matched():
    tl = timeline()
    tl.requests = [RequestSpan(0), RequestSpan(1, 0.5, None, 0.6)]
    assert tl.request_intervals() == {}


def test_metrics_queries():
    tl = Timeline(metrics=[MetricsSample(0.1, 0.05, {"requests_deferred": 2.0}),
                           MetricsSample(0.3, 0.25, {"requests_deferred": 0.0})])
    assert tl.metric_max("requests_deferred") == 2.0 and tl.metric_max("nothing") is None
    assert tl.metrics_after(0.2, lambda v: v["requests_deferred"] == 0).t == 0.3
    assert tl.metrics_after(0.0, lambda v: v["requests_deferred"] == 5) is None


def test_summary_names_the_sampling():
    assert timeline().summary().startswith("5 slot samples every 100.0 ms over 0.45 s (answered in 1.0 ms median")
    assert "at most 2 of 2 slots busy" in timeline().summary()
    assert Timeline(errors=[(0.1, "x")], end=1.0).summary() == "no slot sample over 1.00 s (1 failed polls)"


def test_slot_state_reads_the_next_token_list_and_object():
    as_list = SlotState.from_json({"id": 1, "is_processing": True, "id_task": 9, "next_token": [{"n_decoded": 4}]})
    as_object = SlotState.from_json({"id": 1, "is_processing": True, "next_token": {"n_decoded": 4}})
    fresh = SlotState.from_json({"id": 0, "is_processing": False})
    assert as_list == SlotState(1, True, 9, 4) and as_object.n_decoded == 4
    assert fresh == SlotState(0, False, None, None)


def test_parse_slots():
    assert parse_slots(b'[{"id": 0, "is_processing": false}]') == (SlotState(0, False),)
    with pytest.raises(ValueError, match="not a list"):
        parse_slots('{"error": 1}')


def test_parse_metrics_keeps_names_without_prefix_and_labels():
    text = ("# HELP llamacpp:requests_deferred x\n# TYPE llamacpp:requests_deferred gauge\n"
            "llamacpp:requests_deferred 3\nllamacpp:pos_total{position=\"1\"} 2.5\nbroken line\n\n")
    assert parse_metrics(text) == {"requests_deferred": 3.0, 'pos_total{position="1"}': 2.5}


def test_busy_slots_per_decode_from_the_running_averages():
    start = MetricsSample(0.0, 0.0, {"n_busy_slots_per_decode": 1.5, "n_decode_total": 100.0})  # 150 busy
    end = MetricsSample(1.0, 0.9, {"n_busy_slots_per_decode": 1.75, "n_decode_total": 200.0})  # 350 busy
    assert Timeline().busy_slots_per_decode(start, end) == pytest.approx((200 - 500e-5) / 100)
    assert Timeline().busy_slots_per_decode(start, start) is None
    assert Timeline().busy_slots_per_decode(MetricsSample(0.0, 0.0, {}), end) is None


def test_requests_that_name_their_slot_are_matched_first():
    tl = Timeline(slots=[sample(0.0, None, None), sample(0.02, 1, 2), sample(0.15, 1, None), sample(0.32, None, None)],
                  end=0.33)
    tl.requests = [RequestSpan(0, 0.01, 0.05, 0.13, slot=None, abandoned=0.13), RequestSpan(1, 0.01, 0.05, 0.32, 0)]
    matched = tl.request_intervals()
    assert (matched[0].slot, matched[1].slot) == (1, 0)


def test_busy_description_names_the_busy_slots_and_their_tasks():
    assert sample(0.2, 5, None, 7).busy_description == "slot 0 (task 5), slot 2 (task 7)"
    assert sample(0.2, None).busy_description == ""


def test_settled_after_wants_idle_slots_and_with_metrics_idle_counters():
    tl = timeline()
    tl.metrics = [MetricsSample(0.36, 0.355, {"requests_processing": 1.0}),
                  MetricsSample(0.42, 0.415, {"requests_processing": 0.0, "requests_deferred": 0.0})]
    assert tl.metrics_idle_after(0.35).t == 0.42 and tl.metrics_idle_after(0.42) is None
    assert tl.settled_after(0.35, metrics=True) and tl.settled_after(0.35, metrics=False)
    assert not tl.settled_after(0.41, metrics=False)  # no idle slot sample sent after 0.41
    tl.metrics = tl.metrics[:1]
    assert not tl.settled_after(0.35, metrics=True) and tl.settled_after(0.35, metrics=False)


def test_batch_busy_slots_per_decode_spans_the_first_and_last_samples():
    first = MetricsSample(0.0, 0.0, {"n_busy_slots_per_decode": 1.0, "n_decode_total": 10.0})
    middle = MetricsSample(0.5, 0.5, {"n_busy_slots_per_decode": 9.0, "n_decode_total": 11.0})
    last = MetricsSample(1.0, 0.9, {"n_busy_slots_per_decode": 1.5, "n_decode_total": 20.0})
    assert Timeline(metrics=[first, middle, last]).batch_busy_slots_per_decode() == \
        Timeline().busy_slots_per_decode(first, last)
    assert Timeline(metrics=[first]).batch_busy_slots_per_decode() is None
    assert Timeline().batch_busy_slots_per_decode() is None


def test_in_order_dispatch_counts_an_ended_request_only_if_it_ended_before_the_sample():
    """Request 3 may go once the server has 0, 1 and 2: a sample that counts 0 and 1 as processing does not
    count 2, even if 0 has ended since (it was still processing when the sample was asked for)."""
    from llamatest.concurrency.batch import _Watch, server_has_all_before

    earlier = [_Watch(sent=0.0, ended=0.55), _Watch(sent=0.1), _Watch(sent=0.2)]
    busy = MetricsSample(0.51, 0.5, {"requests_processing": 2, "requests_deferred": 0})
    assert not server_has_all_before(Timeline(metrics=[busy]), earlier, 0.2)
    after = MetricsSample(0.61, 0.6, {"requests_processing": 2, "requests_deferred": 0})  # 0 ended, 2 on its slot
    assert server_has_all_before(Timeline(metrics=[busy, after]), earlier, 0.2)
    queued = MetricsSample(0.31, 0.3, {"requests_processing": 2, "requests_deferred": 1})
    assert server_has_all_before(Timeline(metrics=[queued]), earlier, 0.2)
    assert not server_has_all_before(Timeline(metrics=[queued]), earlier, 0.35)  # asked before 2 was sent
