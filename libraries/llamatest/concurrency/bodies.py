"""Request bodies of a batch: N prompts, or one prompt N times, with per-request slot and seed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ROUTES = {"native": "/completion", "openai": "/v1/completions", "chat": "/v1/chat/completions",
          "embeddings": "/v1/embeddings"}


def route_path(route: str) -> str:
    """``native`` → ``/completion``, ``openai`` → ``/v1/completions``, ``chat`` → ``/v1/chat/completions``,
    ``embeddings`` → ``/v1/embeddings``."""
    try:
        return ROUTES[route]
    except KeyError:
        raise ValueError(f"unknown route {route!r}: use one of {', '.join(ROUTES)}") from None


def build_bodies(route: str, prompts: Sequence[Any], times: int = 1, stream: bool = True,
                 id_slots: Sequence[int] | None = None, seeds: Sequence[int] | None = None,
                 n_predicts: Sequence[int] | None = None, fields: dict[str, Any] | None = None) -> list[dict]:
    """One body per request: every prompt ``times`` times (prompt order kept: a, b, a, b for ``times=2``).

    Every body gets ``stream``, ``temperature: 0`` (unless ``fields`` sets it) and ``fields``; request
    ``i`` gets ``id_slots[i]``, ``seeds[i]`` and ``n_predicts[i]`` (as ``n_predict``, which every route
    reads) when given: one per request, or a single value for all. Chat bodies carry each prompt as one
    user message; embedding bodies are ``{"input": prompt}``, ``fields`` and the per-request values.
    """
    route_path(route)
    if not prompts:
        raise ValueError("no prompt given")
    if times < 1:
        raise ValueError(f"times must be at least 1, got {times}")
    requests = [prompt for _ in range(times) for prompt in prompts]
    per_request = {"id_slot": _per_request("id_slots", id_slots, len(requests)),
                   "seed": _per_request("seeds", seeds, len(requests)),
                   "n_predict": _per_request("n_predicts", n_predicts, len(requests))}
    bodies = []
    for i, prompt in enumerate(requests):
        body: dict[str, Any] = {"temperature": 0, **(fields or {}), "stream": stream}
        if route == "embeddings":
            body = {"input": prompt, **(fields or {})}
        elif route == "chat":
            body["messages"] = [{"role": "user", "content": prompt}]
        else:
            body["prompt"] = prompt
        body.update({name: values[i] for name, values in per_request.items() if values is not None})
        bodies.append(body)
    return bodies


def _per_request(name: str, values: Sequence[int] | None, n: int) -> list[int] | None:
    if values is None:
        return None
    values = list(values)
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise ValueError(f"{name} has {len(values)} values for {n} requests: give one per request, or one for all")
    return values


MIX = (("native", True), ("native", False), ("openai", True), ("chat", False), ("chat", True), ("openai", False))
INVALID_N_PREDICT = -5  # below -1: every route rejects it with 400


def build_mixed(count: int, n_predict: int, invalid_every: int = 0, cancel_every: int = 0,
                fields: dict[str, Any] | None = None) -> tuple[list[str], list[dict], list[int]]:
    """``count`` requests cycling through native, OpenAI completion and chat routes, streamed and not.

    Request ``i`` asks for ``n_predict`` tokens, on prompt ``user i``; every ``invalid_every``-th asks for
    ``n_predict: -5`` (an invalid request); every ``cancel_every``-th valid streamed request is listed for
    a hang-up. Returns the paths, the bodies and the indices to hang up on.
    """
    paths, bodies, cancel = [], [], []
    streamed = 0
    for i in range(count):
        route, stream = MIX[i % len(MIX)]
        invalid = invalid_every > 0 and (i + 1) % invalid_every == 0
        (body,) = build_bodies(route, [f"user {i}"], stream=stream, fields=fields,
                               n_predicts=[INVALID_N_PREDICT if invalid else n_predict])
        paths.append(route_path(route))
        bodies.append(body)
        if stream and not invalid:
            streamed += 1
            if cancel_every > 0 and streamed % cancel_every == 0:
                cancel.append(i)
    return paths, bodies, cancel
