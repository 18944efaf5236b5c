"""How far the server may be from the reference, and why.

The reference computes in float64 from the file's F32 weights, rounding only where the server's contract or
its documented defaults round (keys and values in the f16 KV cache, `llama.py`; GELU through ggml's f16
table, `bert.py`). What is left is the server's own float32 arithmetic: sums accumulated in another order,
SIMD partial sums, an f16 copy of the queries in the CPU flash-attention kernel, and its f16 accumulator of
the attention output when the cache is f16. Each tolerance below covers that, with a margin over the largest
difference measured on the pinned build (docs/reference.md gives the figures), and stays far below what a
real fault moves: a scale of 1 % of a 5-unit logit is 0.05, a value rounded to 3 decimals moves by up to 5e-4.

A tolerance is absolute for log-probabilities and rerank scores (values of order 1 to 10), and absolute
per element for a Euclidean-normalised embedding; unnormalised and max-abs (int16-range) vectors are
compared relative to their largest element.
"""

from __future__ import annotations

# log-probability of a token, in nats
LOGPROB = 2e-3
# rerank score (the classification head's raw output)
RERANK = 1e-4
# an embedding's element, relative to the vector's largest absolute element
EMBEDDING = 1e-4

REASONS = {
    "logprob": "float32 sums in another order and the f16 flash-attention accumulator of the server",
    "rerank": "float32 sums in another order (BERT: no KV cache, GELU matched through f16)",
    "embedding": "float32 sums in another order (relative to the vector's largest element)",
}
