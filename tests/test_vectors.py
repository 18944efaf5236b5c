import base64
import math

import numpy
import pytest

from llamatest import vectors


@pytest.mark.parametrize("p, expected", [(1, 7.0), (2, 5.0), ("2", 5.0), ("max", 4.0)])
def test_norm_of_each_order(p, expected):
    assert vectors.norm([3, -4], p) == pytest.approx(expected)


def test_largest_difference_and_lengths_that_differ():
    assert vectors.largest_difference([1.0, 2.0], [1.5, 1.0]) == pytest.approx(1.0)
    assert vectors.largest_difference([], []) == 0.0
    with pytest.raises(AssertionError, match="2 and 1 elements"):
        vectors.largest_difference([1, 2], [1])


def test_unit_mean_and_cosine():
    assert vectors.unit([3, 4]) == pytest.approx([0.6, 0.8])
    assert vectors.mean([[1, 2], [3, 4]]) == pytest.approx([2, 3])
    assert vectors.cosine_similarity([1, 0], [1, 1]) == pytest.approx(1 / math.sqrt(2))


def test_floats_from_base64_reads_little_endian_float32():
    text = base64.b64encode(numpy.asarray([0.5, -2.0], dtype="<f4").tobytes()).decode()
    assert vectors.floats_from_base64(text) == [0.5, -2.0]
