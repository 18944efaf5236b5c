"""Robot facade of llamatest.crosscheck: what llama-server reports about itself, against what the suite knows."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest import crosscheck
from llamatest import htmllog as _htmllog
from llamatest.http.response import json_of


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class SelfReportLibrary:
    """Cross-checks every figure llama-server reports about itself or its answers.

    %TOC%

    = What each figure is checked against =

    - the server's own configuration: the ``settings`` of LlamaServerLibrary's ``Server Settings`` (its
      command line and ``LLAMA_ARG_*`` environment, read the way llama-server reads them);
    - what the suite sent and counted: token ids from ``/tokenize`` and ``/detokenize``, ``n_predict``;
    - the other figures of the same answer: ``usage`` against ``timings``, rates against times and counts.

    Each keyword logs a table of every figure it checked (reported, expected, what the expectation comes
    from) and fails with all the figures that disagree at once. The contracts are those of the pinned
    build's sources and README; see the module ``llamatest.crosscheck``.

    = Settings =

    | ${settings} =    Server Settings
    | ${props} =    Get Props
    | Props Should Match The Started Server    ${props}    ${settings}

    ``n_ctx_train`` (the model's training context, from ``Model Metadata``) is only needed for a server
    started with ``--ctx-size 0``.

    = Counted requests =

    The ``/metrics`` keywords take the records of ``Send Counted Completions`` (``self_reports.resource``):
    one dictionary per request with ``prompt`` (its token ids as the suite counted them), ``n_predict``,
    ``cache_prompt``, ``generated`` (the returned ids) and ``timings`` (the answer's own).
    """

    # ----- the server's configuration -----
    @keyword("Expected Slot Context")
    def expected_slot_context(self, settings: dict, n_ctx_train: int | None = None) -> int:
        """Returns the context each slot of a server started with ``settings`` has: ``--ctx-size`` padded
        to 256, split over ``--parallel`` and padded again (the whole of it with ``--kv-unified``), capped
        by ``--kv-unified-per-slot``."""
        return crosscheck.slot_context(settings, n_ctx_train)

    @keyword("Props Should Match The Started Server")
    def props_should_match_the_started_server(self, props, settings: dict, n_ctx_train: int | None = None) -> None:
        """``GET /props``: ``total_slots``, the slot context, ``model_path``, ``model_alias`` and the endpoint
        gates against the flags the server was started with."""
        _judge("/props against the started server", crosscheck.props_checks(json_of(props), settings, n_ctx_train))

    @keyword("Props Defaults Should Echo The Server Flags")
    def props_defaults_should_echo_the_server_flags(self, props, settings: dict, sampling_only: bool = False) -> None:
        """``default_generation_settings.params`` of ``/props`` against every request default the flags set
        (``--seed``, ``--temp``, ``--keep``…); ``sampling_only=${True}``: the sampling flags alone."""
        checks = crosscheck.request_default_checks(json_of(props), "default_generation_settings.params", settings,
                                                   sampling_only)
        _judge("/props defaults against the server flags", checks)

    @keyword("Generation Settings Should Echo The Server Flags")
    def generation_settings_should_echo_the_server_flags(self, answer, settings: dict) -> None:
        """``generation_settings`` of a native answer to a request that set none of them against every
        request default the server's flags set."""
        checks = crosscheck.request_default_checks(json_of(answer), "generation_settings", settings)
        _judge("generation settings against the server flags", checks)

    @keyword("Props Defaults Should Be The Settings Of")
    def props_defaults_should_be_the_settings_of(self, props, answer, *ignored: str) -> None:
        """Every field of ``/props`` ``default_generation_settings.params`` against the same field of the
        ``generation_settings`` of ``answer``, a native answer to a request that set nothing but fields
        named in ``ignored``."""
        defaults = json_of(props)["default_generation_settings"]["params"]
        checks = crosscheck.same_settings_checks(defaults, json_of(answer)["generation_settings"], ignored)
        _judge("/props defaults against a request's settings", checks)

    @keyword("Slots Should Match The Started Server")
    def slots_should_match_the_started_server(self, slots, settings: dict, n_ctx_train: int | None = None) -> None:
        """``GET /slots``: one entry per ``--parallel`` slot, ids in order, each with the slot context."""
        _judge("/slots against the started server", crosscheck.slots_checks(json_of(slots), settings, n_ctx_train))

    @keyword("Model List Should Match The Started Server")
    def model_list_should_match_the_started_server(self, models, settings: dict,
                                                   n_ctx_train: int | None = None) -> None:
        """``GET /v1/models`` or ``/models``: one model, named by its first alias (else its path), its
        aliases, and the slot context in ``meta.n_ctx``."""
        checks = crosscheck.model_list_checks(json_of(models), settings, n_ctx_train)
        _judge("model list against the started server", checks)

    @keyword("Model Name Of")
    def model_name_of(self, settings: dict) -> str:
        """Returns the name the server gives its model: its first alias in sorted order, else the model path."""
        return crosscheck.model_name(settings)

    # ----- an answer's own figures -----
    @keyword("Usage Should Agree With Timings")
    def usage_should_agree_with_timings(self, answer) -> None:
        """An OpenAI-style answer or usage chunk: ``usage`` (completion, prompt, total and cached tokens)
        against the ``timings`` beside it."""
        _judge("usage against timings", crosscheck.usage_checks(json_of(answer)))

    @keyword("Native Counts Should Agree With Timings")
    def native_counts_should_agree_with_timings(self, answer) -> None:
        """A native answer or final chunk: ``tokens_evaluated``, ``tokens_predicted`` and ``tokens_cached``
        against its ``timings`` (the slot keeps every generated token but the last)."""
        _judge("native counts against timings", crosscheck.native_count_checks(json_of(answer)))

    @keyword("Prompt Rates Should Agree With Prompt Time")
    def prompt_rates_should_agree_with_prompt_time(self, timings: dict) -> None:
        """``prompt_per_token_ms`` and ``prompt_per_second`` against ``prompt_ms`` and ``prompt_n``."""
        _judge("prompt rates against prompt time", crosscheck.prompt_rate_checks(timings))

    @keyword("Generation Rates Should Agree With Decode Steps")
    def generation_rates_should_agree_with_decode_steps(self, timings: dict) -> None:
        """``predicted_per_token_ms`` and ``predicted_per_second`` against ``predicted_ms`` over the
        ``predicted_n - 1`` decode steps of the generation."""
        _judge("generation rates against decode steps", crosscheck.generation_rate_checks(timings))

    @keyword("Slot Should Report The Answer")
    def slot_should_report_the_answer(self, slots, answer) -> None:
        """The ``/slots`` entry of the slot that served ``answer`` (``id_slot``), idle again: what it holds
        is the answer's ``tokens_cached``, and its ``n_predict`` the answer's."""
        _judge("/slots against the answer", crosscheck.slot_report_checks(json_of(slots), json_of(answer)))

    # ----- /metrics -----
    @keyword("Counters Should Have Grown By The Counted Requests")
    def counters_should_have_grown_by_the_counted_requests(self, before, after, sent: list, settings: dict) -> None:
        """The growth of ``prompt_tokens_total``, ``prompt_tokens_cached_total``, ``tokens_predicted_total``
        and ``n_decode_total`` between the scrapes ``before`` and ``after`` against what the suite derives
        from the `counted requests <#Counted requests>` ``sent`` in between (one slot, one at a time) and
        the batch size of the server started with ``settings`` (``--batch-size``, capped by the context)."""
        requests = [crosscheck.SentRequest.of(record) for record in sent]
        _judge("/metrics counters against the counted requests",
               crosscheck.counter_checks(before, after, requests, crosscheck.decode_batch(settings)))

    @keyword("Time Counters Should Agree With The Answers")
    def time_counters_should_agree_with_the_answers(self, before, after, sent: list) -> None:
        """``tokens_predicted_seconds_total`` grows by the answers' ``predicted_ms`` (within the 6
        significant digits of the exposition); ``prompt_seconds_total`` grows, by at most their
        ``prompt_ms``."""
        requests = [crosscheck.SentRequest.of(record) for record in sent]
        _judge("/metrics time counters against the answers", crosscheck.time_counter_checks(before, after, requests))

    # ----- streamed tokens -----
    @keyword("Streamed Tokens")
    def streamed_tokens(self, chunks: list) -> list:
        """Returns every token id the chunks carry, in order."""
        return crosscheck.streamed_tokens(chunks)

    @keyword("Chunk Contents Should Be")
    def chunk_contents_should_be(self, chunks: list, texts: list) -> None:
        """Each chunk's ``content`` against ``texts``: the /detokenize of each chunk's ``tokens``, in order."""
        _judge("chunk contents against their tokens", crosscheck.chunk_text_checks(chunks, texts))

    @keyword("Running Counts Should Add Up")
    def running_counts_should_add_up(self, chunks: list, prompt_tokens: int) -> None:
        """Each chunk's ``tokens_predicted`` counts the tokens streamed so far, and ``tokens_evaluated``
        is ``prompt_tokens``, the prompt's token count as the suite counted it."""
        _judge("running counts of the chunks", crosscheck.running_count_checks(chunks, prompt_tokens))

    @keyword("Chunk Probabilities Should Name The Chunk Tokens")
    def chunk_probabilities_should_name_the_chunk_tokens(self, chunks: list) -> None:
        """Every chunk with tokens (``n_probs`` set): ``completion_probabilities`` ids are its tokens, and
        their texts and bytes spell its ``content``."""
        _judge("chunk probabilities against chunk tokens", crosscheck.probability_checks(chunks))


def _judge(title: str, checks: list[crosscheck.Check]) -> None:
    """Logs every check as one table, then fails with the ones that disagree."""
    wrong = sum(not check.ok for check in checks)
    summary = f"{title}: {len(checks)} figures, {wrong} wrong" if wrong else f"{title}: {len(checks)} figures agree"
    logger.info(_htmllog.details(summary, _htmllog.table(crosscheck.ROW_HEADERS, [c.row() for c in checks]),
                                 open_=bool(wrong)), html=True)
    crosscheck.verdict(title, checks)
