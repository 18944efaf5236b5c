"""Assertions on a `Batch` and its slot timeline; each failure is one line that names the request or slot.

Requests are named by their index in the batch (``request 3 of 6``). Requests the client hung up on
as planned (``cancel``) are left out of the request checks and looked at by
`cancelled_requests_freed_their_slots`.
"""

from __future__ import annotations

import itertools
import json
import time

from llamatest import machine
from llamatest.concurrency import answers
from llamatest.concurrency.batch import Batch
from llamatest.concurrency.timeline import MetricsSample, Timeline
from llamatest.streaming.result import StreamResult
from llamatest.textutil import first_difference, short_repr

NO_SLOT = {"code": 503, "message": "no slot available", "type": "unavailable_error"}


def _name(batch: Batch, i: int) -> str:
    return f"request {i} of {len(batch)}"


def _problem(r: StreamResult) -> str | None:
    """Why a request did not get a complete answer, or None."""
    if r.status is None:
        return r.error or "no answer"
    if r.status != 200:
        return f"status {r.status}: {short_repr(r.json_body if r.json_body is not None else r.body, 160)}"
    if r.error:
        return r.error
    err = answers.error(r)
    if err is not None:
        return f"error {short_repr(err, 160)}"
    if answers.final(r) is None:
        return f"no closing chunk ({len(r.events)} events)"
    return None


def _ran_out_of_time(r: StreamResult) -> bool:
    """The request's only problem is a deadline (stream_one's, or the batch's before it was sent)."""
    return r.error is not None and ("answer within" in r.error or "batch deadline" in r.error)


def every_request_succeeded(batch: Batch) -> None:
    """Every request got a complete answer. Failures that are all deadlines, on a machine that other processes
    kept busy meanwhile, are not judged (a skip with the figures)."""
    failed = [(i, problem) for i in batch.served() if (problem := _problem(batch.results[i]))]
    if failed:
        first, problem = failed[0]
        message = f"{len(failed)} of {len(batch)} requests failed; {_name(batch, first)}: {problem}"
        if all(_ran_out_of_time(batch.results[i]) for i, _ in failed):
            raise machine.judge_timing(message, _batch_start(batch))
        raise AssertionError(message)


def no_request_lost_or_duplicated(batch: Batch) -> None:
    """Every request (but the abandoned ones) got exactly one answer: one closing chunk (or body) or one
    error object, and at most one ``[DONE]``. A clean error is an answer; no answer, a transport error or a
    stream cut before its end is a lost request."""
    for i in batch.served():
        r = batch.results[i]
        if r.status is None or r.error:
            raise AssertionError(f"{_name(batch, i)} was lost: {r.error or 'no answer'}")
        count = answers.finals(r) + (answers.error(r) is not None)
        if count == 0:
            raise AssertionError(f"{_name(batch, i)} was lost: status {r.status}, no closing chunk and no error "
                                 f"({len(r.events)} events)")
        if count > 1 or r.done_count > 1:
            raise AssertionError(f"{_name(batch, i)} was answered more than once: {count} closing chunks or "
                                 f"errors, {r.done_count} [DONE] markers")


def every_request_ran_out_of_time(batch: Batch) -> None:
    """Every request was still running when the batch deadline ended it (its client gave up)."""
    for i in batch.served():
        r = batch.results[i]
        if not (r.error or "").startswith("no complete answer within"):
            raise AssertionError(f"{_name(batch, i)} did not run into the batch deadline: status {r.status}, "
                                 f"{r.error or 'no error'}")


def every_request_predicted(batch: Batch, n: int) -> None:
    for i in batch.served():
        got = answers.predicted(batch.results[i])
        if got != n:
            problem = _problem(batch.results[i])
            why = f" ({problem})" if problem else ""
            raise AssertionError(f"{_name(batch, i)} predicted {got} tokens, expected {n}{why}")


def every_request_finished_with(batch: Batch, reason: str) -> None:
    for i in batch.served():
        got = answers.finish_reason(batch.results[i])
        if got != reason:
            raise AssertionError(f"{_name(batch, i)} finished with {got!r}, expected {reason!r}")


