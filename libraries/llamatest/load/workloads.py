"""Workloads beyond one independent prompt per request: conversations, a shared system prompt, several routes.

Each workload is plain, picklable data with ``body_maker(route, max_tokens, cold, extra)``, which returns the
engine's ``body_for`` (see ``engine.py`` for what else a ``body_for`` may say):

- ``Conversations``: multi-turn sessions. Session ``s`` is conversation ``s % n``; its turn ``t`` sends the
  whole history (every earlier user turn and the recorded assistant answer to it) and user turn ``t``. The
  first user turn opens with the session's own tag, so two sessions never share more than the chat
  template's header. Meant to be warm: prompt-cache reuse across turns is what it measures.
- ``SharedPrefix``: every request sends one system prompt (exactly ``prefix_tokens`` tokens of text, built
  with ``/tokenize``) and a question of its own.
- ``RouteMix``: requests spread over routes by weight (a seeded, deterministic choice per request index):
  generation routes get the prompt, ``/v1/embeddings`` and ``/embedding`` embed ``inputs`` prompts per
  request, ``/v1/rerank`` ranks ``inputs`` prompts against another one.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any

from llamatest.load import datasets, routes

GENERATED_WORDS_PER_TURN = 40


def sampling_fields(cold: bool, extra: dict | None, *, ignore_eos: bool = True) -> dict:
    """The fields every generation request of a workload carries besides its prompt: greedy and seeded,
    a fixed output length (``ignore_eos``), ``cache_prompt: false`` when ``cold``; ``extra`` wins."""
    out: dict[str, Any] = {"temperature": 0.0, "seed": 0}
    if ignore_eos:
        out["ignore_eos"] = True
    if cold:
        out["cache_prompt"] = False
    return with_fields(out, extra or {})


def _require_message_route(route: str, what: str) -> None:
    """Workloads that send a list of messages run on the chat and Anthropic routes only."""
    if route not in (routes.CHAT, routes.MESSAGES):
        raise ValueError(f"{what} runs on {routes.CHAT} or {routes.MESSAGES}; got {route!r}")


def with_fields(body: dict, fields: dict) -> dict:
    """``body`` with a deep copy of ``fields`` merged in (no two requests share a nested object)."""
    body.update(json.loads(json.dumps(fields)))
    return body


# ----- multi-turn conversations -----
@dataclass(frozen=True)
class Conversations:
    """Multi-turn sessions (see the module documentation): ``pairs[c]`` is conversation ``c``'s list of
    (user, assistant) turns; ``system`` an optional system prompt."""

    pairs: tuple[tuple[tuple[str, str], ...], ...]
    system: str = ""
    warm: bool = True

    def texts(self) -> list[str]:
        return [text for conversation in self.pairs for pair in conversation for text in pair]

    def body_maker(self, *, route: str, max_tokens: int, cold: bool, extra: dict | None) -> SessionBodies:
        _require_message_route(route, "a multi-turn workload")
        return SessionBodies(self, route, max_tokens, sampling_fields(cold, extra))


@dataclass(frozen=True)
class SessionBodies:
    """The engine's ``body_for`` of ``Conversations``: ``turns(s)`` and ``turn_body(s, t)``; ``body_for(i)``
    itself (warmup requests) sends the first turn of conversations counted from the last one, under a tag
    no session uses."""

    conversations: Conversations
    route: str
    max_tokens: int
    fields: dict = field(default_factory=dict)

    def turns(self, session: int) -> int:
        return len(self._pairs(session))

    def _pairs(self, session: int) -> tuple[tuple[str, str], ...]:
        pairs = self.conversations.pairs
        return pairs[session % len(pairs)]

    def turn_body(self, session: int, turn: int) -> dict:
        return self._body(self._pairs(session), turn, f"[session {session}] ")

    def __call__(self, index: int) -> dict:
        pairs = self.conversations.pairs
        return self._body(pairs[-1 - index % len(pairs)], 0, f"[warmup {index}] ")

    def _body(self, pairs: tuple[tuple[str, str], ...], turn: int, tag: str) -> dict:
        messages = []
        if self.conversations.system:
            messages.append({"role": "system", "content": self.conversations.system})
        for i, (user, assistant) in enumerate(pairs[:turn + 1]):
            messages.append({"role": "user", "content": tag + user if i == 0 else user})
            if i < turn:
                messages.append({"role": "assistant", "content": assistant})
        if self.route == routes.MESSAGES and messages[0]["role"] == "system":
            body = routes.generation_body(self.route, messages[1:], self.max_tokens)
            body["system"] = messages[0]["content"]
        else:
            body = routes.generation_body(self.route, messages, self.max_tokens)
        return with_fields(body, self.fields)


def sharegpt_conversations(count: int, turns: int, *, seed: int = 0, max_chars: int = 1000) -> Conversations:
    """``count`` ShareGPT conversations of ``turns`` turns, as recorded (see ``datasets.sharegpt_conversations``)."""
    found = datasets.sharegpt_conversations(count, turns, seed=seed, max_chars=max_chars)
    return Conversations(tuple(tuple(c) for c in found))


def generated_conversations(count: int, turns: int, *, seed: int = 0,
                            words: int = GENERATED_WORDS_PER_TURN) -> Conversations:
    """``count`` conversations of ``turns`` turns of ``words`` ordinary words each (user and assistant alike),
    drawn with ``seed``: no dataset needed, every turn about the same length."""
    for name, value, low in (("count", count, 1), ("turns", turns, 1), ("words", words, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    rng = random.Random(seed)

    def text() -> str:
        return " ".join(rng.choice(datasets._WORDS) for _ in range(words))

    return Conversations(tuple(tuple((text(), text()) for _ in range(turns)) for _ in range(count)))


# ----- shared prefix -----
@dataclass(frozen=True)
class SharedPrefix:
    """Every request: the system prompt ``system`` (``prefix_tokens`` tokens of text) and question
    ``questions[i % n]``. Meant to be warm: the shared prefix is what the prompt cache may reuse."""

    system: str
    prefix_tokens: int
    questions: tuple[str, ...]
    warm: bool = True

    def texts(self) -> list[str]:
        return [self.system, *self.questions]

    def body_maker(self, *, route: str, max_tokens: int, cold: bool, extra: dict | None) -> PrefixBodies:
        _require_message_route(route, "a shared-prefix workload")
        return PrefixBodies(self, route, max_tokens, sampling_fields(cold, extra))


@dataclass(frozen=True)
class PrefixBodies:
    workload: SharedPrefix
    route: str
    max_tokens: int
    fields: dict = field(default_factory=dict)

    def __call__(self, index: int) -> dict:
        question = self.workload.questions[index % len(self.workload.questions)]
        if self.route == routes.MESSAGES:
            body = routes.generation_body(self.route, [{"role": "user", "content": question}], self.max_tokens)
            body["system"] = self.workload.system
        else:
            messages = [{"role": "system", "content": self.workload.system}, {"role": "user", "content": question}]
            body = routes.generation_body(self.route, messages, self.max_tokens)
        return with_fields(body, self.fields)


def shared_prefix(base_url: str, prefix_tokens: int, *, questions: int = 200, seed: int = 0,
                  headers: dict | None = None, question_words: int = 12) -> SharedPrefix:
    """A system prompt of exactly ``prefix_tokens`` tokens of text for the server's model (``/tokenize``) and
    ``questions`` distinct questions of ``question_words`` words, each opening with its own tag."""
    system = datasets.fixed_length_prompts(base_url, 1, prefix_tokens, seed=seed, headers=headers)[0]
    rng = random.Random(seed + 1)
    asked = tuple(f"[q{i}] " + " ".join(rng.choice(datasets._WORDS) for _ in range(question_words)) + "?"
                  for i in range(questions))
    return SharedPrefix(system, prefix_tokens, asked)


# ----- several routes -----
@dataclass(frozen=True)
class RouteMix:
    """Requests over several routes: ``weights`` route -> relative weight, ``prompts`` the texts, ``inputs``
    texts per embeddings or rerank request."""

    prompts: tuple[str, ...]
    weights: tuple[tuple[str, float], ...]
    inputs: int = 1
    seed: int = 0
    warm: bool = False

    def __post_init__(self) -> None:
        if not self.prompts or not all(isinstance(p, str) and p for p in self.prompts):
            raise ValueError("prompts must be a non-empty list of non-empty strings")
        if not self.weights:
            raise ValueError("weights must name at least one route, e.g. {'/v1/chat/completions': 1}")
        for route, weight in self.weights:
            routes.check_route(route)
            if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
                raise ValueError(f"the weight of {route} must be a number >= 0; got {weight!r}")
        if not any(w > 0 for _, w in self.weights):
            raise ValueError("at least one route weight must be > 0")
        if isinstance(self.inputs, bool) or not isinstance(self.inputs, int) or self.inputs < 1:
            raise ValueError(f"inputs must be an integer >= 1; got {self.inputs!r}")

    def texts(self) -> list[str]:
        return list(self.prompts)

    def body_maker(self, *, route: str, max_tokens: int, cold: bool, extra: dict | None) -> MixBodies:
        """``route`` is unused: each request's route comes from the weights."""
        return MixBodies(self, max_tokens, sampling_fields(cold, extra))


