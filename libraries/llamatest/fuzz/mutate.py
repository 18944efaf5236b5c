"""Seeded mutations of a valid JSON request body, as the raw bytes to send.

``Mutator(seed)`` gives the same sequence of mutations for the same seed and body, whatever else the
process does: it draws only from its own ``random.Random(seed)``. Each mutation is bounded: strings of
at most ``max_string`` characters, at most ``max_depth`` levels of nesting added by one change (a
mutation makes one or two), and at most ``max_bytes`` bytes in all. The kinds:

- structural, on a random place (a field, a list item, or the body itself): ``drop`` it, ``retype``
  it (a value of another JSON type), an ``extreme`` number written as raw JSON text (``1e309``,
  ``18446744073709551616``, ``NaN``…), a random ``string`` (unicode, control characters, lone
  surrogates, template and special-token syntax), ``nest`` it in arrays or objects, ``add`` a known
  llama-server field or an unknown one with a random value, ``duplicate`` a top-level key (the second
  value wins or not: that is for the server to decide);
- on the encoded bytes: ``truncate`` at a random byte, ``flip`` a few bytes (invalid UTF-8 included),
  or ``replace`` the whole body by an empty or non-object one.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass

STRUCTURAL = ("drop", "retype", "extreme", "string", "nest", "add", "duplicate")
BYTEWISE = ("truncate", "flip", "replace")
KINDS = STRUCTURAL + BYTEWISE

# Numbers as raw JSON text: several overflow int32, int64, uint64 or a double; NaN and Infinity are not JSON.
EXTREME_NUMBERS = (
    "0", "-0", "-1", "-2", "0.5", "-0.5", "1e-320", "1e308", "-1e308", "1e309", "-1e309", "1e30",
    "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
    "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
    "NaN", "Infinity", "-Infinity",
)
STRING_PIECES = (
    "a", "hello", " ", "\t", "\n", "\r\n", "\x00", "\x01", "\x1b[31m", "\x7f", "\\", '"', "'", "é", "日本",
    "🎉", "🦙", "e\u0301", "\u200b", "\u202e", "\ufeff", "\ufffd", "\uffff", "\U0010ffff", "\ud800", "\udfff",
    "<s>", "</s>", "<|im_start|>", "<|im_end|>", "{{ raise_exception('x') }}", "{%", "%s%n", "../", "null",
    "[DONE]", "data: ", "root ::= ",
)
REPLACEMENT_BODIES = (b"", b"{}", b"[]", b"null", b"0", b'""', b"[{}]", b"{", b"}", b" ")
# Field names llama-server reads on its completion and chat routes: an added one is more likely to reach
# a code path than a made-up name.
KNOWN_FIELDS = (
    "prompt", "messages", "n_predict", "max_tokens", "n_probs", "seed", "temperature", "top_k", "top_p",
    "min_p", "stop", "stream", "logit_bias", "n_keep", "n_discard", "id_slot", "cache_prompt", "return_tokens",
    "samplers", "grammar", "json_schema", "response_format", "tools", "tool_choice", "logprobs",
    "top_logprobs", "n", "n_cmpl", "repeat_penalty", "repeat_last_n", "dry_multiplier", "dry_penalty_last_n",
    "mirostat", "typical_p", "post_sampling_probs", "t_max_predict_ms", "lora", "chat_template_kwargs",
    "reasoning_format", "stream_options", "content", "role", "tokens", "input_extra",
)
JSON_TYPES = ("null", "bool", "int", "float", "string", "list", "object")
_RAW = "\u0000raw:{}\u0000"  # a placeholder string whose JSON text is swapped for raw text after encoding


@dataclass(frozen=True)
class Mutation:
    """One mutated request: ``index`` in the sequence, what was done (``kinds``, ``detail``) and the bytes."""

    index: int
    kinds: tuple[str, ...]
    detail: str
    data: bytes

    def excerpt(self, limit: int = 160) -> str:
        """The body as text (bytes that are not UTF-8 as ``\\xNN``), cut to ``limit`` characters."""
        text = self.data.decode("utf-8", errors="backslashreplace")
        return text if len(text) <= limit else text[:limit] + f"… ({len(self.data)} bytes)"


class Mutator:
    """Mutations of ``body`` (a JSON object), reproducible from ``seed``; see the module documentation."""

    def __init__(self, seed: int, max_string: int = 48, max_depth: int = 32, max_bytes: int = 65536):
        if max_string < 1 or max_depth < 1 or max_bytes < 16:
            raise ValueError("max_string and max_depth must be at least 1, max_bytes at least 16")
        self.seed = seed
        self.rng = random.Random(seed)
        self.max_string = max_string
        self.max_depth = max_depth
        self.max_bytes = max_bytes
        self.count = 0

    def mutations(self, body: dict, count: int):
        """The next ``count`` mutations of ``body`` (which is never changed)."""
        for _ in range(count):
            yield self.mutate(body)

    def mutate(self, body: dict) -> Mutation:
        """The next mutation of ``body``: one or two structural changes, sometimes a change of the bytes after."""
        if not isinstance(body, dict):
            raise TypeError(f"the valid body must be a JSON object (a dict), got {type(body).__name__}")
        index, self.count = self.count, self.count + 1
        value, raws, notes, kinds = copy.deepcopy(body), [], [], []
        duplicate = None
        for _ in range(self.rng.choice((1, 1, 2))):
            kind = self.rng.choice(STRUCTURAL)
            kinds.append(kind)
            if kind == "duplicate":
                duplicate = self._duplicate(value, raws, notes)
            else:
                value = self._structural(kind, value, raws, notes)
        data = self._encode(value, raws, duplicate)
        if self.rng.random() < 0.25:
            kind = self.rng.choice(BYTEWISE)
            kinds.append(kind)
            data = self._bytewise(kind, data, notes)
        if len(data) > self.max_bytes:
            notes.append(f"cut to {self.max_bytes} bytes")
            data = data[:self.max_bytes]
        return Mutation(index, tuple(kinds), "; ".join(notes), data)

    # ----- structural changes ---------------------------------------------------------------------------

    def _structural(self, kind: str, value, raws: list, notes: list):
        places = list(_paths(value))[1:] or [()]  # the body itself only when it is empty ("replace" covers it)
        path = self.rng.choice(places)
        where = _path_text(path)
        if kind == "add":
            target = _get(value, path)
            if not isinstance(target, dict):
                path, target, where = (), value, "body"
            if not isinstance(target, dict):
                notes.append("add: the body is no object, nothing added")
                return value
            name = self.rng.choice(KNOWN_FIELDS) if self.rng.random() < 0.8 else self._string(12)
            target[name] = self._value(self.rng.choice(JSON_TYPES), raws)
            notes.append(f"add {where}.{name}")
            return value
        if kind == "drop":
            if not path:
                notes.append("drop: nothing to drop")
                return value
            parent = _get(value, path[:-1])
            del parent[path[-1]]
            notes.append(f"drop {where}")
            return value
        if kind == "retype":
            current = _type_of(_get(value, path))
            new_type = self.rng.choice([t for t in JSON_TYPES if t != current])
            new = self._value(new_type, raws)
            notes.append(f"retype {where}: {current} → {new_type}")
        elif kind == "extreme":
            number = self.rng.choice(EXTREME_NUMBERS)
            new = _raw(number, raws)
            notes.append(f"extreme {where} = {number}")
        elif kind == "string":
            new = self._string(self.max_string)
            notes.append(f"string {where} = {new!r}"[:120])
        else:  # nest
            depth = self.rng.randint(1, self.max_depth)
            new = _get(value, path)
            for _ in range(depth):
                new = [new] if self.rng.random() < 0.5 else {"a": new}
            notes.append(f"nest {where} {depth} levels deep")
        return _set(value, path, new)

    def _duplicate(self, value, raws: list, notes: list):
        if not isinstance(value, dict) or not value:
            notes.append("duplicate: no top-level key")
            return None
        key = self.rng.choice(list(value))
        again = copy.deepcopy(value[key]) if self.rng.random() < 0.3 else self._value(self.rng.choice(JSON_TYPES), raws)
        notes.append(f"duplicate key {key!r}")
        return key, again

    def _value(self, json_type: str, raws: list, depth: int = 0):
        """A random value of ``json_type``; lists and objects hold up to three values, two levels deep."""
        rng = self.rng
        if json_type == "null":
            return None
        if json_type == "bool":
            return rng.random() < 0.5
        if json_type == "int":
            return rng.choice((0, 1, -1, 2, 7, 255, 397, 4096, rng.randint(-10**6, 10**6)))
        if json_type == "float":
            return _raw(rng.choice(EXTREME_NUMBERS), raws) if rng.random() < 0.3 else rng.uniform(-1e3, 1e3)
        if json_type == "string":
            return self._string(self.max_string)
        scalars = ("null", "bool", "int", "float", "string")
        inner = JSON_TYPES if depth < 1 else scalars
        items = [self._value(rng.choice(inner), raws, depth + 1) for _ in range(rng.randint(0, 3))]
        if json_type == "list":
            return items
        return {self._string(8): item for item in items}

    def _string(self, limit: int) -> str:
        text = "".join(self.rng.choice(STRING_PIECES) for _ in range(self.rng.randint(0, 8)))
        return text[:limit]

    # ----- bytes --------------------------------------------------------------------------------------------

    def _encode(self, value, raws: list, duplicate) -> bytes:
        ascii_only = self.rng.random() < 0.5  # lone surrogates as \ud800 escapes, or as the invalid bytes
        text = json.dumps(value, ensure_ascii=ascii_only)
        if duplicate is not None:
            key, again = duplicate
            extra = f"{json.dumps(key, ensure_ascii=ascii_only)}: {json.dumps(again, ensure_ascii=ascii_only)}"
            text = text[:-1] + (", " if len(text) > 2 else "") + extra + "}"
        for number, raw in enumerate(raws):
            text = text.replace(json.dumps(_RAW.format(number), ensure_ascii=ascii_only), raw)
        return text.encode("utf-8", errors="surrogatepass")

    def _bytewise(self, kind: str, data: bytes, notes: list) -> bytes:
        rng = self.rng
        if kind == "truncate":
            cut = rng.randint(0, max(len(data) - 1, 0))
            notes.append(f"truncate at byte {cut} of {len(data)}")
            return data[:cut]
        if kind == "flip":
            mutable = bytearray(data or b" ")
            places = sorted(rng.randrange(len(mutable)) for _ in range(rng.randint(1, 4)))
            for place in places:
                mutable[place] = rng.randrange(256)
            notes.append(f"flip bytes at {places}")
            return bytes(mutable)
        new = rng.choice(REPLACEMENT_BODIES)
        notes.append(f"replace the body by {new!r}")
        return new


def _raw(text: str, raws: list) -> str:
    raws.append(text)
    return _RAW.format(len(raws) - 1)


def _paths(value, path=()):
    """Every place in ``value``: the root ``()``, then each key or index, depth first."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _get(value, path):
    for step in path:
        value = value[step]
    return value


def _set(value, path, new):
    if not path:
        return new
    _get(value, path[:-1])[path[-1]] = new
    return value


def _path_text(path) -> str:
    return ".".join(map(str, path)) if path else "body"


def _type_of(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"
