"""What the load engine needs to know of each llama-server route: the request body it takes, whether it
streams, how many inputs a request carries, and what a good answer of a route that does not stream is.

Streamed routes (SSE, timed token by token): ``/v1/chat/completions``, ``/v1/completions``, ``/completion``
(and its alias ``/completions``), ``/v1/responses``, ``/v1/messages``, ``/infill``. Routes answered in one
JSON body (latency and inputs/s, no TTFT): ``/v1/embeddings``, ``/embedding``, ``/v1/rerank``.
"""

from __future__ import annotations

from typing import Any

CHAT = "/v1/chat/completions"
OPENAI_COMPLETIONS = "/v1/completions"
NATIVE_COMPLETION = "/completion"
NATIVE_ALIAS = "/completions"
RESPONSES = "/v1/responses"
MESSAGES = "/v1/messages"
INFILL = "/infill"
OPENAI_EMBEDDINGS = "/v1/embeddings"
NATIVE_EMBEDDING = "/embedding"
RERANK = "/v1/rerank"

STREAMED = (CHAT, OPENAI_COMPLETIONS, NATIVE_COMPLETION, NATIVE_ALIAS, RESPONSES, MESSAGES, INFILL)
JSON_ROUTES = (OPENAI_EMBEDDINGS, NATIVE_EMBEDDING, RERANK)
ALL = STREAMED + JSON_ROUTES


def streamed(route: str) -> bool:
    """True for a route answered as an SSE stream; False for the embeddings and rerank routes."""
    return route not in JSON_ROUTES


def check_route(route: str) -> str:
    if route not in ALL:
        raise ValueError(f"route must be one of {', '.join(ALL)}; got {route!r}")
    return route


def generation_body(route: str, prompt: str | list, max_tokens: int) -> dict[str, Any]:
    """The body asking ``route`` for ``max_tokens`` tokens after ``prompt``: a string, or a list of chat
    messages (``[{"role", "content"}]``) on the chat and messages routes. ``/infill`` splits a string prompt
    in two halves (prefix and suffix)."""
    if route in (CHAT, MESSAGES):
        messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
        return {"messages": messages, "max_tokens": max_tokens}
    if not isinstance(prompt, str):
        raise ValueError(f"route {route} takes a text prompt, not chat messages")
    if route == OPENAI_COMPLETIONS:
        return {"prompt": prompt, "max_tokens": max_tokens}
    if route == RESPONSES:
        return {"input": prompt, "max_output_tokens": max_tokens}
    if route == INFILL:
        half = len(prompt) // 2
        return {"input_prefix": prompt[:half], "input_suffix": prompt[half:], "n_predict": max_tokens}
    if route in (NATIVE_COMPLETION, NATIVE_ALIAS):
        return {"prompt": prompt, "n_predict": max_tokens}
    raise ValueError(f"route {route} does not generate text; use input_body")


def input_body(route: str, texts: list[str], query: str = "") -> dict[str, Any]:
    """The body of an embeddings or rerank request: ``texts`` are the inputs (the documents of a rerank)."""
    if route == OPENAI_EMBEDDINGS:
        return {"input": list(texts)}
    if route == NATIVE_EMBEDDING:
        return {"content": texts[0] if len(texts) == 1 else list(texts)}
    if route == RERANK:
        return {"query": query, "documents": list(texts)}
    raise ValueError(f"route {route} is not an embeddings or rerank route")


def n_inputs(body: dict[str, Any]) -> int | None:
    """Inputs a request of an embeddings or rerank route carries: the embedded texts, or the reranked
    documents; None when the body has none."""
    for key in ("documents", "input", "content"):
        value = body.get(key)
        if isinstance(value, list):
            return len(value)
        if isinstance(value, str):
            return 1
    return None


def json_answer_problem(route: str, answer: Any, inputs: int | None) -> str | None:
    """Why ``answer`` (the parsed body of a 200) is not a whole answer of ``route`` to ``inputs`` inputs;
    None when it is: one embedding (or one score) per input."""
    if route == OPENAI_EMBEDDINGS:
        items = answer.get("data") if isinstance(answer, dict) else None
    elif route == RERANK:
        items = answer.get("results") if isinstance(answer, dict) else None
    else:  # /embedding answers a list of {index, embedding}
        items = answer if isinstance(answer, list) else None
    if not isinstance(items, list):
        return f"{route} answered {type(answer).__name__} without its list of results"
    if inputs is not None and len(items) != inputs:
        return f"{route} answered {len(items)} results for {inputs} inputs"
    return None


def normalized_usage(usage: Any) -> dict[str, Any] | None:
    """A route's ``usage`` in OpenAI chat terms, so one set of metrics reads every route:
    Responses ``input_tokens``/``output_tokens``/``input_tokens_details`` and Anthropic ``input_tokens``
    (uncached) + ``cache_read_input_tokens`` become ``prompt_tokens``, ``completion_tokens`` and
    ``prompt_tokens_details.cached_tokens``."""
    if not isinstance(usage, dict):
        return None
    if "prompt_tokens" in usage or "completion_tokens" in usage:
        return usage
    out: dict[str, Any] = {}
    if "output_tokens" in usage and ("input_tokens" not in usage or usage.get("output_tokens")):
        out["completion_tokens"] = usage["output_tokens"]
    if "input_tokens" in usage:
        cached = usage.get("cache_read_input_tokens")
        details = usage.get("input_tokens_details")
        if cached is not None:  # Anthropic: input_tokens excludes what was read from the cache
            out["prompt_tokens"] = int(usage["input_tokens"]) + int(cached)
        else:
            out["prompt_tokens"] = usage["input_tokens"]
            cached = details.get("cached_tokens") if isinstance(details, dict) else None
        if cached is not None:
            out["prompt_tokens_details"] = {"cached_tokens": cached}
    return out or None
