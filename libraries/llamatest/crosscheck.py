"""What llama-server says about itself, checked against what the suite configured, sent or can derive.

Every builder below returns ``Check`` rows: the figure the server reported (a JSON path, a metric), the
value it should have, and what that value comes from (a flag, the suite's own token count, another
figure of the same answer). ``verdict`` fails with every disagreeing row at once. Pure functions on
parsed JSON, scrapes and the settings of ``llamatest.server.flags.effective_settings``; no HTTP.

The contracts, from the pinned build (``tools/server`` unless said otherwise):

- Context of a slot: ``src/llama-context.cpp`` pads the total ``--ctx-size`` up to a multiple of 256,
  then gives each slot ``total / --parallel``, padded up to 256 again, or the whole padded total with a
  unified KV cache; ``--kv-unified-per-slot`` caps it (``n_ctx_slot()`` in server-context.cpp).
- ``/props`` (``get_res_props``): ``total_slots`` is ``--parallel``, ``model_path`` is ``--model``,
  ``model_alias`` and ``/v1/models`` ``id`` are the model's name: the first ``--alias`` (they are kept
  sorted), else the model path (README: "By default, model `id` field is the path to model file").
- ``timings`` (``server_slot_stats`` in server-common.h): ``prompt_per_token_ms = prompt_ms / prompt_n``
  and ``prompt_per_second = 1000 * prompt_n / prompt_ms``; the generation figures count decode steps,
  ``predicted_n - 1``, because the first token comes from the logits of the last prompt batch.
- ``usage`` (``usage_json_oaicompat`` in server-task.cpp): ``completion_tokens`` is ``predicted_n``,
  ``prompt_tokens`` is ``prompt_n + cache_n``, ``cached_tokens`` is ``cache_n``.
- ``/metrics`` (``metrics_post_decode``, ``to_metrics``): ``n_decode_total`` counts ``llama_decode``
  calls of at most ``--batch-size`` tokens: a prompt of P processed tokens takes ceil(P / n_batch) calls,
  which yield the first token, and each further token one call. Values are written with C++'s default
  6 significant digits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llamatest.http.jsonpath import lookup
from llamatest.server.flags import FLAG_NAMES, SAMPLING_KEYS
from llamatest.textutil import short_repr

KV_PAD = 256  # llama-context.cpp: GGML_PAD(n_ctx, 256) and GGML_PAD(n_ctx_seq, 256)
RATE_REL = 1e-9  # relative slack for rates recomputed from the same doubles in another order
SHOWN = 120
RELATIONS = {"==": "", "<=": "at most ", ">": "more than "}
MISSING = "(no such field)"


@dataclass(frozen=True)
class Check:
    """One figure the server reported and what it is checked against."""

    figure: str
    reported: Any
    expected: Any
    basis: str
    relation: str = "=="  # "==" (within ``tolerance`` when it is not 0), "<=" or ">"
    tolerance: float = 0.0

    @property
    def ok(self) -> bool:
        if self.relation == ">":
            return _number(self.reported) and self.reported > self.expected
        if self.relation == "<=":
            return _number(self.reported) and self.reported <= self.expected + self.tolerance
        if self.tolerance:
            return _number(self.reported) and abs(self.reported - self.expected) <= self.tolerance
        return self.reported == self.expected and isinstance(self.reported, bool) == isinstance(self.expected, bool)

    @property
    def wanted(self) -> str:
        slack = f" ± {self.tolerance:.3g}" if self.tolerance and self.relation == "==" else ""
        return f"{RELATIONS[self.relation]}{short_repr(self.expected, SHOWN)}{slack}"

    def line(self) -> str:
        return f"{self.figure} was {short_repr(self.reported, SHOWN)}, expected {self.wanted} ({self.basis})"

    def row(self) -> list[str]:
        return [self.figure, short_repr(self.reported, SHOWN), self.wanted, self.basis, "ok" if self.ok else "WRONG"]


ROW_HEADERS = ["figure", "reported", "expected", "checked against", ""]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def verdict(title: str, checks: Sequence[Check]) -> None:
    """Fails with every disagreeing check, one per line; an empty list of checks fails too."""
    if not checks:
        raise AssertionError(f"{title}: nothing was checked")
    wrong = [check for check in checks if not check.ok]
    if wrong:
        lines = "\n".join(f"- {check.line()}" for check in wrong)
        raise AssertionError(f"{title}: {len(wrong)} of {len(checks)} figures disagree:\n{lines}")


def field_check(doc: Any, path: str, expected: Any, basis: str, figure: str | None = None) -> Check:
    """The value at ``path`` of ``doc`` against ``expected``; a missing field fails with the path."""
    return Check(figure or path, lookup(doc, path), expected, basis)


# ----- what the server was started with -----

def padded(n: int, to: int = KV_PAD) -> int:
    return -(-n // to) * to


def total_context(settings: Mapping, n_ctx_train: int | None = None) -> int:
    """The context the server allocates: ``--ctx-size`` padded up to 256, and without a unified KV cache
    ``--parallel`` shares of it, each padded up to 256 again (llama-context.cpp).

    ``n_ctx`` 0 takes the model's training context, which only the caller knows (``n_ctx_train``).
    """
    total = settings["n_ctx"] or n_ctx_train
    if not total:
        raise ValueError("the server takes its context from the model (n_ctx 0): give n_ctx_train")
    total = padded(total)
    return total if settings["kv_unified"] else padded(total // settings["n_slots"]) * settings["n_slots"]


def slot_context(settings: Mapping, n_ctx_train: int | None = None) -> int:
    """The context of each slot: its share of the ``total_context`` (all of it with a unified KV cache),
    capped by ``--kv-unified-per-slot`` (``n_ctx_slot()`` in server-context.cpp)."""
    total = total_context(settings, n_ctx_train)
    per_slot = total if settings["kv_unified"] else total // settings["n_slots"]
    cap = settings["kv_unified_per_slot"]
    return min(per_slot, cap) if cap > 0 else per_slot


def decode_batch(settings: Mapping, n_ctx_train: int | None = None) -> int:
    """The most tokens one ``llama_decode`` call takes: ``--batch-size``, capped by the whole context for a
    model with causal attention (llama-context.cpp), as every generating model here has."""
    return min(settings["n_batch"], total_context(settings, n_ctx_train))


def model_name(settings: Mapping) -> str:
    """The name the server gives its model: its first alias in sorted order, else the model path."""
    return settings["aliases"][0]


def _flag(key: str) -> str:
    return FLAG_NAMES.get(key, key)


def props_checks(props: Any, settings: Mapping, n_ctx_train: int | None = None) -> list[Check]:
    """``GET /props`` against the slots, context, model, aliases and endpoint gates of the settings."""
    return [
        field_check(props, "total_slots", settings["n_slots"], "--parallel"),
        field_check(props, "default_generation_settings.n_ctx", slot_context(settings, n_ctx_train),
                    "--ctx-size over --parallel, padded to 256"),
        field_check(props, "model_path", settings["model"], "--model"),
        field_check(props, "model_alias", model_name(settings), "first --alias, else the model path"),
        field_check(props, "endpoint_slots", settings["endpoint_slots"], "--slots / --no-slots"),
        field_check(props, "endpoint_props", settings["endpoint_props"], "--props"),
        field_check(props, "endpoint_metrics", settings["endpoint_metrics"], "--metrics"),
    ]


def request_default_checks(doc: Any, prefix: str, settings: Mapping, sampling_only: bool = False) -> list[Check]:
    """The request fields under ``prefix`` against the request defaults the server's flags set.

    ``sampling_only`` keeps the sampling flags (``--seed``, ``--temp``, ``--top-k``…), leaving out those
    such as ``--keep`` that the server copies into each request apart from the sampling settings.
    """
    defaults = settings["request_defaults"]
    return [field_check(doc, f"{prefix}.{key}", value, f"{_flag(key)} {value}")
            for key, value in defaults.items() if key in SAMPLING_KEYS or not sampling_only]


def same_settings_checks(defaults: Mapping, settings: Mapping, ignored: Iterable[str] = ()) -> list[Check]:
    """Every field of the default ``defaults`` (``/props``) against the ``settings`` a request ran with."""
    skipped = set(ignored)  # the keys hold dots ("speculative.types"): no JSON paths here
    return [Check(f"default_generation_settings.params.{key}", value, settings.get(key, MISSING),
                  f"generation_settings.{key} of a request that sets nothing")
            for key, value in defaults.items() if key not in skipped]


def slots_checks(slots: Any, settings: Mapping, n_ctx_train: int | None = None) -> list[Check]:
    """``GET /slots``: one entry per slot, ids in order, each with the slot context."""
    context = slot_context(settings, n_ctx_train)
    checks = [Check("number of /slots entries", len(slots), settings["n_slots"], "--parallel")]
    for index in range(len(slots)):
        checks.append(field_check(slots, f"{index}.id", index, "its place in the list"))
        checks.append(field_check(slots, f"{index}.n_ctx", context, "--ctx-size over --parallel, padded to 256"))
    return checks


def model_list_checks(models: Any, settings: Mapping, n_ctx_train: int | None = None) -> list[Check]:
    """``GET /v1/models`` (or ``/models``): the model's name, its aliases and the slot context."""
    name = model_name(settings)
    return [
        Check("number of data entries", len(lookup(models, "data")), 1, "one model loaded"),
        field_check(models, "data.0.id", name, "first --alias, else the model path"),
        field_check(models, "data.0.aliases", list(settings["aliases"]), "--alias, sorted"),
        field_check(models, "data.0.meta.n_ctx", slot_context(settings, n_ctx_train),
                    "--ctx-size over --parallel, padded to 256"),
        field_check(models, "models.0.name", name, "first --alias, else the model path"),
        field_check(models, "models.0.model", name, "first --alias, else the model path"),
    ]