def _clean_error(batch: Batch, i: int) -> dict | None:
    """The request's error object, checked for shape and place; None when the answer has no error."""
    r = batch.results[i]
    err = answers.error(r)
    if err is None:
        return None
    if not answers.is_clean_error(err):
        raise AssertionError(f"{_name(batch, i)} failed with a malformed error object: {short_repr(err, 160)}")
    if answers.is_stream(r):
        last = r.events[-1].json if r.events else None
        if not isinstance(last, dict) or last.get("error") is not err or r.done_count or r.error:
            raise AssertionError(f"{_name(batch, i)}: the error event does not close the stream cleanly "
                                 f"({len(r.events)} events, {r.done_count} [DONE], {r.error or 'no cut'})")
    elif r.status != err["code"]:
        raise AssertionError(f"{_name(batch, i)}: status {r.status} but error code {err['code']}")
    return err


def every_request_predicted_or_failed_cleanly(batch: Batch, n: int) -> list[str]:
    """Each request has its ``n`` tokens, or an error in the server's error shape (a JSON answer with that
    status, or one error event closing a stream, without ``[DONE]``). Returns one outcome per request."""
    outcomes = []
    for i in batch.served():
        r = batch.results[i]
        err = _clean_error(batch, i)
        if err is not None:
            outcomes.append(f"error {err['code']} {err['message']}")
            continue
        got = answers.predicted(r)
        if r.status != 200 or r.error or got != n:
            raise AssertionError(f"{_name(batch, i)} neither predicted {n} tokens nor failed cleanly: status "
                                 f"{r.status}, {got} tokens, {r.error or 'no error'}")
        outcomes.append(f"{n} tokens")
    return outcomes


def every_chunk_carried_one_choice(batch: Batch) -> None:
    """OpenAI streams: every chunk has exactly one choice, with index 0; the usage chunk (``choices: []``
    with ``usage``) is the one exception."""
    for i in batch.served():
        r = batch.results[i]
        if not answers.is_stream(r):
            raise AssertionError(f"{_name(batch, i)} is not a stream ({r.content_type or 'no content type'})")
        for k, event in enumerate(r.events):
            obj = event.json
            if event.is_done or (isinstance(obj, dict) and obj.get("choices") == [] and "usage" in obj):
                continue
            choices = obj.get("choices") if isinstance(obj, dict) else None
            if not isinstance(choices, list) or len(choices) != 1 or choices[0].get("index") != 0:
                raise AssertionError(f"{_name(batch, i)}, event {k}: expected exactly one choice with index 0, "
                                     f"got {short_repr(choices, 120)}")


def texts(batch: Batch) -> list[str | None]:
    return [answers.text(r) for r in batch.results]


def every_request_gave_the_text(batch: Batch, text: str) -> None:
    for i in batch.served():
        got = answers.text(batch.results[i])
        if got != text:
            raise AssertionError(f"{_name(batch, i)} gave another text: {_diff(got, text)}")


def every_request_gave_the_same_text(batch: Batch) -> None:
    served = batch.served()
    if not served:
        raise AssertionError("no request to compare")
    first = answers.text(batch.results[served[0]])
    if first is None:
        raise AssertionError(f"{_name(batch, served[0])} has no text: {_problem(batch.results[served[0]])}")
    for i in served[1:]:
        other = answers.text(batch.results[i])
        if other != first:
            raise AssertionError(f"{_name(batch, i)} gave another text than request {served[0]}: "
                                 f"{_diff(first, other)}")


def batch_texts_equal(batch: Batch, other: Batch) -> None:
    """Request ``i`` of both batches gave the same text, for every ``i``."""
    if len(batch) != len(other):
        raise AssertionError(f"the batches differ in size: {len(batch)} and {len(other)} requests")
    for i, (a, b) in enumerate(zip(texts(batch), texts(other), strict=True)):
        if a is None or a != b:
            raise AssertionError(f"request {i}: the texts differ: {_diff(a, b)}")


def texts_all_differ(batch: Batch) -> None:
    found = texts(batch)
    if None in found:
        i = found.index(None)
        raise AssertionError(f"{_name(batch, i)} has no text: {_problem(batch.results[i])}")
    for i, j in itertools.combinations(range(len(found)), 2):
        if found[i] == found[j]:
            raise AssertionError(f"requests {i} and {j} gave the same text ({len(found[i])} chars)")


