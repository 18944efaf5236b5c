"""run_batch and the checks end to end against the fake multi-slot llama-server (tests/fixtures/fake_llama_slots.py).

The three failures the suites rely on are proven here: a slot that never becomes busy, a lost request,
and a cancelled request that keeps its slot each make the matching check fail.
"""

import asyncio
import time

import pytest

from llamatest.concurrency import checks
from llamatest.concurrency.batch import Options, run_batch
from llamatest.concurrency.bodies import build_bodies


def send(url, n=2, route="native", options=None, stream=True, **fields):
    path = {"native": "/completion", "chat": "/v1/chat/completions"}[route]
    bodies = build_bodies(route, [f"user {i}" for i in range(n)], stream=stream, fields={"n_predict": 40, **fields})
    return asyncio.run(run_batch(url, path, bodies, options or Options(interval=0.002, settle=2)))


def test_two_users_on_two_slots(fake):
    batch = send(fake)
    checks.every_request_succeeded(batch)
    checks.no_request_lost_or_duplicated(batch)
    checks.every_request_predicted(batch, 40)
    checks.every_request_finished_with(batch, "limit")
    checks.all_slots_were_busy(batch)
    checks.slots_went_back_to_idle(batch)
    checks.every_request_gave_the_same_text(batch)
    tl = batch.timeline
    assert tl.n_slots == 2 and tl.max_busy == 2 and len({iv.id_task for iv in tl.intervals()}) == 2
    assert sorted(iv.slot for iv in tl.request_intervals().values()) == [0, 1]
    assert tl.requests_done is not None and tl.requests_done <= tl.end
    with pytest.raises(AssertionError, match="predicted 40 tokens, expected 41"):
        checks.every_request_predicted(batch, 41)
    with pytest.raises(AssertionError, match="finished with 'limit', expected 'eos'"):
        checks.every_request_finished_with(batch, "eos")


def test_a_slot_that_never_becomes_busy_fails_the_busy_check(fake):
    batch = send(fake, mock_invisible=True)
    checks.every_request_succeeded(batch)
    with pytest.raises(AssertionError, match=r"the slots were never all busy at once: \d+ slot samples .* "
                                             r"at most 0 of 2 slots busy"):
        checks.all_slots_were_busy(batch)
    assert batch.timeline.intervals() == []


def test_a_lost_request_fails_the_lost_check(fake):
    bodies = build_bodies("native", ["kept", "lost"], fields={"n_predict": 20})
    bodies[1]["mock_lose"] = True
    batch = asyncio.run(run_batch(fake, "/completion", bodies, Options(interval=0.002)))
    assert batch.results[0].status == 200 and batch.results[1].status is None
    with pytest.raises(AssertionError, match="request 1 of 2 was lost: transport error"):
        checks.no_request_lost_or_duplicated(batch)
    with pytest.raises(AssertionError, match="1 of 2 requests failed; request 1 of 2: transport error"):
        checks.every_request_succeeded(batch)


def test_an_answer_given_twice_fails_the_duplicate_check(fake):
    batch = send(fake, n=1, mock_twice=True)
    with pytest.raises(AssertionError, match="request 0 of 1 was answered more than once: 2 closing chunks"):
        checks.no_request_lost_or_duplicated(batch)


def test_a_cancelled_stream_frees_its_slot(fake):
    bodies = build_bodies("native", ["leaves", "stays"], n_predicts=[400, 30], fields={"mock_pause": 0.01})
    options = Options(interval=0.002, cancel=(0,), cancel_after_chunks=5)
    batch = asyncio.run(run_batch(fake, "/completion", bodies, options))
    assert batch.abandoned == [0] and batch.served() == [1]
    assert batch.results[0].error.startswith("abandoned by the client after ")
    checks.cancelled_requests_freed_their_slots(batch, within=1.0)
    checks.slots_went_back_to_idle(batch)
    assert batch.timeline.requests[0].abandoned is not None
    checks.every_request_predicted(batch, 30)  # the abandoned request is left out


