"""Every dataset and workload by name: ``load_dataset(name, ...)`` is what the keywords and the command line
call (``--dataset sharegpt-multiturn``).

| name | what | parameters (defaults) |
|---|---|---|
| ``sharegpt`` | first user turns of ShareGPT | count 200, seed, min_chars 16, max_chars 1500 |
| ``fixed-length`` | prompts of exactly ``tokens`` tokens on ``route`` | tokens (required), count 200, seed |
| ``sharegpt-multiturn`` | ShareGPT conversations as recorded | count 50, turns 4, seed, max_chars 1000 |
| ``generated-multiturn`` | generated conversations | count 50, turns 4, seed, words 40 |
| ``shared-prefix`` | a system prompt of exactly ``prefix_tokens`` tokens, a question each | prefix_tokens 256, |
|  |  | questions 200, seed |
| ``bursty-trace`` | the shipped trace: seeded gamma arrivals, exact token counts | requests 60, rate 2, |
|  |  | burstiness 0.25, seed |
| ``trace`` | a trace file (``path``): this project's JSONL, Mooncake JSONL or BurstGPT CSV | path (required), seed |
| ``route-mix`` | ShareGPT prompts over several routes | weights (required: "ROUTE=W ..."), inputs 4, |
|  |  | count 200, seed, max_chars 1000 |

Names that need the server (exact token counts through ``/tokenize``) take ``base_url`` (and ``headers``);
the trace datasets build prompts for ``route`` (default the chat route).
"""

from __future__ import annotations

import inspect
from typing import Any

from llamatest.load.workloads import datasets, mix, multiturn, prefix, routes, traces
from llamatest.load.workloads.datasets import Dataset


def _sharegpt(count: int = 200, seed: int = 0, min_chars: int = 16, max_chars: int = 1500) -> Dataset:
    prompts = datasets.sharegpt_prompts(count, seed=seed, min_chars=min_chars, max_chars=max_chars)
    return Dataset("sharegpt", tuple(prompts), {"seed": seed, "min_chars": min_chars, "max_chars": max_chars})


def _fixed_length(base_url: str, tokens: int, count: int = 200, seed: int = 0, route: str = routes.CHAT,
                  headers: dict | None = None) -> Dataset:
    prompts = datasets.fixed_length_prompts(base_url, count, tokens, seed=seed, route=route, headers=headers)
    return Dataset(f"fixed-{tokens}-tokens", tuple(prompts), {"seed": seed, "tokens": tokens, "route": route})


def _with_workload(name: str, workload, params: dict) -> Dataset:
    return Dataset(name, tuple(workload.texts()), params, workload=workload)


def _sharegpt_multiturn(count: int = 50, turns: int = 4, seed: int = 0, max_chars: int = 1000) -> Dataset:
    found = multiturn.sharegpt_conversations(count, turns, seed=seed, max_chars=max_chars)
    return _with_workload("sharegpt-multiturn", found, {"count": count, "turns": turns, "seed": seed,
                                                        "max_chars": max_chars})


def _generated_multiturn(count: int = 50, turns: int = 4, seed: int = 0, words: int = 40) -> Dataset:
    found = multiturn.generated_conversations(count, turns, seed=seed, words=words)
    return _with_workload("generated-multiturn", found, {"count": count, "turns": turns, "seed": seed,
                                                         "words": words})


def _shared_prefix(base_url: str, prefix_tokens: int = 256, questions: int = 200, seed: int = 0,
                   headers: dict | None = None) -> Dataset:
    found = prefix.shared_prefix(base_url, prefix_tokens, questions=questions, seed=seed, headers=headers)
    return _with_workload("shared-prefix", found, {"prefix_tokens": prefix_tokens, "questions": questions,
                                                   "seed": seed})


def _bursty_trace(base_url: str, requests: int = 60, rate: float = 2.0, burstiness: float = 0.25, seed: int = 0,
                  route: str = routes.CHAT, headers: dict | None = None) -> Dataset:
    rows = traces.bursty_trace(requests, rate=rate, burstiness=burstiness, seed=seed)
    found = traces.build_prompts(base_url, rows, route=route, seed=seed, headers=headers)
    return _with_workload("bursty-trace", found, {"requests": requests, "rate": rate, "burstiness": burstiness,
                                                  "seed": seed, "route": route})


def _trace(base_url: str, path: str, seed: int = 0, route: str = routes.CHAT,
           headers: dict | None = None) -> Dataset:
    rows, source = traces.read_trace(path)
    found = traces.build_prompts(base_url, rows, route=route, seed=seed, headers=headers)
    return _with_workload("trace", found, {**source, "seed": seed, "route": route})


def _route_mix(weights: str | dict, inputs: int = 4, count: int = 200, seed: int = 0,
               max_chars: int = 1000) -> Dataset:
    prompts = datasets.sharegpt_prompts(count, seed=seed, max_chars=max_chars)
    routed = mix.RouteMix(tuple(prompts), mix.parse_weights(weights), inputs=inputs, seed=seed)
    return _with_workload("route-mix", routed, {"weights": dict(routed.weights), "inputs": inputs, "count": count,
                                                "seed": seed, "max_chars": max_chars})


_MAKERS = {"sharegpt": _sharegpt, "fixed-length": _fixed_length, "sharegpt-multiturn": _sharegpt_multiturn,
           "generated-multiturn": _generated_multiturn, "shared-prefix": _shared_prefix,
           "bursty-trace": _bursty_trace, "trace": _trace, "route-mix": _route_mix}
NAMES = tuple(_MAKERS)


def load_dataset(name: str, *, base_url: str | None = None, headers: dict | None = None, **params: Any) -> Dataset:
    """The dataset ``name`` (see the table above) made with ``params``. An unknown name, an unknown or
    missing parameter, or a name that needs the server without ``base_url``, raises ValueError with one
    line that names the problem and the fix."""
    maker = _MAKERS.get(name)
    if maker is None:
        raise ValueError(f"unknown dataset {name!r}: use one of {', '.join(NAMES)}")
    accepted = inspect.signature(maker).parameters
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        takes = ", ".join(p for p in accepted if p not in ("base_url", "headers"))
        raise ValueError(f"dataset {name!r} takes no {', '.join(unknown)}; it takes {takes}")
    if "base_url" in accepted:
        if not base_url:
            raise ValueError(f"dataset {name!r} counts tokens with the server's /tokenize: give the server's URL")
        params = {"base_url": base_url, "headers": headers, **params}
    missing = [p for p, v in accepted.items() if v.default is inspect.Parameter.empty and p not in params]
    if missing:
        raise ValueError(f"dataset {name!r} needs {', '.join(missing)}")
    return maker(**params)
