"""Multi-turn conversations as a workload: each session sends its conversation's turns in order.

``Conversations``: session ``s`` is conversation ``s % n``; its turn ``t`` sends the whole history (every earlier
user turn and the recorded assistant answer to it) and user turn ``t``. The first user turn opens with the
session's own tag, so two sessions never share more than the chat template's header. Meant to be warm:
prompt-cache reuse across turns is what it measures. Its bodies (`SessionBodies`) are a `RequestBodies`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from llamatest.load.workloads import datasets, routes
from llamatest.load.workloads.bodies import RequestBodies, require_message_route, sampling_fields, with_fields

GENERATED_WORDS_PER_TURN = 40


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
        require_message_route(route, "a multi-turn workload")
        return SessionBodies(self, route, max_tokens, sampling_fields(cold, extra))


@dataclass(frozen=True)
class SessionBodies(RequestBodies):
    """The `RequestBodies` of ``Conversations``: ``turns(s)`` and ``turn_body(s, t)``; ``body_for(i)``
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