# ----- what an answer says about itself -----

def usage_checks(answer: Any) -> list[Check]:
    """An OpenAI-style answer (or usage chunk): ``usage`` against the ``timings`` beside it."""
    timings = lookup(answer, "timings")
    prompt = timings["prompt_n"] + timings["cache_n"]
    completion = timings["predicted_n"]
    return [
        field_check(answer, "usage.completion_tokens", completion, "timings.predicted_n"),
        field_check(answer, "usage.prompt_tokens", prompt, "timings.prompt_n + timings.cache_n"),
        field_check(answer, "usage.total_tokens", prompt + completion,
                    "timings.prompt_n + timings.cache_n + timings.predicted_n"),
        field_check(answer, "usage.prompt_tokens_details.cached_tokens", timings["cache_n"], "timings.cache_n"),
    ]


def native_count_checks(answer: Any) -> list[Check]:
    """A native answer (or final chunk): its token counts against its ``timings``.

    ``tokens_cached`` is what the slot holds afterwards: the prompt and every generated token but the
    last, which was sampled and never decoded.
    """
    timings = lookup(answer, "timings")
    prompt = timings["prompt_n"] + timings["cache_n"]
    return [
        field_check(answer, "tokens_evaluated", prompt, "timings.prompt_n + timings.cache_n"),
        field_check(answer, "tokens_predicted", timings["predicted_n"], "timings.predicted_n"),
        field_check(answer, "tokens_cached", prompt + timings["predicted_n"] - 1,
                    "timings.prompt_n + timings.cache_n + timings.predicted_n - 1"),
    ]