def test_a_cancelled_request_that_keeps_its_slot_fails_the_check(fake):
    options = Options(interval=0.002, cancel=(0,), cancel_after_chunks=5, settle=0.5)
    batch = send(fake, n=1, options=options, mock_pause=0.01, n_predict=400, mock_keep_slot=True)
    with pytest.raises(AssertionError, match=r"request 0 of 1 kept slot \d \(task \d+\): still busy"):
        checks.cancelled_requests_freed_their_slots(batch, within=0.3)
    with pytest.raises(AssertionError, match="the slots did not go back to idle"):
        checks.slots_went_back_to_idle(batch)


def test_a_plain_request_abandoned_once_busy(fake):
    options = Options(interval=0.002, cancel=(0,), cancel_when="busy")
    batch = send(fake, n=1, options=options, stream=False, mock_pause=0.01, n_predict=400)
    assert batch.abandoned == [0] and batch.results[0].status is None
    checks.cancelled_requests_freed_their_slots(batch, within=1.0)


def test_more_users_than_slots_are_deferred_and_served_in_order(fake):
    options = Options(interval=0.002, metrics=True, dispatch="in_order")
    batch = send(fake, n=5, options=options, mock_pause=0.005)
    checks.no_request_lost_or_duplicated(batch)
    checks.requests_were_deferred(batch)
    checks.served_in_order(batch)
    assert len({iv.id_task for iv in batch.timeline.intervals()}) == 5
    checks.metrics_counted_every_predicted_token(batch)
    checks.slots_went_back_to_idle(batch)
    sent = [span.sent for span in batch.timeline.requests]
    assert sent == sorted(sent)


def test_a_queued_request_abandoned_leaves_the_queue(fake):
    bodies = build_bodies("native", ["a", "b", "c"], n_predicts=[60, 60, 5], fields={"mock_pause": 0.01})
    options = Options(interval=0.002, metrics=True, dispatch="in_order", cancel=(2,), cancel_when="deferred")
    batch = asyncio.run(run_batch(fake, "/completion", bodies, options))
    assert batch.abandoned == [2]
    checks.abandoned_requests_left_the_queue(batch)
    assert len({iv.id_task for iv in batch.timeline.intervals()}) == 2
    checks.every_request_succeeded(batch)


def test_a_request_sent_mid_generation_overlaps(fake):
    options = Options(interval=0.002, dispatch="mid_generation", dispatch_after_tokens=10)
    batch = send(fake, options=options, mock_pause=0.005, n_predict=60)
    checks.requests_overlapped(batch, 0, 1)
    spans = batch.timeline.requests
    assert spans[1].sent > spans[0].first
    with pytest.raises(AssertionError, match=r"request 0 \(task 1\) started on a slot at .* before request 1"):
        checks.requests_overlapped(batch, 1, 0)


def test_a_user_who_stays_until_the_others_are_done(fake):
    bodies = build_bodies("native", ["stays", "passes by"], n_predicts=[100000, 30], fields={"mock_pause": 0.005})
    options = Options(interval=0.002, dispatch="mid_generation", dispatch_after_tokens=5, cancel=(0,),
                      cancel_when="others_done")
    batch = asyncio.run(run_batch(fake, "/completion", bodies, options))
    assert batch.abandoned == [0] and batch.timeline.requests[0].abandoned >= batch.timeline.requests[1].end
    checks.every_request_predicted(batch, 30)
    checks.requests_overlapped(batch, 0, 1)
    checks.cancelled_requests_freed_their_slots(batch, within=1.0)


def test_one_by_one_never_overlaps(fake):
    batch = send(fake, n=3, options=Options(interval=0.002, dispatch="one_by_one"))
    spans = batch.timeline.requests
    assert spans[1].sent >= spans[0].end and spans[2].sent >= spans[1].end
    assert batch.timeline.max_busy == 1
    with pytest.raises(AssertionError, match=r"request 1 never ran while request 0 did: no slot sample shows both "
                                             r"busy"):
        checks.requests_overlapped(batch, 0, 1)


