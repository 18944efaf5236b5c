"""Pooling, normalisation and log-probabilities, as the server's contract describes them.

`pool`: llama.cpp's pooling types (``--pooling``): ``mean`` averages the token vectors, ``cls`` takes the
first, ``last`` the last, ``none`` keeps them all. `normalise`: the request's ``embd_normalize`` (server
README: -1 none, 0 max absolute scaled to the int16 range, 1 taxicab, 2 Euclidean, >2 p-norm).
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax

INT16_RANGE = 32760.0  # common_embd_normalize: "make an int16 range"


def pool(hidden: np.ndarray, pooling: str) -> np.ndarray:
    """The pooled vector of `hidden` (tokens x width), or all rows for ``none``."""
    poolers = {"mean": lambda h: h.mean(axis=0), "cls": lambda h: h[0], "last": lambda h: h[-1], "none": lambda h: h}
    if pooling not in poolers:
        raise ValueError(f"unknown pooling {pooling!r}: one of {', '.join(poolers)}")
    return poolers[pooling](hidden)


def normalise(vector: np.ndarray, embd_normalize: int) -> np.ndarray:
    """`vector` scaled as the request's ``embd_normalize`` asks."""
    p = int(embd_normalize)
    if p < 0:
        return vector
    if p == 0:
        norm = np.max(np.abs(vector)) / INT16_RANGE
    else:
        norm = np.linalg.norm(vector, ord=p)
    return vector / norm if norm > 0 else np.zeros_like(vector)


def log_probs(logits: np.ndarray) -> np.ndarray:
    """Natural-log probabilities of each row of `logits` (the server's ``logprob``: softmax of the raw logits)."""
    return log_softmax(np.asarray(logits, dtype=np.float64), axis=-1)
