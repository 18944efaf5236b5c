"""Several routes as a workload: requests spread over routes by weight.

``RouteMix``: a seeded, deterministic choice of route per request index. Generation routes get the prompt,
``/v1/embeddings`` and ``/embedding`` embed ``inputs`` prompts per request, ``/v1/rerank`` ranks ``inputs``
prompts against another one. Its bodies (`MixBodies`) are a `RequestBodies`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from llamatest.load.workloads import routes
from llamatest.load.workloads.bodies import RequestBodies, sampling_fields, with_fields


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
class MixBodies(RequestBodies):
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