def test_no_idle_slot_probe(fake):
    batch = send(fake, options=Options(interval=0.002, probe_no_idle_slot=True), mock_pause=0.01)
    checks.no_idle_slot_reported(batch)
    assert {p.status for p in batch.timeline.probes} <= {200, 503}


def test_hanging_up_once_the_server_reported_no_idle_slot(fake):
    options = Options(interval=0.002, probe_no_idle_slot=True, cancel=(0, 1), cancel_when="all_busy")
    batch = send(fake, options=options, mock_pause=0.01, n_predict=100000)
    assert batch.abandoned == [0, 1]
    checks.no_idle_slot_reported(batch)
    checks.slots_went_back_to_idle(batch)


def test_openai_chat_streams_carry_one_choice(fake):
    batch = send(fake, route="chat")
    checks.every_request_succeeded(batch)
    checks.every_chunk_carried_one_choice(batch)
    checks.every_request_predicted(batch, 40)
    checks.every_request_finished_with(batch, "length")
    plain = send(fake, route="chat", stream=False)
    checks.batch_texts_equal(batch, plain)


def test_mixed_routes_in_one_batch(fake):
    bodies = build_bodies("native", ["a"], fields={"n_predict": 5}) + build_bodies("chat", ["b"], stream=False,
                                                                                   fields={"n_predict": 6})
    bodies.append({"prompt": "c", "n_predict": -5})
    batch = asyncio.run(run_batch(fake, ["/completion", "/v1/chat/completions", "/nothing"], bodies,
                                  Options(interval=0.002, metrics=True)))
    assert batch.where == "POST to 3 routes"
    assert [r.status for r in batch.results] == [200, 200, 404]
    with pytest.raises(AssertionError, match="request 2 of 3 asked for -5 tokens but was not rejected with 400"):
        checks.every_request_got_what_it_asked(batch)
    checks.every_answer_named_a_real_slot(batch)
    with pytest.raises(ValueError, match="2 paths for 3 bodies"):
        asyncio.run(run_batch(fake, ["/a", "/b"], bodies, Options(watch=False)))


def test_the_token_counter_allows_for_abandoned_requests(fake):
    bodies = build_bodies("native", ["leaves", "stays"], n_predicts=[300, 20], fields={"mock_pause": 0.005})
    options = Options(interval=0.002, metrics=True, cancel=(0,), cancel_after_chunks=3)
    batch = asyncio.run(run_batch(fake, "/completion", bodies, options))
    assert batch.abandoned == [0]
    checks.metrics_counted_every_predicted_token(batch)


def test_the_batch_deadline_bounds_everything(fake):
    started = time.monotonic()
    batch = send(fake, n=2, options=Options(interval=0.002, timeout=0.5), mock_pause=0.05, n_predict=1000)
    assert time.monotonic() - started < 3
    assert all("no complete answer within" in r.error for r in batch.results)


def test_a_dead_server_gives_errors_not_exceptions(closed_port_url):
    batch = send(closed_port_url, options=Options(timeout=2, settle=0.2))
    assert all(r.status is None and r.error for r in batch.results)
    assert batch.timeline.errors and not batch.timeline.slots
    with pytest.raises(AssertionError, match="the slot sampler got no /slots answer: GET /slots: ConnectionRefused"):
        checks.all_slots_were_busy(batch)


def test_options_are_checked():
    with pytest.raises(ValueError, match="dispatch must be one of"):
        Options(dispatch="sideways")
    with pytest.raises(ValueError, match="dispatch=in_order needs watch and metrics"):
        Options(dispatch="in_order")
    with pytest.raises(ValueError, match="cancel_when=busy needs watch"):
        Options(cancel=(0,), cancel_when="busy", watch=False)
    with pytest.raises(ValueError, match="at least 1"):
        Options(cancel_after_chunks=0)
    with pytest.raises(ValueError, match="cancel index 3 is out of range for 1 requests"):
        asyncio.run(run_batch("http://127.0.0.1:1", "/completion", [{}], Options(cancel=(3,), watch=False)))
