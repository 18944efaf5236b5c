"""Keywords of vector arithmetic for the embedding checks; the arithmetic is llamatest.vectors (numpy)."""

from __future__ import annotations

from robot.api.deco import keyword, library

from llamatest import vectors as vector_math


@library(scope="GLOBAL", auto_keywords=False)
class VectorLibrary:
    """Norms, differences, directions and means of embedding vectors, and the floats of base64 embeddings.

    A vector is a list of numbers (an `embedding` of a response)."""

    @keyword("Vector Norm")
    def vector_norm(self, vector: list, p: str) -> float:
        """The ``p``-norm of ``vector`` (``p`` = 1, 2, 3, …), or its largest absolute element when ``p`` is
        ``max``."""
        return vector_math.norm(vector, p)

    @keyword("Largest Difference")
    def largest_difference(self, actual: list, expected: list) -> float:
        """The largest absolute difference between the elements of two vectors; fails when their lengths differ."""
        return vector_math.largest_difference(actual, expected)

    @keyword("Unit Vector")
    def unit_vector(self, vector: list) -> list:
        """``vector`` divided by its Euclidean norm."""
        return vector_math.unit(vector)

    @keyword("Mean Vector")
    def mean_vector(self, vectors: list) -> list:
        """The element-wise mean of the vectors."""
        return vector_math.mean(vectors)

    @keyword("Cosine Similarity")
    def cosine_similarity(self, a: list, b: list) -> float:
        """The cosine of the angle between vectors ``a`` and ``b`` (1 = same direction)."""
        return vector_math.cosine_similarity(a, b)

    @keyword("Floats From Base64")
    def floats_from_base64(self, text: str) -> list:
        """The little-endian float32 values that base64 ``text`` holds (``encoding_format: base64``), as floats."""
        return vector_math.floats_from_base64(text)