def _rate(figure: str, reported: Any, expected: float, basis: str) -> Check:
    return Check(figure, reported, expected, basis, tolerance=abs(expected) * RATE_REL + 1e-12)


def prompt_rate_checks(timings: Mapping) -> list[Check]:
    """``prompt_per_token_ms`` and ``prompt_per_second`` against ``prompt_ms`` and ``prompt_n``."""
    count, ms = timings["prompt_n"], timings["prompt_ms"]
    return [
        _rate("timings.prompt_per_token_ms", timings["prompt_per_token_ms"], ms / count if count else 0.0,
              "prompt_ms / prompt_n"),
        _rate("timings.prompt_per_second", timings["prompt_per_second"], 1e3 * count / ms if ms else 0.0,
              "1000 * prompt_n / prompt_ms"),
    ]


def generation_rate_checks(timings: Mapping) -> list[Check]:
    """``predicted_per_token_ms`` and ``predicted_per_second`` against ``predicted_ms`` over the decode
    steps of the generation: ``predicted_n - 1`` (the first token comes with the prompt)."""
    steps, ms = max(timings["predicted_n"] - 1, 0), timings["predicted_ms"]
    return [
        _rate("timings.predicted_per_token_ms", timings["predicted_per_token_ms"], ms / steps if steps else 0.0,
              "predicted_ms / (predicted_n - 1)"),
        _rate("timings.predicted_per_second", timings["predicted_per_second"], 1e3 * steps / ms if ms else 0.0,
              "1000 * (predicted_n - 1) / predicted_ms"),
    ]