@dataclass(frozen=True)
class MixBodies:
    mix: RouteMix
    max_tokens: int
    fields: dict = field(default_factory=dict)

    def route_of(self, index: int) -> str:
        """The route of request ``index``: a weighted choice from a hash of (seed, index), so the same run
        always sends the same routes in the same order, whichever process makes the body."""
        digest = hashlib.blake2b(f"{self.mix.seed}:{index}".encode(), digest_size=8).digest()
        point = int.from_bytes(digest, "big") / 2**64 * sum(w for _, w in self.mix.weights)
        for route, weight in self.mix.weights:
            if point < weight:
                return route
            point -= weight
        return next(r for r, w in reversed(self.mix.weights) if w > 0)  # rounding at the very top

    def __call__(self, index: int) -> dict:
        route = self.route_of(index)
        prompts = self.mix.prompts
        if routes.streamed(route):
            body = routes.generation_body(route, prompts[index % len(prompts)], self.max_tokens)
            return with_fields(body, self.fields)
        texts = [prompts[(index + k) % len(prompts)] for k in range(1, self.mix.inputs + 1)]
        return routes.input_body(route, texts, query=prompts[index % len(prompts)])


def parse_weights(text: str | dict) -> tuple[tuple[str, float], ...]:
    """``"/v1/chat/completions=3 /v1/embeddings=1"`` (or a dict) -> ((route, weight), ...)."""
    if isinstance(text, dict):
        pairs = list(text.items())
    else:
        pairs = []
        for item in str(text).split():
            route, sep, weight = item.partition("=")
            if not sep:
                raise ValueError(f"route weights are 'route=weight' pairs separated by spaces; got {item!r}")
            pairs.append((route, weight))
    try:
        return tuple((routes.check_route(route), float(weight)) for route, weight in pairs)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad route weights {text!r}: {exc}") from None
