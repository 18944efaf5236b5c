"""What a test needs from its server: the fixed vocabulary of ``needs:NAME`` tags, and its discovery.

A test (``[Tags]``) or a whole suite (``Test Tags``) says what it needs with ``needs:NAME`` tags; this
module is the one place that says, for each name, what it means, how it is found on a server, and the
one-line reason a test is skipped with when its server lacks it (``needs --metrics: this server
answers /metrics with 501``). ``CapabilityListener`` reads the tags; the server facade registers the
suite's server here.

A server is probed once (`Target`, cached per base URL and process): ``GET /props``, ``GET /v1/models``
and requests that change nothing (``GET /metrics``, ``GET /slots``, an empty body to ``/embedding``,
``/rerank`` and ``/infill``, an unknown slot action), each asked only when a test needs its answer. A
managed server (one this run started) also knows its model and its flags.

No Robot Framework here.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

import requests

from llamatest import deadlines
from llamatest.textutil import join_url

PREFIX = "needs:"
MANAGED_HINT = "unset LLAMA_SERVER_URL or pass --also-managed"
# The packaged models an external server may run too, by file name: their traits then hold there.
KNOWN_MODEL_FILES = {"SmolLM2-135M-Instruct.Q4_1.gguf": "smollm2", "gemma-3-270m-q4_k_m.gguf": "gemma3"}


@dataclass
class Target:
    """One server as the capabilities see it: where it answers, and what this run knows about it.

    ``managed``: this run started it, so ``model`` (the preset's model name, None when unknown) and
    ``flags`` (its command line after the binary) are facts; an external server is known only by
    what it answers.
    """

    url: str
    headers: dict = field(default_factory=dict, repr=False)  # the external server's key: never logged
    managed: bool = False
    model: str | None = None
    flags: tuple[str, ...] = ()
    _statuses: dict = field(default_factory=dict, init=False, repr=False)
    _checked: dict = field(default_factory=dict, init=False, repr=False)

    @functools.cached_property
    def props(self) -> dict:
        """``GET /props`` as JSON; {} when it does not answer 200 with a JSON object."""
        try:
            resp = requests.get(join_url(self.url, "/props"), headers=self.headers, timeout=deadlines.deadline("probe"))
            body = resp.json() if resp.status_code == 200 else {}
        except (requests.RequestException, ValueError):
            return {}
        return body if isinstance(body, dict) else {}

    def status(self, method: str, path: str, keyless: bool = False) -> int:
        """The status of one request that changes nothing (an empty JSON body for POST); 0: no answer.

        ``keyless``: sent without the key. Asked once per server."""
        probe = (method, path, keyless)
        if probe not in self._statuses:
            body = {} if method == "POST" else None
            try:
                self._statuses[probe] = requests.request(
                    method, join_url(self.url, path), json=body, headers={} if keyless else self.headers,
                    timeout=deadlines.deadline("probe")).status_code
            except requests.RequestException:
                self._statuses[probe] = 0
        return self._statuses[probe]

    @functools.cached_property
    def model_metadata(self) -> dict | None:
        """The GGUF metadata of the file in ``model_path`` (``read_metadata``); None when this machine can't read it."""
        path = Path(str(self.props.get("model_path") or ""))
        if not path.name or not path.is_file():
            return None
        from llamatest.models.catalog import read_metadata  # the model generators' imports, for the runs that ask

        try:
            return read_metadata(path)
        except (OSError, ValueError, AttributeError, KeyError):  # not a GGUF file, or one without a vocabulary
            return None

    @property
    def model_file(self) -> str:
        """The file name of the model the server says it runs ("" when it does not say)."""
        path = self.props.get("model_path") or ""
        return PurePath(str(path)).name

    @property
    def model_traits(self) -> set[str]:
        """The names of our models this server runs: the preset's for a managed one, by file name otherwise."""
        if self.managed and self.model is not None:
            return {MODEL_TRAITS.get(self.model, self.model)}
        return {KNOWN_MODEL_FILES[self.model_file]} if self.model_file in KNOWN_MODEL_FILES else set()


@dataclass(frozen=True)
class Capability:
    """One name of the vocabulary: what it means, what to do to get it, and how it is discovered.

    ``check`` returns None when the target has it, else what the target showed instead.
    """

    name: str
    meaning: str
    get_it: str
    check: Callable[[Target], str | None]

    def reason(self, evidence: str) -> str:
        """The one-line skip reason: ``needs GET_IT: EVIDENCE``."""
        return f"needs {self.get_it}: {evidence}"


# ----- checks -----
def _managed(target: Target) -> str | None:
    return None if target.managed else MANAGED_HINT


def _model(name: str) -> Callable[[Target], str | None]:
    def check(target: Target) -> str | None:
        if name in target.model_traits or (target.managed and target.model is None):
            return None  # a managed server started without a preset runs the model its suite chose
        runs = target.model if target.managed else (target.model_file or "an unknown model")
        return f"a managed server (this one runs {runs})"
    return check


ABSENT = (0, 404, 501)  # no answer, no such route, "start it with --FLAG"


def _route(method: str, path: str) -> Callable[[Target], str | None]:
    """Present unless the route is missing or refused as not supported; a 400 for the empty body is present."""
    def check(target: Target) -> str | None:
        code = target.status(method, path)
        return f"this server answers {method} {path.split('?')[0]} with {code or 'nothing'}" if code in ABSENT else None
    return check


def _slots_at_least(count: int) -> Callable[[Target], str | None]:
    def check(target: Target) -> str | None:
        slots = target.props.get("total_slots")
        return None if isinstance(slots, int) and slots >= count else f"this server has total_slots {slots}"
    return check


def _template_cap(cap: str, want: bool = True) -> Callable[[Target], str | None]:
    def check(target: Target) -> str | None:
        caps = target.props.get("chat_template_caps") or {}
        return None if caps.get(cap) is want else f"its chat template has {cap} {caps.get(cap, 'unknown')}"
    return check


def _modality(name: str) -> Callable[[Target], str | None]:
    """``modalities.NAME`` true in ``/props``: the server was started with a projector for that input."""
    def check(target: Target) -> str | None:
        modalities = target.props.get("modalities") or {}
        shown = json.dumps(modalities.get(name))  # as /props said it: false, null
        return None if modalities.get(name) is True else f"its /props says modalities.{name} {shown}"
    return check


def _model_file(target: Target) -> str | None:
    """A managed server's model is ours; an external one's is its ``model_path``, if this machine can read it."""
    if target.managed:
        return None
    path = str(target.props.get("model_path") or "")
    return None if path and Path(path).is_file() else f"its model_path {path or '(none)'} is not a file here"


def _model_fact(fact: Callable[[dict, Target], str | None]) -> Callable[[Target], str | None]:
    """A check on the GGUF metadata of the server's model file; a file this machine cannot read is the evidence."""
    def check(target: Target) -> str | None:
        if target.model_metadata is None:
            return f"its model file {target.props.get('model_path') or '(none)'} is not readable here"
        return fact(target.model_metadata, target)
    return check


def _full_prompt_cache(meta: dict, target: Target) -> str | None:
    """No sliding window, or one kept whole (``--swa-full``: "to simulate a non-SWA model", server-context.cpp).

    With a window, a prompt is reused only from the context checkpoints the server made, not token for token.
    """
    window = meta["sliding_window"]
    if not window or (target.managed and "--swa-full" in target.flags):
        return None
    how = "it runs without --swa-full" if target.managed else "--swa-full cannot be seen from outside"
    return (f"its model uses sliding-window attention (a {window}-token window): a prompt is reused only from "
            f"the context checkpoints the server made, and {how}")


def _stored_template(meta: dict, _target: Target) -> str | None:
    return None if meta["chat_template"] else "its model file stores none (the server falls back to ChatML)"


def _api_key(target: Target) -> str | None:
    """A server that refuses a request without a key, and whose key this run knows (``$LLAMATEST_API_KEY``)."""
    code = target.status("GET", "/v1/models", keyless=True)
    if code != 401:
        return f"this server answers GET /v1/models without a key with {code or 'nothing'}"
    return None if target.headers else "this server wants a key, and LLAMATEST_API_KEY is not set"


def _default_routes(target: Target) -> str | None:
    """None when every gate is as llama-server has it by default; else the first one that is not."""
    for name, want in (("metrics", False), ("embeddings", False), ("reranking", False), ("slot-save", False),
                       ("slots", True)):
        if (VOCABULARY[name].check(target) is None) != want:
            return f"{VOCABULARY[name].get_it} is {'off' if want else 'on'} here"
    if target.props.get("endpoint_props") is not False:
        return "POST /props is on here (--props)"
    return None


# The models the project generates whose numbers the numpy reference computes (llamatest.reference).
REFERENCE_MODELS = ("tiny", "tiny-raw", "tiny-draft", "tiny-reranker")


def _generated_model(target: Target) -> str | None:
    """A managed server on one of `REFERENCE_MODELS`, or any server whose ``model_path`` is a file here with the
    same bytes as one of them (an external server started with our file, another build)."""
    if target.managed and target.model is not None:
        return None if target.model in REFERENCE_MODELS else f"this server runs {target.model}"
    path = Path(str(target.props.get("model_path") or ""))
    if not path.name or not path.is_file():
        return f"its model_path {path.name and path or '(none)'} is not a file here"
    from llamatest.models import catalog, own  # the model generators' imports, for the runs that ask

    ours = [catalog.resolve_model(name) for name in REFERENCE_MODELS]
    size = path.stat().st_size
    if any(mine.stat().st_size == size and own.sha256(mine) == own.sha256(path) for mine in ours):
        return None
    return f"its model {path.name} is not one the project generates ({', '.join(REFERENCE_MODELS)})"


MODEL_TRAITS = {"tiny-reranker": "reranker"}  # preset model name -> trait name, where they differ

VOCABULARY: dict[str, Capability] = {c.name: c for c in (
    Capability("managed", "a server this run started: its flags, model file, process, log, command line, "
               "restarts", "a managed server", _managed),
    Capability("tiny", "the generated tiny model: deterministic gibberish (the same in any batch) that never "
               "stops by itself",
               "the tiny model (deterministic gibberish that never stops by itself)", _model("tiny")),
    Capability("tiny-raw", "the tiny model's raw flavour: output of lone and partial UTF-8 bytes",
               "the tiny-raw model (lone UTF-8 bytes)", _model("tiny-raw")),
    Capability("minilm", "all-MiniLM-L6-v2: real sentence embeddings with known similarities",
               "the MiniLM embedding model (known similarities)", _model("minilm")),
    Capability("reranker", "the generated BERT reranker (random weights): scores pinned by our model",
               "the generated reranker model", _model("reranker")),
    Capability("smollm2", "SmolLM2-135M-Instruct: answers that carry meaning, its chat template",
               "SmolLM2-135M-Instruct", _model("smollm2")),
    Capability("gemma3", "Gemma 3 270M: sliding-window attention (a 512-token window), a 262,144-token vocabulary, "
               "no chat template in its file", "Gemma 3 270M", _model("gemma3")),
    Capability("metrics", "GET /metrics answers (the server runs with --metrics)", "--metrics",
               _route("GET", "/metrics")),
    Capability("slots", "GET /slots answers (on by default; --no-slots turns it off)", "the /slots route",
               _route("GET", "/slots")),
    Capability("slot-save", "slot save, restore and erase (--slot-save-path)", "--slot-save-path",
               _route("POST", "/slots/0?action=probe")),
    Capability("embeddings", "the embedding routes answer (--embeddings)", "--embeddings",
               _route("POST", "/embedding")),
    Capability("reranking", "the rerank routes answer (--reranking and a reranking model)", "--reranking",
               _route("POST", "/rerank")),
    Capability("infill", "/infill works: the model has fill-in-the-middle tokens", "a model with FIM tokens",
               _route("POST", "/infill")),
    Capability("default-routes", "the routes that flags turn on are off, and /slots is on: llama-server's "
               "default gates", "default route gates (no --metrics, --embeddings, --reranking, --slot-save-path, "
               "--props; /slots on)", _default_routes),
    Capability("multi-slot", "two or more slots (total_slots in /props)", "2 or more slots (--parallel 2)",
               _slots_at_least(2)),
    Capability("tools", "a chat template that supports tools (chat_template_caps in /props)",
               "a chat template with tool calls", _template_cap("supports_tools")),
    Capability("no-tools", "a chat template without tool support (chat_template_caps in /props)",
               "a chat template without tool calls", _template_cap("supports_tools", want=False)),
    Capability("image-input", "image input: a projector for images (modalities.vision in /props)",
               "a projector for images (--mmproj)", _modality("vision")),
    Capability("audio-input", "audio input: a projector for audio (modalities.audio in /props)",
               "a projector for audio (--mmproj)", _modality("audio")),
    Capability("model-file", "the server's model file is readable here (for an external server: model_path "
               "in /props), so its GGUF metadata is the expectation", "the model file on this machine", _model_file),
    Capability("full-prompt-cache", "the server keeps a whole prompt for reuse (all but its last token): a model "
               "without sliding-window attention, or --swa-full (GGUF metadata of the model file)",
               "a model without sliding-window attention, or --swa-full", _model_fact(_full_prompt_cache)),
    Capability("stored-template", "the model file stores a chat template (tokenizer.chat_template), which /props "
               "reports", "a chat template stored in the model file", _model_fact(_stored_template)),
    Capability("generated-model", "the server runs a model the project generates (tiny, its variants, the "
               "reranker), the same bytes as ours: the numpy reference computes its numbers",
               "a model the project generates (its file on this machine)", _generated_model),
    Capability("api-key", "the server refuses requests without an API key (--api-key), and this run knows "
               "the key (LLAMATEST_API_KEY for an external server)", "--api-key", _api_key),
)}

# Flags a suite's server must have, and the capability that shows an external server has them. Any
# other flag cannot be discovered from outside: a suite that passes one needs a managed server.
FLAG_NEEDS = {"--metrics": "metrics", "--embeddings": "embeddings", "--embedding": "embeddings",
              "--reranking": "reranking", "--rerank": "reranking", "--slot-save-path": "slot-save",
              "--api-key": "api-key"}
NEUTRAL_FLAGS = ("--ctx-size", "--parallel")  # every preset sets them; tests that rely on them say so


def known_names() -> list[str]:
    return list(VOCABULARY)


def needs_of_tags(tags: Iterable[str]) -> list[str]:
    """The names of the ``needs:NAME`` tags, in order (lower-case, as Robot normalizes tags anyway)."""
    return [str(tag)[len(PREFIX):].strip().lower() for tag in tags if str(tag).lower().startswith(PREFIX)]


def unknown(names: Iterable[str]) -> list[str]:
    return [name for name in names if name not in VOCABULARY]


def unknown_message(names: Iterable[str]) -> str:
    bad = ", ".join(f"needs:{name}" for name in names)
    return f"unknown capability tag {bad}: the known names are {', '.join(known_names())}"


def needs_of_flags(flags: Iterable[str]) -> list[str]:
    """The capabilities a server started with these flags has that a default server lacks.

    ``--metrics`` gives ``metrics`` and so on (`FLAG_NEEDS`); any other flag (``--lora``,
    ``--model-draft``, ``--batch-size``, …) cannot be seen from outside and gives ``managed``.
    Values (anything not starting with ``-``) are skipped.
    """
    needs: list[str] = []
    for arg in map(str, flags):
        if not arg.startswith("-") or _is_number(arg):
            continue
        flag = arg.split("=", 1)[0]
        if flag in NEUTRAL_FLAGS:
            continue
        need = FLAG_NEEDS.get(flag, "managed")
        if need not in needs:
            needs.append(need)
    return needs


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def missing(target: Target, names: Iterable[str]) -> str | None:
    """The skip reason for the first of ``names`` the target lacks (checked once per server); None if it has all.

    A managed server has whatever its flags give (no probe needed).
    """
    given = set(needs_of_flags(target.flags)) if target.managed else set()
    for name in names:
        if name in given:
            continue
        evidence = _checked(target, name)
        if evidence is not None:
            return VOCABULARY[name].reason(evidence)
    return None


def _checked(target: Target, name: str) -> str | None:
    if name not in target._checked:
        target._checked[name] = VOCABULARY[name].check(target)
    return target._checked[name]


def reason_head(reason: str) -> str:
    """What a skip reason says is missing (``needs --metrics``), for counting skips per capability."""
    return reason.split(":", 1)[0]


def vocabulary_table() -> str:
    """The vocabulary as a Markdown table (for CONTRIBUTING.md and the report)."""
    rows = ["| tag | means | skip reason starts with |", "|---|---|---|"]
    rows += [f"| `needs:{c.name}` | {c.meaning} | needs {c.get_it} |" for c in VOCABULARY.values()]
    return "\n".join(rows)
