"""Unicode checks on what llama-server sends: token texts against their bytes, lone surrogates.

A model with byte-fallback tokens can emit half of a multi-byte character. The server must never put
invalid UTF-8 on the wire, and the text it reports for a token must be what its bytes decode to.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from typing import Any

PROBABILITY_LISTS = ("completion_probabilities", "top_logprobs", "top_probs")


def complete_text(data: bytes) -> str:
    """The text of ``data`` as a streaming decoder gives it: invalid bytes become U+FFFD, and an
    incomplete character at the end (it may still be completed by the next token) is left out."""
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


def is_valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def probability_entries(doc: Any) -> Iterator[dict]:
    """Every ``{token, bytes}`` entry of ``completion_probabilities`` and their ``top_*`` lists, anywhere in ``doc``."""
    if isinstance(doc, list):
        for item in doc:
            yield from probability_entries(item)
    elif isinstance(doc, dict):
        if isinstance(doc.get("token"), str) and isinstance(doc.get("bytes"), list):
            yield doc
        for key in PROBABILITY_LISTS:
            yield from probability_entries(doc.get(key))
        for key, value in doc.items():
            if key not in PROBABILITY_LISTS and isinstance(value, (dict, list)):
                yield from probability_entries(value)


def token_text_mismatches(doc: Any, only_valid: bool = False) -> list[str]:
    """One line per entry whose ``token`` is not what its ``bytes`` decode to (see `complete_text`).

    With ``only_valid``, entries whose bytes are not complete, valid UTF-8 are skipped.
    """
    found = []
    for entry in probability_entries(doc):
        if only_valid and not is_valid_utf8(bytes(entry["bytes"])):
            continue
        expected = complete_text(bytes(entry["bytes"]))
        if entry["token"] != expected:
            found.append(f"token id {entry.get('id')}: token {entry['token']!r}, but bytes {entry['bytes']} "
                         f"decode to {expected!r}")
    return found


def token_bytes_text(entries: list[dict]) -> str:
    """The ``bytes`` of every entry joined and decoded as UTF-8; invalid UTF-8 fails (``UnicodeDecodeError``)."""
    return b"".join(bytes(entry["bytes"]) for entry in entries).decode()


def lone_surrogates(doc: Any, path: str = "") -> list[str]:
    """Paths of the strings in ``doc`` (keys included) that hold a lone UTF-16 surrogate (``\\ud83d`` alone)."""
    found = []
    if isinstance(doc, str):
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in doc):
            found.append(path or "the root")
    elif isinstance(doc, list):
        for index, item in enumerate(doc):
            found += lone_surrogates(item, f"{path}.{index}".lstrip("."))
    elif isinstance(doc, dict):
        for key, value in doc.items():
            found += lone_surrogates(key, f"{path}.<key {key!r}>".lstrip("."))
            found += lone_surrogates(value, f"{path}.{key}".lstrip("."))
    return found