def _diff(a: str | None, b: str | None) -> str:
    if a is None or b is None:
        return f"{short_repr(a, 40)} vs {short_repr(b, 40)}"
    at = first_difference(a, b)
    return f"they differ from char {at} ({short_repr(a[at:at + 20])} vs {short_repr(b[at:at + 20])}; " \
           f"{len(a)} and {len(b)} chars)"


def _vectors(batch: Batch, i: int) -> list[tuple[str, list[float]]]:
    """``(input, vector)`` for every input of request ``i`` (``input`` is a text or a list of texts)."""
    r = batch.results[i]
    body = r.json_body
    asked = r.request_body.get("input") if isinstance(r.request_body, dict) else None
    inputs = asked if isinstance(asked, list) else [asked]
    try:
        data = sorted(body["data"], key=lambda item: item["index"])
        vectors = [item["embedding"] for item in data]
        if len(vectors) != len(inputs) or not all(v and all(isinstance(x, (int, float)) for x in v)
                                                  for v in vectors):
            raise ValueError
    except (KeyError, IndexError, TypeError, ValueError):
        raise AssertionError(f"{_name(batch, i)} has not one vector per input: "
                             f"{_problem(r) or short_repr(body)}") from None
    return [(json.dumps(text), vector) for text, vector in zip(inputs, vectors, strict=True)]


