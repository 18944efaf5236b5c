"""Named llama-server set-ups (model, slots, context, flags): the one place where suites' servers are defined.

A suite says ``Start Preset Server    tiny-2-slots`` instead of repeating ``--ctx-size`` and
``--parallel`` in its own words; a suite that needs a variant overrides fields
(``n_slots=4``) or adds flags, and the log shows the exact command line.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from llamatest.models import own
from llamatest.models.own import OWN_MODELS
from llamatest.settings import ENV_SERVER_THREADS, threads_beside_client

# The models the project generates run one thread: they are too small for a second to pay. On 2 cores a serial
# client got 900 answers of tiny as fast either way (2.1-2.3 s) while the server used a third of the CPU, and a
# start took 20 ms instead of 27; the client keeps the other core. A real model (SmolLM2, Gemma 3, a user's own in
# their place) keeps llama-server's default: 7.7 against 12.2 s for the same answers of Gemma 3.
ONE_THREAD_MODELS = frozenset({"tiny", "tiny-raw", "tiny-reranker"})


@dataclass(frozen=True, kw_only=True)
class Preset:
    """One server set-up. ``n_ctx`` is the *total* context (``--ctx-size``), shared by the slots."""

    model: str
    n_slots: int
    n_ctx: int
    embeddings: bool = False
    api_key: str | None = field(default=None, repr=False)  # a secret: never in a log line
    flags: tuple[str, ...] = ()
    description: str
    # The own model (models/own.py) that replaces ``model`` when its variable is set: presets whose
    # tests hold for any model of that kind. None: the preset is about its own model.
    takes: str | None = None
    # A load client shares the machine: the server leaves it a core (``settings.threads_beside_client``). With
    # every core taken by the server's threads, the client's event loop was preempted for 10-30 ms on 2 cores
    # and stamped its token events late (the load smoke's client_bound skip), and the multi-user suites' /slots
    # sampler thread once polled 0.57 s apart on a quiet machine (a deferred-order check not judged).
    leaves_client_core: bool = False
    def __post_init__(self):
        if self.n_slots < 1 or self.n_ctx < self.n_slots:
            raise ValueError(f"a preset needs n_slots >= 1 and n_ctx >= n_slots, "
                             f"got n_slots={self.n_slots}, n_ctx={self.n_ctx}")
        object.__setattr__(self, "flags", tuple(str(flag) for flag in self.flags))

    @property
    def n_ctx_per_slot(self) -> int:
        """The context each slot gets: llama-server splits ``--ctx-size`` evenly between slots."""
        return self.n_ctx // self.n_slots

    def args(self, threads: str | None = None) -> list[str]:
        """The llama-server flags of this preset (everything but the model, host and port). ``threads``: what
        to show for ``--threads`` of a preset that leaves the client a core (the docs' tables: not this machine's)."""
        args = ["--ctx-size", str(self.n_ctx), "--parallel", str(self.n_slots)]
        if self.embeddings:
            args.append("--embeddings")
        if self.api_key is not None:
            args += ["--api-key", self.api_key]
        if self.leaves_client_core:
            args += ["--threads", threads or str(threads_beside_client())]
        return args + list(self.flags)

    def with_options(self, **overrides) -> Preset:
        """A copy with the given fields replaced; a None value leaves that field as it is."""
        return dataclasses.replace(self, **{k: v for k, v in overrides.items() if v is not None})


PRESETS: Mapping[str, Preset] = MappingProxyType({
    "tiny-1-slot": Preset(takes="own", model="tiny", n_slots=1, n_ctx=512,
                          description="the generated tiny model, one slot"),
    "tiny-2-slots": Preset(takes="own", model="tiny", n_slots=2, n_ctx=1024,
                           description="the tiny model, two slots of 512 tokens"),
    "tiny-3-slots": Preset(takes="own", model="tiny", n_slots=3, n_ctx=1536,
                           description="the tiny model, three slots of 512 tokens: "
                                       "a slot count no default gives"),
    "tiny-4-slots": Preset(takes="own", model="tiny", n_slots=4, n_ctx=2048,
                           description="the tiny model, four slots of 512 tokens (concurrency)"),
    "tiny-long-context": Preset(takes="own", model="tiny", n_slots=1, n_ctx=32768,
                                description="the tiny model, one slot of 32768 tokens: "
                                            "a request with n_predict -1 runs for seconds"),
    "tiny-embeddings": Preset(takes="own", model="tiny", n_slots=1, n_ctx=512, embeddings=True,
                              description="the tiny model with the embeddings endpoints on"),
    "smollm2": Preset(model="smollm2", n_slots=1, n_ctx=2048,
                      description="SmolLM2-135M-Instruct, one slot: answers real prompts"),
    "gemma3": Preset(model="gemma3", n_slots=1, n_ctx=2048,
                     description="Gemma 3 270M, one slot: a model of another family, with sliding-window "
                                 "attention (a 512-token window), a 262,144-token vocabulary and no chat template "
                                 "in its file"),
    "gemma3-2-slots": Preset(model="gemma3", n_slots=2, n_ctx=4096,
                             description="Gemma 3 270M, two slots of 2048 tokens: the sliding window on every "
                                         "slot, slots saved and restored"),
    "minilm-embeddings": Preset(takes="own-embedding", model="minilm", n_slots=2, n_ctx=1024, embeddings=True,
                                description="all-MiniLM-L6-v2 (a real sentence-embedding model), "
                                            "two slots of 512 tokens, embeddings on"),
    "tiny-reranker": Preset(takes="own-reranker", model="tiny-reranker", n_slots=1, n_ctx=512, flags=("--reranking",),
                            description="the generated BERT reranker (random weights, pooling rank), "
                                        "one slot, reranking on"),
    "tiny-reranker-embeddings": Preset(model="tiny-reranker", n_slots=1, n_ctx=512, embeddings=True,
                                       description="the generated BERT reranker as an embedding model (the suite "
                                                   "picks the pooling): vectors the numpy reference computes"),
    "tiny-metrics": Preset(takes="own", model="tiny", n_slots=1, n_ctx=512, flags=("--metrics",),
                           description="the tiny model, one slot, with the Prometheus /metrics endpoint on"),
    "tiny-infill": Preset(takes="own", model="tiny", n_slots=1, n_ctx=512, flags=("--batch-size", "64"),
                          description="the tiny model, one slot, 64-token batches: /infill keeps its "
                                      "input_extra and cuts long prefixes and suffixes at known lengths"),
    "tiny-no-jinja": Preset(takes="own", model="tiny", n_slots=1, n_ctx=512, flags=("--no-jinja",),
                            description="the tiny model, one slot, chat templates rendered by the legacy "
                                        "(non-Jinja) renderer"),
    "tiny-raw": Preset(model="tiny-raw", n_slots=1, n_ctx=512,
                       description="the tiny model's raw flavour: its output favours lone UTF-8 bytes "
                                   "(partial and invalid characters)"),
    "tiny-2-slots-metrics": Preset(takes="own", model="tiny", n_slots=2, n_ctx=4096, flags=("--metrics",),
                                   leaves_client_core=True,  # the /slots sampler must keep up (see the field)
                                   description="two slots of 2048 tokens with /metrics on: concurrent users "
                                               "with requests long enough to watch, deferred requests"),
    "tiny-2-slots-context-shift": Preset(takes="own", model="tiny", n_slots=2, n_ctx=512,
                                         flags=("--context-shift", "--metrics"),
                                         leaves_client_core=True,  # endless streams: the client must keep up
                                         description="two slots of 256 tokens with context shift and /metrics: "
                                                     "generation past the context, requests that never end"),
    "tiny-load": Preset(takes="own", model="tiny", n_slots=2, n_ctx=2048, flags=("--metrics",),
                        leaves_client_core=True,
                        description="the tiny model, two slots of 1024 tokens, /metrics on, a core left to the "
                                    "load client: the load smoke profile of the default run"),
    "smollm2-load": Preset(model="smollm2", n_slots=4, n_ctx=4096, flags=("--metrics",),
                           description="SmolLM2-135M-Instruct, four slots of 1024 tokens, /metrics on: the "
                                       "load suites (500-token prompts plus their answers fit a slot)"),
    "tiny-vision": Preset(model="tiny", n_slots=2, n_ctx=2048,
                          description="the tiny model, two slots of 1024 tokens, for the image projector: the "
                                      "suite adds ``--mmproj`` with the generated ``tiny-vision`` file"),
    "tiny-audio": Preset(model="tiny", n_slots=1, n_ctx=1024,
                         description="the tiny model, one slot of 1024 tokens, for the audio projector: the "
                                     "suite adds ``--mmproj`` with the generated ``tiny-audio`` file"),
})


def known_presets() -> list[str]:
    return list(PRESETS)


def preset(name: str) -> Preset:
    """The preset called ``name``; an unknown name fails with the known names.

    A preset that ``takes`` an own model runs it instead of its own when its variable
    (``LLAMATEST_MODEL``, ``LLAMATEST_EMBEDDING_MODEL``, ``LLAMATEST_RERANK_MODEL``) is set.
    """
    try:
        entry = PRESETS[name]
    except KeyError:
        raise AssertionError(f"unknown server preset '{name}': known presets are "
                             f"{', '.join(known_presets())}") from None
    if entry.takes and entry.takes in own.configured():
        return entry.with_options(model=entry.takes)
    return entry


def server_env(chosen: Preset, env: dict | None) -> dict | None:
    """The environment variables a local server of ``chosen`` gets: the caller's ``env``, and for a model of
    `ONE_THREAD_MODELS` ``LLAMA_ARG_THREADS=1`` unless the caller or the run sets it (run.py --processes does).
    A variable, not a flag: ``--threads`` in the flags (a suite's own, or a preset's that leaves a core to the
    client) wins over it, and it leaves the flags, which decide what an external server must offer, as they are."""
    if chosen.model not in ONE_THREAD_MODELS or ENV_SERVER_THREADS in os.environ or ENV_SERVER_THREADS in (env or {}):
        return env
    return {ENV_SERVER_THREADS: "1", **(env or {})}


DOC_THREADS = "CORES-1"  # --threads of a preset that leaves the load client a core, as the tables show it


def robot_table() -> str:
    """The presets as a Robot Framework documentation table, for the library documentation."""
    rows = ["| =Preset= | =Model= | =Slots= | =Context= | =Flags= | =What for= |"]
    for name, entry in PRESETS.items():
        flags = " ".join(entry.args(DOC_THREADS)).replace("|", "\\|")
        model = f"{entry.model} (or ``${OWN_MODELS[entry.takes]}``)" if entry.takes else entry.model
        rows.append(f"| ``{name}`` | {model} | {entry.n_slots} | {entry.n_ctx} | ``{flags}`` "
                    f"| {entry.description} |")
    return "\n".join(rows)


def markdown_table() -> str:
    """The presets as the Markdown table of docs/writing-suites.md (checked against it by a pytest)."""
    rows = ["| preset | model | slots | context | flags | for |", "|---|---|---|---|---|---|"]
    for name, entry in PRESETS.items():
        flags = " ".join(entry.args(DOC_THREADS)[4:]).replace("|", "\\|")  # after --ctx-size and --parallel
        model = f"{entry.model} (or `${OWN_MODELS[entry.takes]}`)" if entry.takes else entry.model
        rows.append(f"| `{name}` | {model} | {entry.n_slots} | {entry.n_ctx} | {f'`{flags}`' if flags else ''} "
                    f"| {entry.description.replace('``', '`')} |")
    return "\n".join(rows)
