"""Dotted JSON paths (``data.0.meta.n_ctx_train``) and JSON type names, with one-line failure messages."""

from __future__ import annotations

from typing import Any

from llamatest.textutil import short_repr

TYPES = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, float),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def lookup(doc: Any, path: str) -> Any:
    """The value at ``path``; ``""`` is the whole document. List indices are numbers."""
    value = doc
    done: list[str] = []
    for segment in path.split(".") if path else []:
        here = ".".join(done) or "the root"
        if isinstance(value, dict):
            if segment not in value:
                raise AssertionError(f"JSON path '{path}': no key '{segment}' at {here}; keys there: {names(value)}")
            value = value[segment]
        elif isinstance(value, list):
            try:
                value = value[int(segment)]
            except ValueError:
                raise AssertionError(f"JSON path '{path}': {here} is a list, '{segment}' is not an index") from None
            except IndexError:
                raise AssertionError(f"JSON path '{path}': no index {segment} at {here} "
                                     f"(list of {len(value)} items)") from None
        else:
            raise AssertionError(f"JSON path '{path}': no '{segment}' at {here}, "
                                 f"which is {json_type(value)} ({short_repr(value)})")
        done.append(segment)
    return value


def json_type(value: Any) -> str:
    for name in ("null", "bool", "int", "float", "str", "list", "dict"):
        if TYPES[name](value):
            return name
    return type(value).__name__


def names(obj: dict) -> str:
    return ", ".join(repr(k) for k in obj) or "no keys"
