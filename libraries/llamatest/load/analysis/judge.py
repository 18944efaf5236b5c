"""The numeric reference as the judge of an answer that changed under load (docs/reference.md, docs/load.md).

When a greedy answer sent again alone differs from the one the loaded server gave, the texts alone cannot say
which one is right. For a model the project generates (`needs:generated-model`: its ``/props`` ``model_path``
has the bytes of one of ours), the reference's argmax chain after the request's prompt can: the prompt's ids are
the server's own (``/apply-template`` for a chat, then ``/tokenize`` with BOS; a prompt of ids as sent), the
chain has as many tokens as the longer answer, and its text is the server's ``/detokenize`` of each id. Each
side is compared with that text; the first token of the chain where a side departs from it is reported.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import requests

from llamatest import deadlines
from llamatest.reference import compare, served
from llamatest.reference.weights import load_weights
from llamatest.textutil import join_url

# Body fields that make the server's choice something other than the model's argmax (or cut the text).
BLIND = ("logit_bias", "grammar", "json_schema", "response_format", "tools", "stop", "repeat_penalty",
         "presence_penalty", "frequency_penalty", "dry_multiplier")
TEXT_CHARS = 2000  # the reference's text in an entry is cut to this


def _post(target, path: str, body: dict) -> dict:
    resp = requests.post(join_url(target.base_url, path), json=body, headers=target.headers,
                         timeout=deadlines.deadline("tokenize"))
    resp.raise_for_status()
    return resp.json()


def why_not(target) -> str | None:
    """Why the reference cannot judge the answers of `target` (a load ``Target``); None when it can."""
    from llamatest.capabilities import VOCABULARY, Target  # probes /props: only when an answer changed

    reason = VOCABULARY["generated-model"].check(Target(url=target.base_url, headers=dict(target.headers)))
    if reason:
        return f"the reference judges only a model the project generates: {reason}"
    arch = load_weights(served.model_path(target.base_url, target.headers)).arch
    return None if arch == "llama" else f"the server's model is a {arch} model, not a generating llama model"


def prompt_ids(target, body: dict) -> list[int]:
    """The ids the server reads for the body's prompt (ValueError when the body has no text prompt)."""
    if any(key in body for key in BLIND):
        raise ValueError(f"the body sets {[k for k in BLIND if k in body]}: its answer is not the argmax chain")
    prompt = body.get("prompt")
    if isinstance(prompt, list) and prompt and all(isinstance(t, int) for t in prompt):
        return prompt
    messages = body.get("messages")
    if messages and all(isinstance(m.get("content"), str) for m in messages):
        prompt = _post(target, "/apply-template", {"messages": messages})["prompt"]
    if not isinstance(prompt, str):
        raise ValueError("the body has no text prompt the reference can read (an image, or another route)")
    return _post(target, "/tokenize", {"content": prompt, "add_special": True})["tokens"]


def departs(text: str, pieces: list[str]) -> int | None:
    """The position in the chain of `pieces` where `text` first departs from their text (None: the same)."""
    chain = "".join(pieces)
    if text == chain:
        return None
    char = len(os.path.commonprefix([text, chain]))
    return int(np.searchsorted(np.cumsum([len(p) for p in pieces]), char, side="right"))


def judge(target, body: dict, under_load: str, alone: str, n_tokens: int) -> dict[str, Any]:
    """Which side of one changed answer is the reference's argmax chain of `n_tokens` after the body's prompt."""
    prompt = prompt_ids(target, body)
    url, headers = target.base_url, target.headers
    model = compare.llama_model(served.model_path(url, headers), served.adapters(url, headers, body.get("lora")))
    chain = model.greedy(prompt, n_tokens)
    texts = {t: _post(target, "/detokenize", {"tokens": [t]})["content"] for t in set(chain)}
    pieces = [texts[t] for t in chain]
    load_at, alone_at = departs(under_load, pieces), departs(alone, pieces)
    right = "under load" if load_at is None else "alone" if alone_at is None else "neither"
    return {"matches": right, "under_load_differs_at": load_at, "alone_differs_at": alone_at,
            "tokens": n_tokens, "prompt_tokens": len(prompt), "reference": "".join(pieces)[:TEXT_CHARS]}


def judge_changes(target, cases: list[tuple[dict, str, str, int | None]]) -> tuple[str | None, list[dict]]:
    """``(why the reference did not judge, one judge entry per case)`` for `cases` of (body, text under load,
    text alone, tokens of the longer answer); an entry that could not be made holds its ``error``."""
    if not cases:
        return "no answer changed", []
    why = why_not(target)
    if why:
        return why, []
    entries = []
    for body, under_load, alone, n_tokens in cases:
        try:
            if not n_tokens:
                raise ValueError("the answers' token counts are unknown (no usage or timings)")
            entries.append(judge(target, body, under_load, alone, n_tokens))
        except (ValueError, requests.RequestException) as exc:
            entries.append({"error": f"not judged: {exc}"})
    return None, entries


def verdict(entry: dict) -> str:
    """One line for the flag's detail: which side was wrong, and where."""
    if "error" in entry:
        return entry["error"]
    load_at, alone_at = entry["under_load_differs_at"], entry["alone_differs_at"]
    return {"under load": f"the answer alone was wrong (departs from the reference at token {alone_at})",
            "alone": f"the answer under load was wrong (departs from the reference at token {load_at})",
            "neither": f"both were wrong (under load from token {load_at}, alone from token {alone_at})",
            }[entry["matches"]]
