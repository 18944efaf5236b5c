"""How a load run makes its request bodies: the one protocol every body maker implements, and what they share.

The engine asks a `RequestBodies` for the body of request ``index`` and adds ``stream`` (and
``stream_options``) itself. The makers: ``datasets.BodySpec`` (one prompt per request), ``multiturn.SessionBodies``
(conversations), ``prefix.PrefixBodies`` (a shared system prompt), ``mix.MixBodies`` (several routes),
``traces.TraceBodies`` (a replayed trace) and ``engine.distributed.ShardBodies`` (a Ray worker's share of
another maker). Each is plain, picklable data, so the same maker can be shipped to Ray workers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, Protocol

from llamatest.load.workloads import routes


class RequestBodies(Protocol):
    """Makes the body of request ``index`` (warm-up requests first, then the measured ones, counted together).

    A maker may say more; the engine reads each of these with ``getattr`` and does without when it is None:

    - ``prompt_hash(index)``: the hash of that body's prompt (`prompt_hash`), when the maker can cache it;
    - ``route_of(index)``: the route of that request (a mix of routes; else the run's route);
    - ``schedule(profile)``: send offsets and the measured window of its own (a replayed trace; else the
      profile's ``plan()``);
    - ``turns(session)`` and ``turn_body(session, turn)``: multi-turn sessions (a session is the unit of a
      user, and of an open-loop arrival);
    - ``prompt_tokens_of(index)``: the prompt tokens that request must have (a trace row's; checked against
      what the server counted).
    """

    prompt_hash: Callable[[int], str] | None = None
    route_of: Callable[[int], str] | None = None
    schedule: Callable[[Any], tuple[list[float], tuple[float, float]]] | None = None
    turns: Callable[[int], int] | None = None
    turn_body: Callable[[int, int], dict] | None = None
    prompt_tokens_of: Callable[[int], int] | None = None

    def __call__(self, index: int) -> dict: ...


def sampling_fields(cold: bool, extra: dict | None, *, ignore_eos: bool = True) -> dict:
    """The fields every generation request of a workload carries besides its prompt: greedy and seeded,
    a fixed output length (``ignore_eos``), ``cache_prompt: false`` when ``cold``; ``extra`` wins."""
    out: dict[str, Any] = {"temperature": 0.0, "seed": 0}
    if ignore_eos:
        out["ignore_eos"] = True
    if cold:
        out["cache_prompt"] = False
    return with_fields(out, extra or {})


def require_message_route(route: str, what: str) -> None:
    """Workloads that send a list of messages run on the chat and Anthropic routes only."""
    if route not in (routes.CHAT, routes.MESSAGES):
        raise ValueError(f"{what} runs on {routes.CHAT} or {routes.MESSAGES}; got {route!r}")


def with_fields(body: dict, fields: dict) -> dict:
    """``body`` with a deep copy of ``fields`` merged in (no two requests share a nested object)."""
    body.update(json.loads(json.dumps(fields)))
    return body


def prompt_hash(body: dict[str, Any]) -> str:
    """What a request record keeps of the prompt of ``body`` (its ``messages``, else its ``prompt``): 16 hex
    digits, or "" when the body has neither."""
    prompt = body.get("messages", body.get("prompt"))
    if prompt is None:
        return ""
    text = prompt if isinstance(prompt, str) else json.dumps(prompt, sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
