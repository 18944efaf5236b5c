"""A shared system prompt as a workload: every request sends one system prompt and a question of its own.

``SharedPrefix``: the system prompt is exactly ``prefix_tokens`` tokens of text, built with ``/tokenize``. Meant
to be warm: the shared prefix is what the prompt cache may reuse. Its bodies (`PrefixBodies`) are a
`RequestBodies`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from llamatest.load.workloads import datasets, routes
from llamatest.load.workloads.bodies import RequestBodies, require_message_route, sampling_fields, with_fields


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
        require_message_route(route, "a shared-prefix workload")
        return PrefixBodies(self, route, max_tokens, sampling_fields(cold, extra))


@dataclass(frozen=True)
class PrefixBodies(RequestBodies):
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