def slot_report_checks(slots: Any, answer: Any) -> list[Check]:
    """The ``/slots`` entry of the slot that served ``answer`` (native, non-stream), once it is idle."""
    slot = lookup(answer, "id_slot")
    return [
        field_check(slots, f"{slot}.is_processing", False, "the request has ended"),
        field_check(slots, f"{slot}.n_prompt_tokens", lookup(answer, "tokens_cached"), "tokens_cached of the answer"),
        field_check(slots, f"{slot}.params.n_predict", lookup(answer, "generation_settings.n_predict"),
                    "generation_settings.n_predict of the answer"),
    ]


# ----- /metrics against the requests the suite sent -----

@dataclass(frozen=True)
class SentRequest:
    """A request the suite sent to a single-slot server, as the suite counted it."""

    prompt: list[int]  # the prompt's token ids, as /tokenize gave them (BOS included for a text prompt)
    n_predict: int
    cache_prompt: bool = True
    generated: list[int] | None = None  # the ids the answer returned (return_tokens)
    timings: Mapping | None = None  # the answer's own timings, for the time counters

    @classmethod
    def of(cls, record: Mapping) -> SentRequest:
        return cls(prompt=[int(t) for t in record["prompt"]], n_predict=int(record["n_predict"]),
                   cache_prompt=bool(record.get("cache_prompt", True)), generated=record.get("generated"),
                   timings=record.get("timings"))


@dataclass(frozen=True)
class Accounting:
    """What one request costs the server, derived by the suite."""

    prompt_n: int  # prompt tokens processed
    cache_n: int  # prompt tokens reused from the slot
    decode_calls: int


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def single_slot_accounting(requests: Iterable[SentRequest], n_batch: int) -> list[Accounting]:
    """Replays ``requests`` on a model of the one slot: what it holds, what each request reuses and computes.

    A request with ``cache_prompt`` reuses the longest common prefix of its prompt with what the slot
    holds, but never the last prompt token, whose logits it needs; any request leaves its prompt and its
    generated tokens but the last in the slot. The prompt is decoded in calls of at most ``n_batch``
    tokens, the last of which yields the first token; every further token takes one call. The first
    request must be sent with ``cache_prompt`` off (the suite does not know what the slot held before),
    and a later one should only continue what the slot holds, as the server's RAM prompt cache is not
    modelled.
    """
    held: list[int] | None = None
    costs = []
    for request in requests:
        if request.cache_prompt and held is None:
            raise ValueError("the first request of a counted sequence must be sent with cache_prompt false")
        reused = min(common_prefix(held, request.prompt), len(request.prompt) - 1) if request.cache_prompt else 0
        processed = len(request.prompt) - reused
        costs.append(Accounting(processed, reused, math.ceil(processed / n_batch) + request.n_predict - 1))
        generated = request.generated if request.generated is not None else [None] * request.n_predict
        held = list(request.prompt) + list(generated[:-1])
    return costs


COUNTERS = ("llamacpp:prompt_tokens_total", "llamacpp:prompt_tokens_cached_total",
            "llamacpp:tokens_predicted_total", "llamacpp:n_decode_total")


def counter_checks(before, after, requests: Sequence[SentRequest], n_batch: int) -> list[Check]:
    """The growth of the token and decode counters between two scrapes against the suite's accounting."""
    costs = single_slot_accounting(requests, n_batch)
    expected = {
        "llamacpp:prompt_tokens_total": (sum(c.prompt_n for c in costs), "prompt tokens the suite counted, "
                                                                          "less those reused from the slot"),
        "llamacpp:prompt_tokens_cached_total": (sum(c.cache_n for c in costs), "common prefix with what the "
                                                                                "slot held, less the last token"),
        "llamacpp:tokens_predicted_total": (sum(r.n_predict for r in requests), "n_predict of each request"),
        "llamacpp:n_decode_total": (sum(c.decode_calls for c in costs),
                                    f"ceil(prompt tokens / n_batch {n_batch}) + n_predict - 1 per request"),
    }
    return [Check(f"growth of {name}", after.value(name) - before.value(name), value, basis)
            for name, (value, basis) in expected.items()]


