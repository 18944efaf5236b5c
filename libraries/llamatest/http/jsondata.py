"""Plain accessors over lists of JSON objects (or of result objects), so suites need no Python comprehensions."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from llamatest.http.jsonpath import lookup


class _Fail:
    """Default of ``missing``: a path that does not resolve fails."""

    def __repr__(self) -> str:
        return "fail"


_FAIL = _Fail()


def value_at(item: Any, path: str, missing: Any = _FAIL) -> Any:
    """The value at dotted ``path`` of a JSON value or of an object's attributes (``data.0.id``).

    With ``missing`` given, a missing key or a ``null`` on the way gives ``missing``; without it, a JSON
    path that does not resolve fails with lookup's message.
    """
    if missing is _FAIL and isinstance(item, (dict, list)):
        return lookup(item, path)
    value = item
    for segment in path.split(".") if path else []:
        if value is None:
            return missing if missing is not _FAIL else _fail(path, segment)
        if isinstance(value, Mapping):
            value = value[segment] if missing is _FAIL or segment in value else None
        elif isinstance(value, list):
            value = value[int(segment)]
        else:
            value = getattr(value, segment) if missing is _FAIL else getattr(value, segment, None)
    return missing if value is None and missing is not _FAIL else value


def values_of_each(items: list, path: str, missing: Any = _FAIL) -> list:
    """``value_at(item, path)`` of every item, in order."""
    return [value_at(item, path, missing) for item in items]


def fields_of_each(items: list, *paths: str) -> list[dict]:
    """For every item, a dict of its values at ``paths`` keyed by path (``id``, ``scale``), in order."""
    return [{path: value_at(item, path) for path in paths} for item in items]


def items_having(items: list, key: str) -> list:
    """The JSON objects of ``items`` that have the key ``key``, in order."""
    return [item for item in items if key in item]


def items_where(items: list, path: str, value: Any) -> list:
    """The items whose value at ``path`` equals ``value``, in order."""
    return [item for item in items if value_at(item, path) == value]


def in_index_order(results: list, field: str) -> list:
    """The ``field`` of results that carry an ``index`` (rerank, embeddings), ordered by that index."""
    return [result[field] for result in sorted(results, key=lambda result: result["index"])]


def lower_case_names(headers: Mapping) -> dict:
    """The headers with their names in lower case (HTTP names are case-insensitive)."""
    return {name.lower(): value for name, value in headers.items()}


def totals_of_each(items: list, list_key: str, field: str) -> list:
    """For every item, the sum of ``field`` over the objects in its list ``list_key``."""
    return [sum(entry[field] for entry in item[list_key]) for item in items]


def lengths_of_each(items: list, path: str = "") -> list[int]:
    """``len`` of the value at ``path`` of every item (``""``: of the item itself), in order."""
    return [len(value) for value in values_of_each(items, path)]


def starting_with(values: list, prefix: str) -> list[str]:
    """The strings of ``values`` that start with ``prefix``, in order; a value that is not a string fails."""
    strings = []
    for value in values:
        if not isinstance(value, str):
            raise AssertionError(f"{value!r} is not a string, so it cannot start with {prefix!r}")
        if value.startswith(prefix):
            strings.append(value)
    return strings


def first_value_of_each(objects: list) -> list:
    """The first value of every JSON object of ``objects`` (``{"URL": {...}}`` gives ``{...}``), in order."""
    return [_first_value(obj) for obj in objects]


def _first_value(obj: Mapping) -> Any:
    for value in obj.values():
        return value
    raise AssertionError("an empty object has no first value")


def _fail(path: str, segment: str) -> None:
    raise AssertionError(f"path '{path}': null before '{segment}'")


# ---- checks and small computations the suites name instead of writing them inline ----------------------


def text_before(text: str, stop: str) -> str:
    """The part of ``text`` before the first ``stop``; fails when ``text`` does not contain it."""
    if stop not in text:
        raise AssertionError(f"{text!r} does not contain {stop!r}")
    return text.split(stop, 1)[0]


def keys_should_be(obj: Mapping, *keys: str) -> None:
    """``obj`` has exactly ``keys``, in any order."""
    if not isinstance(obj, Mapping):
        raise AssertionError(f"{obj!r} is not a JSON object")
    missing, extra = sorted(set(keys) - set(obj)), sorted(set(obj) - set(keys))
    if missing or extra:
        raise AssertionError(f"keys {sorted(obj)}, expected {sorted(keys)}: missing {missing}, unexpected {extra}")


def should_count_from_zero(values: list, count: int | None = None) -> None:
    """``values`` are 0, 1, 2, … in order: ``count`` of them (default: as many as there are)."""
    expected = list(range(len(values) if count is None else int(count)))
    if list(values) != expected:
        raise AssertionError(f"{list(values)} do not count 0, 1, … {expected[-1] if expected else ''}: expected "
                             f"{expected}")


def should_be_sorted(values: list, descending: bool = False, strictly: bool = False) -> None:
    """``values`` are in order: rising (``descending``: falling), each step strict if ``strictly``."""
    for index, (before, after) in enumerate(zip(values, values[1:], strict=False), 1):
        ahead = before < after if not descending else before > after
        if not ahead and (strictly or before != after):
            order = ("strictly " if strictly else "") + ("falling" if descending else "rising")
            raise AssertionError(f"values are not {order} at position {index}: {before!r} then {after!r} in "
                                 f"{list(values)}")


def distinct_values(values: list) -> list:
    """The values of ``values`` without repeats, in the order they first appear."""
    distinct: list = []
    for value in values:
        if value not in distinct:
            distinct.append(value)
    return distinct


def common_prefix_length(first: list, second: list) -> int:
    """How many leading items ``first`` and ``second`` share (token ids of two prompts, say)."""
    return len(os.path.commonprefix([list(first), list(second)]))


def every_value_should_be(values: list, expected: Any) -> None:
    """Every value of ``values`` equals ``expected`` (an empty list passes)."""
    others = [(index, value) for index, value in enumerate(values) if value != expected]
    if others:
        index, value = others[0]
        raise AssertionError(f"{len(others)} of {len(values)} values are not {expected!r}; the first, at position "
                             f"{index}, is {value!r}")


def parsed(text: str) -> Any:
    """The value of the JSON ``text``; fails, quoting the text, when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError as error:
        raise AssertionError(f"not JSON ({error}): {text!r}") from None