def _max_difference(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        return float("inf")
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


def every_request_gave_the_same_embedding(batch: Batch, tolerance: float) -> None:
    """Every request got the vectors of request 0, within ``tolerance``."""
    first = [vector for _, vector in _vectors(batch, 0)]
    for i in range(1, len(batch)):
        got = [vector for _, vector in _vectors(batch, i)]
        gap = max(map(_max_difference, first, got)) if len(got) == len(first) else float("inf")
        if gap > tolerance:
            raise AssertionError(f"{_name(batch, i)} got other vectors than request 0: components differ by "
                                 f"up to {gap:.3g} (tolerance {tolerance:g})")


def embeddings_match_their_inputs(batch: Batch, alone: Batch, tolerance: float) -> None:
    """Every input of every request of ``batch`` got the vector it got in ``alone`` (one input per request),
    within ``tolerance``: an input's vector does not depend on what is computed with it."""
    reference = dict(pair for i in range(len(alone)) for pair in _vectors(alone, i))
    for i in range(len(batch)):
        for text, vector in _vectors(batch, i):
            if text not in reference:
                raise AssertionError(f"{_name(batch, i)}: its input {short_repr(text)} was not sent alone")
            if (gap := _max_difference(vector, reference[text])) > tolerance:
                raise AssertionError(f"{_name(batch, i)}: input {short_repr(text, 40)} got another vector than "
                                     f"alone: components differ by up to {gap:.3g} (tolerance {tolerance:g})")


# ---- the slot timeline ---------------------------------------------------------------------------------


def _timeline(batch: Batch) -> Timeline:
    if batch.timeline is None:
        raise AssertionError("the batch has no slot timeline: send it with watch=True")
    if not batch.timeline.slots:
        errors = "; ".join(e for _, e in batch.timeline.errors[:2]) or "no poll answered"
        raise AssertionError(f"the slot sampler got no /slots answer: {errors}")
    return batch.timeline


def _batch_start(batch: Batch) -> float:
    """The batch's start on the monotonic clock, for `machine.judge_timing` (a check runs just after a batch)."""
    return time.monotonic() - batch.wall_s - 1.0


def _sampler_behind(batch: Batch, what: str) -> machine.NotJudged:
    """The harness's own failure: the ``/slots`` sampler did not sample often enough to judge the server."""
    tl = batch.timeline
    gaps = [b.t_sent - a.t_sent for a, b in itertools.pairwise(tl.slots)] if tl is not None else []
    widest = f"{max(gaps):.3f} s" if gaps else "n/a"
    share = machine.monitor().share_since(_batch_start(batch))
    return machine.NotJudged(f"not judged, the /slots sampler fell behind (the harness's fault, not the "
                             f"server's): {what}; {len(tl.slots) if tl else 0} samples in {batch.wall_s:.2f} s, "
                             f"widest gap {widest}; {share.describe()}")


def _metrics(tl: Timeline, at_least: int = 1, what: str = "no /metrics sample",
             name: str | None = None) -> list[MetricsSample]:
    """The ``/metrics`` samples (those with ``name``, when given); fails with ``what`` when there are fewer
    than ``at_least``."""
    samples = tl.metrics if name is None else [m for m in tl.metrics if name in m.values]
    if len(samples) < at_least:
        raise AssertionError(f"{what}: send the batch with metrics=True to a server with --metrics")
    return samples


def all_slots_were_busy(batch: Batch) -> None:
    """Some ``/slots`` sample shows every slot busy, or (with metrics) the server's own counters show a decode
    step with every slot busy: more than ``n_slots - 1`` busy slots per decode on average over the batch."""
    tl = _timeline(batch)
    if tl.first_all_busy() is not None:
        return
    average = tl.batch_busy_slots_per_decode()
    n = tl.n_slots or 0
    if average is not None and average > n - 1:
        return
    counters = "no /metrics" if average is None else f"/metrics: {average:.3f} busy slots per decode on average"
    # Overlap depends on the client sending every request while the others still run: beside CPU hogs a starved
    # client sent the second of two short requests only after the first had ended (flake count, --processes 2).
    raise machine.judge_timing(f"the slots were never all busy at once: {tl.summary()}; {counters}",
                               _batch_start(batch))


def slots_became_idle(idle: bool, tl: Timeline, timeout: float) -> None:
    """The outcome of polling ``/slots`` until idle (``wait_slots_idle``): it answered, and no slot was busy."""
    if not tl.slots:
        raise AssertionError(f"GET /slots never answered: {tl.errors[-1][1] if tl.errors else 'no poll'}")
    if not idle:
        raise machine.judge_timing(f"{tl.slots[-1].busy_description} still busy after {timeout} s",
                                   time.monotonic() - timeout)


def slots_went_back_to_idle(batch: Batch) -> None:
    """After the last request ended: a sample with no slot busy and, with metrics, nothing processing or queued."""
    tl = _timeline(batch)
    done = tl.requests_done or 0.0
    if tl.idle_after(done) is None:
        last = tl.slots[-1]
        if last.t_sent < done:
            raise _sampler_behind(batch, f"no /slots sample after the last request ended: the last one was "
                                         f"sent {done - last.t_sent:.2f} s before")
        # the settle window is a deadline: a starved machine may still be finishing the work
        raise machine.judge_timing(f"the slots did not go back to idle: {last.busy_description} still busy "
                                   f"{last.t - done:.2f} s after the last request ended", _batch_start(batch))
    if tl.metrics and tl.metrics_idle_after(done) is None:
        values = tl.metrics[-1].values
        raise machine.judge_timing(f"/metrics did not go back to idle: requests_processing "
                                   f"{values.get('requests_processing')}, "
                                   f"requests_deferred {values.get('requests_deferred')}", _batch_start(batch))


def requests_were_deferred(batch: Batch) -> None:
    tl = _timeline(batch)
    _metrics(tl)
    most = tl.metric_max("requests_deferred")
    if most is None:
        raise AssertionError("/metrics has no llamacpp:requests_deferred")
    if most <= 0:
        # A request surely waits once all are sent and until the first one ends. A sampler with no /metrics
        # answer from inside that window could not have seen the wait.
        ends = [span.end for span in tl.requests if span.end is not None]
        sent = [span.sent for span in tl.requests if span.sent is not None]
        inside = [m for m in tl.metrics if ends and sent and max(sent) <= m.t_sent and m.t <= min(ends)]
        if ends and sent and not inside:
            raise _sampler_behind(batch, f"no /metrics answer came between the last request sent "
                                         f"({max(sent):.3f} s) and the first one ended ({min(ends):.3f} s)")
        # Nothing deferred while the first ran, although every request had been sent: the later ones had not
        # reached the server's task queue yet (their tasks start only after the first ended). The server took
        # seconds to accept a request: a timing failure, judged like a missed deadline.
        raise machine.judge_timing(
            f"llamacpp:requests_deferred stayed 0 in {len(tl.metrics)} samples ({len(inside)} of them between "
            f"the last request sent and the first one ended); tasks in the order their slots showed them: "
            f"{_tasks_seen(tl)}", _batch_start(batch))


def _tasks_seen(tl: Timeline) -> str:
    """Each task id a busy slot showed, with the batch time it was first seen: ``22 at 0.012 s, 648 at 3.1 s``."""
    first: dict[int, float] = {}
    for sample in tl.slots:
        for state in sample.slots:
            if state.busy and state.id_task is not None:
                first.setdefault(state.id_task, sample.t)
    return ", ".join(f"{task} at {t:.3f} s" for task, t in first.items()) or "none seen busy"


def metrics_counted_every_predicted_token(batch: Batch) -> None:
    """``llamacpp:tokens_predicted_total`` grew during the batch by the tokens the requests predicted (first
    sample: before the first request; last: after the slots went idle).

    A request answered with an error counts 0. The server may generate a few more tokens for an abandoned
    request than its client read, so each abandoned request counts from the token chunks read to its
    ``n_predict``; without one, the growth must be exact.
    """
    tl = _timeline(batch)
    values = [m.values["tokens_predicted_total"] for m in _metrics(
        tl, 2, "fewer than two /metrics samples with llamacpp:tokens_predicted_total", name="tokens_predicted_total")]
    low = high = 0
    for i, r in enumerate(batch.results):
        if i in batch.abandoned:
            low += len(r.text_events())
            high += _asked(r)
            continue
        count = 0 if answers.error(r) is not None else answers.predicted(r)
        if count is None:
            raise AssertionError(f"{_name(batch, i)} reports no predicted token count")
        low, high = low + count, high + count
    grown = values[-1] - values[0]
    if not low <= grown <= high:
        expected = f"{low}" if low == high else f"between {low} and {high}"
        raise AssertionError(f"llamacpp:tokens_predicted_total grew by {grown:g} during the batch, but the "
                             f"requests predicted {expected} tokens")


def _asked(r: StreamResult) -> int:
    body = r.request_body if isinstance(r.request_body, dict) else {}
    asked = body.get("n_predict", body.get("max_tokens"))
    if not isinstance(asked, int) or isinstance(asked, bool):
        raise AssertionError(f"{r.where}: the request states no n_predict or max_tokens")
    return asked


def every_request_got_what_it_asked(batch: Batch) -> None:
    """Every request (but the abandoned ones) asking for ``n_predict`` (or ``max_tokens``) of -1 or more got
    exactly that many tokens; one asking for less than -1 was rejected with a clean 400
    ``invalid_request_error``."""
    for i in batch.served():
        r = batch.results[i]
        asked = _asked(r)
        if asked < -1:
            err = _clean_error(batch, i)
            if err is None or err["code"] != 400 or err["type"] != "invalid_request_error":
                raise AssertionError(f"{_name(batch, i)} asked for {asked} tokens but was not rejected with 400 "
                                     f"invalid_request_error: status {r.status}, {short_repr(err, 120)}")
        elif (problem := _problem(r)) is not None or answers.predicted(r) != asked:
            raise AssertionError(f"{_name(batch, i)} asked for {asked} tokens and got {answers.predicted(r)}"
                                 f"{f' ({problem})' if problem else ''}")


def every_answer_named_a_real_slot(batch: Batch) -> None:
    """Every native answer names a slot the server has (``0 <= id_slot < n_slots``); there must be one."""
    tl = _timeline(batch)
    named = [(i, answers.slot(batch.results[i])) for i in batch.served()
             if isinstance(answers.final(batch.results[i]), dict) and "id_slot" in answers.final(batch.results[i])]
    if not named:
        raise AssertionError("no answer names a slot (only native /completion answers do)")
    for i, slot in named:
        if slot is None or not 0 <= slot < (tl.n_slots or 0):
            raise AssertionError(f"{_name(batch, i)} names slot {slot!r}, but the server has {tl.n_slots} slots")


def served_in_order(batch: Batch) -> None:
    """FIFO: the requests (sent in index order) started on a slot in that order, with rising task ids.

    Start times are known to the sampler's resolution: a request counts as started before an earlier
    one only when it was seen on a slot before the last sample that did not show the earlier one yet.

    Pairs of requests the sampler saw on slots are compared; it must have seen more requests than there
    are slots, so that queued ones are among them.
    """
    tl = _timeline(batch)
    matched = tl.request_intervals()
    seen = [i for i in batch.served() if i in matched]
    needed = min(len(batch.served()), (tl.n_slots or 0) + 1)
    if len(seen) < needed:
        raise _sampler_behind(batch, f"it saw only {len(seen)} of {len(batch.served())} requests on a slot, "
                                     f"fewer than {needed}: {tl.summary()}; make the requests longer")
    _no_request_hidden_between_polls(batch, tl)
    for i, j in itertools.pairwise(seen):
        a, b = matched[i], matched[j]
        # Seen on a slot before the sample that last showed request i not started yet: b surely began first.
        # Starts within one polling interval of each other cannot be ordered by the sampler.
        if b.start < (a.since if a.since is not None else a.start) or (
                a.id_task is not None and b.id_task is not None and b.id_task <= a.id_task):
            raise AssertionError(f"request {j} (task {b.id_task}, slot {b.slot}, from {b.start:.3f} s) was served "
                                 f"before request {i} (task {a.id_task}, slot {a.slot}, from {a.start:.3f} s)")


def _no_request_hidden_between_polls(batch: Batch, tl: Timeline) -> None:
    """Requests are matched to the busy stretches the sampler saw by slot and time; a request that ran whole
    between two polls leaves no stretch, and another request is then taken for it. Not judged (the sampler's
    fault) when, while the batch ran, two polls were further apart than the shortest request held its slot
    (the server's own ``timings``)."""
    held = [(s, i) for i in batch.served() if (s := answers.server_seconds(batch.results[i])) is not None]
    sent = [span.sent for span in tl.requests if span.sent is not None]
    if not held or not sent:
        return
    during = [s for s in tl.slots if min(sent) <= s.t and s.t_sent <= (tl.requests_done or tl.end)]
    gaps = [(b.t - a.t_sent, a.t) for a, b in itertools.pairwise(during)]
    if not gaps:
        return
    (shortest, i), (gap, at) = min(held), max(gaps)
    if gap >= shortest:
        raise _sampler_behind(batch, f"two polls {gap:.3f} s apart (from {at:.3f} s), longer than {_name(batch, i)} "
                                     f"held its slot ({shortest:.3f} s): a whole request may have run unseen")


def no_idle_slot_reported(batch: Batch) -> None:
    """While every slot was busy, ``/slots?fail_on_no_slot=1`` answered 503 with the unavailable error."""
    tl = _timeline(batch)
    if not tl.probes:
        raise AssertionError(f"never asked /slots?fail_on_no_slot=1: the sampler never saw every slot busy "
                             f"({tl.summary()}); send the batch with probe_no_idle_slot=True")
    for probe in tl.probes:
        if probe.status == 503 and (not isinstance(probe.body, dict) or probe.body.get("error") != NO_SLOT):
            raise AssertionError(f"503 from /slots?fail_on_no_slot=1 with {short_repr(probe.body, 160)}, "
                                 f"expected {{'error': {NO_SLOT}}}")
        if probe.status not in (200, 503):
            raise AssertionError(f"/slots?fail_on_no_slot=1 answered {probe.status}: {short_repr(probe.body, 160)}")
    if not any(probe.status == 503 for probe in tl.probes):
        raise AssertionError(f"/slots?fail_on_no_slot=1 answered 200 all {len(tl.probes)} times it was asked "
                             f"while the slots looked all busy")


def cancelled_requests_freed_their_slots(batch: Batch, within: float) -> None:
    """Each request the client hung up on, seen on a slot, left it (idle or another task) within ``within`` s."""
    tl = _timeline(batch)
    if not batch.abandoned:
        raise AssertionError("no request was abandoned by the client")
    matched = tl.request_intervals()
    last = tl.slots[-1].t
    for i in batch.abandoned:
        span = tl.requests[i]
        interval = matched.get(i)
        if interval is None:
            raise _sampler_behind(batch, f"it never saw {_name(batch, i)} on a slot before it was abandoned")
        hung_up = span.abandoned if span.abandoned is not None else 0.0
        if interval.until == interval.end and interval.end >= last:
            raise AssertionError(f"{_name(batch, i)} kept slot {interval.slot} (task {interval.id_task}): still "
                                 f"busy {last - hung_up:.2f} s after the client hung up")
        if interval.until - hung_up > within:
            raise machine.judge_timing(f"{_name(batch, i)} kept slot {interval.slot} (task {interval.id_task}) "
                                       f"for {interval.until - hung_up:.2f} s after the client hung up, more than "
                                       f"{within} s", _batch_start(batch))


def abandoned_requests_left_the_queue(batch: Batch) -> None:
    """Each request abandoned while queued left the queue: after its hang-up, while another request of the
    batch still ran, ``/metrics`` showed ``requests_deferred`` back at 0."""
    tl = _timeline(batch)
    _metrics(tl)
    if not batch.abandoned:
        raise AssertionError("no request was abandoned by the client")
    for i in batch.abandoned:
        hung_up = tl.requests[i].abandoned or 0.0
        ends = [span.end for span in tl.requests if span.index != i and span.end is not None]
        running_until = max(ends, default=hung_up)
        emptied = tl.metrics_after(hung_up, lambda v: v.get("requests_deferred", 0) == 0)
        if emptied is None or emptied.t_sent > running_until:
            most = max((m.values.get("requests_deferred", 0) for m in tl.metrics if m.t_sent >= hung_up), default=0)
            raise AssertionError(f"{_name(batch, i)} stayed queued after its client hung up: "
                                 f"llamacpp:requests_deferred stayed at {most:g} for the "
                                 f"{running_until - hung_up:.2f} s the other requests still ran")


def requests_ran_one_at_a_time(batch: Batch) -> None:
    """No two requests of the batch ran at once (a request that waited in the queue started only after the
    one before it ended); the server must run nothing else meanwhile.

    Evidence that does not depend on the sampler's luck: the ``/metrics`` counters, from the first sample to
    one after the last request ended, show at most one busy slot per ``llama_decode()`` call; had two
    requests run at once, some decode would have had two. A ``/slots`` sample with two slots busy fails too.
    """
    tl = _timeline(batch)
    both = next((s for s in tl.slots if len(s.busy_tasks) > 1), None)
    if both is not None:
        tasks = " and ".join(str(task) for task in sorted(both.busy_tasks))
        raise AssertionError(f"two requests ran at once: the /slots sample at {both.t:.3f} s shows tasks {tasks} "
                             f"busy")
    _metrics(tl, 2, "fewer than two /metrics samples")
    if tl.requests_done is None or tl.metrics[-1].t_sent < tl.requests_done:
        raise AssertionError("no /metrics sample after the last request ended")
    average = tl.batch_busy_slots_per_decode()
    if average is None:
        raise AssertionError("/metrics shows no decode during the batch (or lacks n_busy_slots_per_decode and "
                             "n_decode_total)")
    if average > 1:
        raise AssertionError(f"two requests ran at once: /metrics shows {average:.3f} busy slots per decode during "
                             f"the batch, more than one")


def requests_overlapped(batch: Batch, earlier: int, later: int) -> None:
    """Continuous batching, as the server shows it: request ``later`` ran while request ``earlier`` did.

    Evidence: a ``/slots`` sample with both tasks busy; or, in a batch of these two requests only, the
    ``/metrics`` counters showing more than one busy slot per decode between the moment ``later`` was sent
    and the end of ``earlier``. When the sampler saw both tasks, ``later``'s must have started last.
    """
    tl = _timeline(batch)
    a, b = tl.requests[earlier], tl.requests[later]
    matched = tl.request_intervals()
    first, second = matched.get(earlier), matched.get(later)
    if first is not None and second is not None:
        if second.start < first.start:
            raise AssertionError(f"request {later} (task {second.id_task}) started on a slot at "
                                 f"{second.start:.3f} s, before request {earlier} (task {first.id_task}) at "
                                 f"{first.start:.3f} s")
        if any({first.id_task, second.id_task} <= sample.busy_tasks for sample in tl.slots):
            return
    average = None
    if len(batch) == 2 and b.sent is not None and tl.metrics:
        before = [m for m in tl.metrics if m.t <= b.sent] or tl.metrics[:1]
        after = [m for m in tl.metrics if a.end is not None and m.t_sent >= a.end] or tl.metrics[-1:]
        average = tl.busy_slots_per_decode(before[-1], after[0])
        if average is not None and average > 1:
            return
    counters = "" if average is None else f"; /metrics: {average:.3f} busy slots per decode meanwhile"
    raise machine.judge_timing(f"request {later} never ran while request {earlier} did: no slot sample shows "
                               f"both busy ({tl.summary()}){counters}", _batch_start(batch))  # see all_slots_were_busy
