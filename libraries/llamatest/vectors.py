"""Vector arithmetic of the embedding checks (norms, differences, cosine, base64 floats), with numpy."""

from __future__ import annotations

import base64

import numpy


def norm(vector: list[float], p: float | str) -> float:
    """The ``p``-norm of ``vector`` (``p`` = 1, 2, 3, …), or its largest absolute element when ``p`` is ``max``."""
    order = numpy.inf if str(p) == "max" else float(p)
    return float(numpy.linalg.norm(numpy.asarray(vector, dtype=float), ord=order))


def largest_difference(actual: list[float], expected: list[float]) -> float:
    """The largest absolute difference between elements of two vectors of the same length; fails on lengths that
    differ."""
    if len(actual) != len(expected):
        raise AssertionError(f"the vectors have {len(actual)} and {len(expected)} elements")
    if not len(actual):
        return 0.0
    return float(numpy.max(numpy.abs(numpy.subtract(actual, expected))))


def unit(vector: list[float]) -> list[float]:
    """``vector`` divided by its Euclidean norm."""
    return (numpy.asarray(vector, dtype=float) / norm(vector, 2)).tolist()


def mean(vectors: list[list[float]]) -> list[float]:
    """The element-wise mean of ``vectors``."""
    return numpy.mean(numpy.asarray(vectors, dtype=float), axis=0).tolist()


def cosine_similarity(a: list[float], b: list[float]) -> float:
    """The cosine of the angle between ``a`` and ``b`` (1: the same direction)."""
    return float(numpy.dot(a, b)) / (norm(a, 2) * norm(b, 2))


def floats_from_base64(text: str) -> list[float]:
    """The little-endian float32 values that base64 ``text`` holds (``encoding_format: base64``)."""
    return numpy.frombuffer(base64.b64decode(text, validate=True), dtype="<f4").tolist()
