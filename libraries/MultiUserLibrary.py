"""Robot facade of llamatest.concurrency: many users at once, the slot timeline, and their assertions."""

from __future__ import annotations

import dataclasses

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest import deadlines
from llamatest.concurrency import checks
from llamatest.concurrency.batch import Batch, Options, run_batch
from llamatest.concurrency.bodies import build_bodies, build_mixed, route_path
from llamatest.concurrency.chart import batch_report_html, timeline_svg
from llamatest.concurrency.sampler import wait_slots_idle
from robot_glue import server_base_url as _base_url
from robot_glue import server_headers


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class MultiUserLibrary:
    """Sends many requests to llama-server at once, watches its slots while they run, and checks both.

    %TOC%

    = Batches =

    `Send Concurrent Completions` (and ``Send Concurrent Chat Completions`` of ``slots.resource``, the same
    with ``route=chat``) and `Send Concurrent Embeddings` send one request per prompt
    (or one prompt ``times`` times) from one ``async`` keyword, all at once, and return a *batch*:
    ``${batch.results}`` holds one StreamingLibrary result per request, in request order, so every
    StreamingLibrary check works on ``${batch.results}[0]``; ``${batch.timeline}`` is the slot timeline.
    Streamed and plain answers, native ``/completion`` (``route=native``), OpenAI ``/v1/completions``
    (``route=openai``) and ``/v1/chat/completions`` are read the same way.

    Request fields are named arguments (``n_predict=${64}``) and go into every body, with
    ``temperature: 0`` unless given. ``id_slots``, ``seeds`` and ``n_predicts`` give one value per request
    (or one for all).

    = The slot timeline =

    While the requests run (``watch=True``, the default), a sampler polls ``GET /slots`` every ``interval``
    seconds (5 ms), and ``GET /metrics`` too with ``metrics=True`` (the server needs ``--metrics``). It
    polls from a thread of its own, started and stopped inside the keyword, so that the streams it watches
    cannot starve it. After the last request it keeps polling until the slots are idle (and, with metrics,
    nothing is processing or queued), at most ``settle`` seconds. The timeline is drawn in the log: one row
    per slot with its busy stretches labelled by request (``r3``) or task (``t17``), one row per request
    (waiting, then streaming; a cross where the client hung up), and ``requests_deferred``.

    The sampler sees the slots between decode steps, and a loaded machine can delay a poll: a task shorter
    than a few polls may go unseen. Assertions therefore also take the server's own counters when
    ``metrics=True`` (``n_busy_slots_per_decode`` and ``n_decode_total`` tell whether some decode step had
    every slot busy), and tests that assert on the timeline use requests of hundreds of tokens.

    Note: every ``/metrics`` scrape resets the server's two throughput gauges.

    = Dispatch =

    | =dispatch=       | =Request ``i`` is sent…= |
    | ``together``     | with all the others (default) |
    | ``in_order``     | once ``/metrics`` counts request ``i-1`` as processing or queued, so the server \
    receives them in index order (needs ``metrics=True``) |
    | ``mid_generation`` | once ``/slots`` shows request ``i-1``'s task with ``dispatch_after_tokens`` \
    tokens decoded: it arrives while the other is generating (needs ``watch``) |
    | ``one_by_one``   | once request ``i-1`` has ended: one user after the other, each alone |

    = Hanging up =

    ``cancel`` lists the requests whose client hangs up (closes the connection) on purpose:
    | =cancel_when= | =The client hangs up…= |
    | ``chunks``    | after reading ``cancel_after_chunks`` events (streamed requests; several events may \
    arrive in one read) |
    | ``busy``      | once ``/slots`` shows a task that started after the request was sent |
    | ``deferred``  | once ``/metrics`` shows, after it was sent, a deferred request while every slot is \
    processing (needs ``metrics=True``) |
    | ``all_busy``  | once ``/slots`` shows every slot busy (with ``probe_no_idle_slot``: once a probe got 503) |
    | ``others_done`` | once every other request of the batch has ended (a user who stays while others come and go) |
    Their results carry ``error`` = ``abandoned by the client after N events (as planned)`` and are left out
    of the request checks; check them with `Cancelled Requests Should Have Freed Their Slots`.

    = Deadlines =

    The batch keywords are ``async``: Robot timeouts cannot stop them, so ``timeout`` (seconds) bounds the
    whole batch: dispatch waits, every request and the settling. A request still running then ends with
    an ``error``; one never sent says so. The sampler is stopped and the helper tasks (hang-up triggers)
    cancelled before the keyword returns. Each request has a connection of its own, as separate users
    have. Nothing is logged per chunk.

    = Example =

    | Two Users Share Two Slots
    |     ${batch} =    Send Concurrent Completions    first prompt    second prompt    n_predict=${256}
    |     Every Request Should Succeed    ${batch}
    |     Every Request Should Predict    ${batch}    ${256}
    |     All Slots Should Have Been Busy    ${batch}
    |     Slots Should Have Gone Back To Idle    ${batch}
    """

    # ---- batches ---------------------------------------------------------------------------------------

    @keyword("Send Concurrent Completions")
    async def send_concurrent_completions(
            self, *prompts: str, times: int = 1, route: str = "native", stream: bool = True,
            id_slots: list[int] | None = None, seeds: list[int] | None = None, n_predicts: list[int] | None = None,
            server: str = "suite", timeout: float | None = None, watch: bool = True, metrics: bool = False,
            interval: float = 0.005, settle: float | None = None, dispatch: str = "together",
            dispatch_after_tokens: int = 1,
            cancel: list[int] | None = None, cancel_when: str = "chunks", cancel_after_chunks: int = 1,
            probe_no_idle_slot: bool = False, **fields) -> Batch:
        """Sends a completion per prompt (each prompt ``times`` times) at once; returns the batch.

        ``route`` is ``native`` (``/completion``), ``openai`` (``/v1/completions``) or ``chat``
        (``/v1/chat/completions``, each prompt as one user message). See `Batches`, `The slot timeline`,
        `Dispatch`, `Hanging up` and `Deadlines` for the other arguments. ``probe_no_idle_slot=True``
        also asks ``/slots?fail_on_no_slot=1`` whenever every slot looks busy (see
        `Server Should Have Reported No Idle Slot`). Checks nothing: use the assertions.
        """
        bodies = build_bodies(route, prompts, times, stream, id_slots, seeds, n_predicts, fields)
        return await self._send(route, bodies, server, _options(locals()))

    @keyword("Send Concurrent Embeddings")
    async def send_concurrent_embeddings(
            self, *inputs: str | list, times: int = 1, id_slots: list[int] | None = None, server: str = "suite",
            timeout: float | None = None, watch: bool = True, metrics: bool = False, interval: float = 0.005,
            settle: float | None = None,
            dispatch: str = "together", **fields) -> Batch:
        """POSTs ``{"input": text}`` to ``/v1/embeddings`` for every input (each ``times`` times) at once.

        An input may be a list of texts: one request then asks for all of them, and the server computes them
        together. ``dispatch=one_by_one`` sends each after the previous answered: as a single user sends them.
        """
        bodies = build_bodies("embeddings", inputs, times, id_slots=id_slots, fields=fields)
        return await self._send("embeddings", bodies, server, _options(locals()))

    @keyword("Send Mixed Requests")
    async def send_mixed_requests(self, count: int, n_predict: int = 16, invalid_every: int = 0,
                                  cancel_every: int = 0, server: str = "suite", timeout: float | None = None,
                                  metrics: bool = False, interval: float = 0.005, settle: float | None = None,
                                  cancel_after_chunks: int = 2, **fields) -> Batch:
        """Sends ``count`` requests at once, cycling through native ``/completion``, ``/v1/completions`` and
        ``/v1/chat/completions``, streamed and not, each asking for ``n_predict`` tokens (a soak).

        Every ``invalid_every``-th request asks for ``n_predict: -5`` instead (the server must reject it);
        the client hangs up on every ``cancel_every``-th valid stream after ``cancel_after_chunks`` events,
        once its task shows on a slot (a stream that ends first is not abandoned). 0 turns either off.
        Check with `Every Request Should Get What It Asked For`.
        """
        paths, bodies, cancel = build_mixed(count, n_predict, invalid_every, cancel_every, fields)
        return await self._send(paths, bodies, server, _options(locals()))

    async def _send(self, route: str | list[str], bodies: list, server: str, options: Options) -> Batch:
        paths = route_path(route) if isinstance(route, str) else route
        options = dataclasses.replace(options, headers={**server_headers(server), **(options.headers or {})})
        batch = await run_batch(_base_url(server), paths, bodies, options)
        logger.info(batch_report_html(batch), html=True)
        return batch

    # ---- the server now ----------------------------------------------------------------------------------

    @keyword("Slots Should Be Idle")
    async def slots_should_be_idle(self, server: str = "suite") -> None:
        """One ``GET /slots``: no slot may be processing."""
        await self.slots_should_become_idle(server, timeout=0)

    @keyword("Slots Should Become Idle")
    async def slots_should_become_idle(self, server: str = "suite", timeout: float | None = None) -> None:
        """Polls ``GET /slots`` every 10 ms until no slot is processing; fails after ``timeout`` seconds
        (default: the ``slots_idle`` deadline) naming the busy slots and their tasks."""
        timeout = deadlines.or_default(timeout, "slots_idle")
        idle, tl = await wait_slots_idle(_base_url(server), timeout, headers=server_headers(server))
        if tl.slots:
            logger.info(timeline_svg(tl), html=True)
        checks.slots_became_idle(idle, tl, timeout)

    # ---- requests ---------------------------------------------------------------------------------------

    @keyword("Every Request Should Succeed")
    def every_request_should_succeed(self, batch: Batch) -> None:
        """Status 200, no transport error, no error object and a closing chunk (or body) for every request
        but the abandoned ones; the failure names the first failed request."""
        checks.every_request_succeeded(_batch(batch))

    @keyword("No Request Should Be Lost Or Duplicated")
    def no_request_should_be_lost_or_duplicated(self, batch: Batch) -> None:
        """Every request (but the abandoned ones) got exactly one answer.

        An answer is one closing chunk (or body) or one error object, with at most one ``[DONE]``; a clean
        error counts as an answer. No answer, a transport error or a stream cut short is a lost request.
        """
        checks.no_request_lost_or_duplicated(_batch(batch))

    @keyword("Every Request Should Predict")
    def every_request_should_predict(self, batch: Batch, n: int) -> None:
        """Each request predicted exactly ``n`` tokens: native ``tokens_predicted``, OpenAI
        ``usage.completion_tokens``, else ``timings.predicted_n``."""
        checks.every_request_predicted(_batch(batch), n)

    @keyword("Every Request Should Finish With")
    def every_request_should_finish_with(self, batch: Batch, reason: str) -> None:
        """Each request's finish reason is ``reason``.

        That is the native ``stop_type`` (``limit``, ``eos``, ``word``) or the OpenAI ``finish_reason``
        (``length``, ``stop``) of the closing chunk or body.
        """
        checks.every_request_finished_with(_batch(batch), reason)

    @keyword("Every Request Should Have Run Out Of Time")
    def every_request_should_have_run_out_of_time(self, batch: Batch) -> None:
        """Every request was still running when the batch ``timeout`` ended it: the client gave up."""
        checks.every_request_ran_out_of_time(_batch(batch))

    @keyword("Every Request Should Predict Or Fail Cleanly")
    def every_request_should_predict_or_fail_cleanly(self, batch: Batch, n: int) -> list[str]:
        """Each request has its ``n`` tokens, or an error object ``{code, message, type}``: as the JSON body
        with that status, or as the event that closes a stream (without ``[DONE]``). Returns one outcome
        line per request (``64 tokens``, ``error 500 Context size has been exceeded.``)."""
        outcomes = checks.every_request_predicted_or_failed_cleanly(_batch(batch), n)
        logger.info("outcomes: " + "; ".join(f"{i}: {o}" for i, o in enumerate(outcomes)))
        return outcomes

    @keyword("Every Request Should Get What It Asked For")
    def every_request_should_get_what_it_asked_for(self, batch: Batch) -> None:
        """Each request (but the abandoned ones) asking for ``n_predict`` (or ``max_tokens``) of -1 or more
        predicted exactly that; one asking for less was rejected with a clean 400 ``invalid_request_error``."""
        checks.every_request_got_what_it_asked(_batch(batch))

    @keyword("Every Answer Should Name A Real Slot")
    def every_answer_should_name_a_real_slot(self, batch: Batch) -> None:
        """Every native answer's ``id_slot`` is a slot of the server (0 to the slot count minus one).

        The slot count comes from the batch's ``/slots`` samples; OpenAI answers name no slot and are skipped.
        """
        checks.every_answer_named_a_real_slot(_batch(batch))

    @keyword("Every Chunk Should Carry One Choice")
    def every_chunk_should_carry_one_choice(self, batch: Batch) -> None:
        """OpenAI streams: every chunk has exactly one choice, with index 0.

        The usage chunk (``choices: []`` with ``usage``) and ``[DONE]`` are the exceptions.
        """
        checks.every_chunk_carried_one_choice(_batch(batch))

    # ---- texts and vectors ---------------------------------------------------------------------------------

    @keyword("Request Texts")
    def request_texts(self, batch: Batch) -> list:
        """The generated text of every request, in request order (``None`` where there is none)."""
        return checks.texts(_batch(batch))

    @keyword("Every Request Should Give The Text")
    def every_request_should_give_the_text(self, batch: Batch, text: str) -> None:
        """Every request (but the abandoned ones) generated exactly ``text``.

        | ${alone} =    Send Concurrent Completions    ${PROMPT}    server=one
        | ${texts} =    Request Texts    ${alone}
        | Every Request Should Give The Text    ${four}    ${texts}[0]
        """
        checks.every_request_gave_the_text(_batch(batch), text)

    @keyword("Every Request Should Give The Same Text")
    def every_request_should_give_the_same_text(self, batch: Batch) -> None:
        """All requests (but the abandoned ones) generated the same text; the failure gives the first
        differing character."""
        checks.every_request_gave_the_same_text(_batch(batch))

    @keyword("Batch Texts Should Be Equal")
    def batch_texts_should_be_equal(self, batch: Batch, other: Batch) -> None:
        """Request ``i`` of both batches generated the same text, for every ``i``."""
        checks.batch_texts_equal(_batch(batch), _batch(other))

    @keyword("Every Request Should Give Another Text")
    def every_request_should_give_another_text(self, batch: Batch) -> None:
        """No two requests generated the same text (different seeds at a temperature above 0).

        A request without text (an error) fails the check.
        """
        checks.texts_all_differ(_batch(batch))

    @keyword("Every Request Should Give The Same Embedding")
    def every_request_should_give_the_same_embedding(self, batch: Batch, tolerance: float = 1e-6) -> None:
        """Every embedding request got the vectors of the first one, within ``tolerance`` (the largest
        absolute difference of a component)."""
        checks.every_request_gave_the_same_embedding(_batch(batch), tolerance)

    @keyword("Every Request Should Get The Embedding Of Its Input")
    def every_request_should_get_the_embedding_of_its_input(self, batch: Batch, alone: Batch,
                                                            tolerance: float = 1e-6) -> None:
        """Every input of every request of ``batch`` got the vector it got in ``alone`` (the same texts, one
        per request, sent with ``dispatch=one_by_one``), within ``tolerance``: an input's vector does not
        depend on the inputs computed with it (no cross-talk)."""
        checks.embeddings_match_their_inputs(_batch(batch), _batch(alone), tolerance)

    # ---- the slot timeline ---------------------------------------------------------------------------------

    @keyword("All Slots Should Have Been Busy")
    def all_slots_should_have_been_busy(self, batch: Batch) -> None:
        """Some ``/slots`` sample shows every slot processing at once."""
        checks.all_slots_were_busy(_batch(batch))

    @keyword("Slots Should Have Gone Back To Idle")
    def slots_should_have_gone_back_to_idle(self, batch: Batch) -> None:
        """After the last request ended, a sample shows no slot busy.

        With metrics, a ``/metrics`` sample after it shows no request processing or deferred either.
        """
        checks.slots_went_back_to_idle(_batch(batch))

    @keyword("Requests Should Have Been Deferred")
    def requests_should_have_been_deferred(self, batch: Batch) -> None:
        """``llamacpp:requests_deferred`` was above 0 in some ``/metrics`` sample (``metrics=True``).

        Not judged when no sample came from the window where a request surely waited (the sampler's fault),
        nor when the later requests reached the server's task queue only after the first had ended while other
        processes kept the machine busy (a timing failure; on a quiet machine it fails)."""
        checks.requests_were_deferred(_batch(batch))

    @keyword("Metrics Should Count Every Predicted Token")
    def metrics_should_count_every_predicted_token(self, batch: Batch) -> None:
        """``llamacpp:tokens_predicted_total`` grew during the batch by exactly the sum of the tokens the
        requests report (send with ``metrics=True``); an error answer counts 0.

        For a request the client abandoned, the server may have generated more than the client read: it
        counts anything from the token chunks read to its ``n_predict``.
        """
        checks.metrics_counted_every_predicted_token(_batch(batch))

    @keyword("Requests Should Have Been Served In Order")
    def requests_should_have_been_served_in_order(self, batch: Batch) -> None:
        """FIFO: every request was seen on a slot, and in index order (send with ``dispatch=in_order``), each
        starting no earlier and with a higher task id than the one before."""
        checks.served_in_order(_batch(batch))

    @keyword("Server Should Have Reported No Idle Slot")
    def server_should_have_reported_no_idle_slot(self, batch: Batch) -> None:
        """While every slot was busy, ``/slots?fail_on_no_slot=1`` answered 503 with ``{"code": 503, "message":
        "no slot available", "type": "unavailable_error"}``, and it never answered anything but 200 or that
        (send with ``probe_no_idle_slot=True``)."""
        checks.no_idle_slot_reported(_batch(batch))

    @keyword("Cancelled Requests Should Have Freed Their Slots")
    def cancelled_requests_should_have_freed_their_slots(self, batch: Batch, within: float | None = None) -> None:
        """Every request the client hung up on was seen on a slot, and that slot went idle (or to another
        task) at most ``within`` seconds after the hang-up (default: the ``slot_freed`` deadline)."""
        checks.cancelled_requests_freed_their_slots(_batch(batch), deadlines.or_default(within, "slot_freed"))

    @keyword("Abandoned Requests Should Have Left The Queue")
    def abandoned_requests_should_have_left_the_queue(self, batch: Batch) -> None:
        """Every request abandoned while queued was dropped from the queue: after its client hung up, and
        while another request still ran, ``llamacpp:requests_deferred`` went back to 0 (``metrics=True``)."""
        checks.abandoned_requests_left_the_queue(_batch(batch))

    @keyword("Requests Should Have Run One At A Time")
    def requests_should_have_run_one_at_a_time(self, batch: Batch) -> None:
        """No two requests of the batch ran at once: one that was deferred started only after the other ended.

        Send with ``metrics=True``: the server's counters must show at most one busy slot per decode during the
        batch (independent of the sampler's timing), and no ``/slots`` sample may show two slots busy.
        """
        checks.requests_ran_one_at_a_time(_batch(batch))

    @keyword("Requests Should Have Overlapped")
    def requests_should_have_overlapped(self, batch: Batch, earlier: int = 0, later: int = 1) -> None:
        """Continuous batching, as ``/slots`` shows it.

        Request ``later``'s task started after request ``earlier``'s, and one sample shows both busy.
        """
        checks.requests_overlapped(_batch(batch), earlier, later)


def _options(arguments: dict) -> Options:
    """The batch options among a send keyword's arguments; an option the keyword does not take keeps its
    `Options` default."""
    given = {f.name: arguments[f.name] for f in dataclasses.fields(Options)
             if f.name in arguments and f.name != "headers"}
    if "cancel" in given:
        given["cancel"] = tuple(given["cancel"] or ())
    return Options(**given)


def _batch(value) -> Batch:
    if not isinstance(value, Batch):
        raise TypeError(f"expected a batch from 'Send Concurrent Completions', got {type(value).__name__}")
    return value