def exposition_rounding(value: float) -> float:
    """How far a value C++ writes with its default 6 significant digits can be from the true one."""
    return 0.0 if value == 0 else 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 5)


def time_counter_checks(before, after, requests: Sequence[SentRequest]) -> list[Check]:
    """The time counters against the ``timings`` of the answers: generation time is the same clock,
    prompt time starts at the first prompt batch, after the slot's own clock started."""
    def growth(name: str) -> tuple[float, float]:
        old, new = before.value(name), after.value(name)
        return new - old, exposition_rounding(old) + exposition_rounding(new) + 1e-12

    predicted = sum(r.timings["predicted_ms"] for r in requests) / 1e3
    prompt = sum(r.timings["prompt_ms"] for r in requests) / 1e3
    predicted_growth, predicted_slack = growth("llamacpp:tokens_predicted_seconds_total")
    prompt_growth, prompt_slack = growth("llamacpp:prompt_seconds_total")
    return [
        Check("growth of llamacpp:tokens_predicted_seconds_total", predicted_growth, predicted,
              "sum of timings.predicted_ms / 1000", tolerance=predicted_slack),
        Check("growth of llamacpp:prompt_seconds_total", prompt_growth, 0.0, "prompts were computed", relation=">"),
        Check("growth of llamacpp:prompt_seconds_total", prompt_growth, prompt, "sum of timings.prompt_ms / 1000",
              relation="<=", tolerance=prompt_slack),
    ]


# ----- streamed chunks against /tokenize and /detokenize -----

def streamed_tokens(chunks: Sequence[Mapping]) -> list[int]:
    """Every token id the chunks carry, in order."""
    return [token for chunk in chunks for token in chunk["tokens"]]


def chunk_text_checks(chunks: Sequence[Mapping], texts: Sequence[str]) -> list[Check]:
    """Each chunk's ``content`` against ``texts[i]``, the /detokenize of that chunk's ``tokens``."""
    if len(texts) != len(chunks):
        raise ValueError(f"{len(texts)} detokenized texts for {len(chunks)} chunks")
    return [Check(f"chunk {index} content", chunk["content"], text, f"/detokenize of its tokens {chunk['tokens']}")
            for index, (chunk, text) in enumerate(zip(chunks, texts, strict=True))]


def running_count_checks(chunks: Sequence[Mapping], prompt_tokens: int) -> list[Check]:
    """Each chunk's ``tokens_predicted`` is the number of tokens streamed so far, and its
    ``tokens_evaluated`` the prompt's token count."""
    checks, sent = [], 0
    for index, chunk in enumerate(chunks):
        sent += len(chunk["tokens"])
        checks.append(field_check(chunk, "tokens_predicted", sent, "tokens streamed up to it",
                                  figure=f"chunk {index} tokens_predicted"))
        checks.append(field_check(chunk, "tokens_evaluated", prompt_tokens, "the prompt's tokens as counted",
                                  figure=f"chunk {index} tokens_evaluated"))
    return checks


def probability_checks(chunks: Sequence[Mapping]) -> list[Check]:
    """Each chunk with tokens names them in ``completion_probabilities``: the ids, and the token texts and
    bytes that spell its ``content``."""
    checks = []
    for index, chunk in enumerate(chunks):
        if not chunk["tokens"]:
            continue
        probs = lookup(chunk, "completion_probabilities")
        checks.append(Check(f"chunk {index} probability ids", [p["id"] for p in probs], chunk["tokens"],
                            "the chunk's tokens"))
        checks.append(Check(f"chunk {index} probability texts", "".join(p["token"] for p in probs),
                            chunk["content"], "the chunk's content"))
        checks.append(Check(f"chunk {index} probability bytes", [b for p in probs for b in p["bytes"]],
                            list(chunk["content"].encode()), "the chunk's content as UTF-8"))
    return checks
