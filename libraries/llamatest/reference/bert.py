"""The non-causal BERT graph of `tiny-reranker` (and of any F32 BERT file), in numpy, read from the GGUF file.

Input: token embedding, plus token type 0 (llama.cpp feeds every token as segment A, also the document of a
rerank pair), plus the learned position embedding, then a layer norm. Per layer (post-norm): the query, key
and value projections with their biases, attention over every token of the sequence, the output projection,
residual and layer norm; the feed-forward ``down(gelu(up(x)))`` with biases, residual and layer norm. The last
layer's output is the hidden state pooled into an embedding; a rerank score is the classification head over
the first ([CLS]) vector: ``cls.output(tanh(cls(x)))``.

Keys and values are rounded to `kv_dtype` (f16 by default): with flash attention on (llama-server's ``auto``
picks it on CPU) llama.cpp casts them to f16 even without a KV cache (llama-graph.cpp ``build_attn_mha``: "this
can happen when KV cache is not used (e.g. an embedding model with non-causal attn)").

GELU is the tanh approximation, as llama.cpp's BERT graph uses it. ggml's CPU backend evaluates it from a
table indexed by the input rounded to f16 and holding f16 results; `gelu` does the same roundings, because
without them the reference would sit up to ~1e-3 away from the server for a documented-by-code precision
choice rather than for an error (the tolerance stays for F32 accumulation order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from llamatest.reference.weights import Weights

GELU_COEF_A = 0.044715
SQRT_2_OVER_PI = 0.79788456080286535587989211986876


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, eps: float) -> np.ndarray:
    centred = x - x.mean(axis=-1, keepdims=True)
    out = centred / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True) + eps) * weight
    return out if bias is None else out + bias


def gelu(x: np.ndarray) -> np.ndarray:
    """tanh-approximated GELU through f16, as ggml's CPU table (inputs beyond ±10 pass through or give 0)."""
    x16 = x.astype(np.float16).astype(np.float64)
    y = 0.5 * x16 * (1.0 + np.tanh(SQRT_2_OVER_PI * x16 * (1.0 + GELU_COEF_A * x16 * x16)))
    y = y.astype(np.float16).astype(np.float64)
    return np.where(x <= -10.0, 0.0, np.where(x >= 10.0, x, y))


def full_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, kv_dtype) -> np.ndarray:
    """Attention of every position over every position, heads first (heads, tokens, head_dim); keys and values
    rounded to `kv_dtype` first. Returns (tokens, heads * head_dim)."""
    k, v = (kv.astype(kv_dtype).astype(np.float64) for kv in (k, v))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ v).transpose(1, 0, 2).reshape(q.shape[1], -1)


class Bert:
    """The forward pass of one BERT GGUF file."""

    def __init__(self, weights: Weights, kv_dtype=np.float16):
        if weights.arch != "bert":
            raise ValueError(f"{weights.path}: architecture {weights.arch!r}, not bert")
        self.w = weights
        self.n_layer = weights.meta("block_count")
        self.n_head = weights.meta("attention.head_count")
        self.head_dim = weights.meta("embedding_length") // self.n_head
        self.eps = weights.meta("attention.layer_norm_epsilon")
        self.kv_dtype = kv_dtype

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        bias = self.w.get(f"{name}.bias")
        out = x @ self.w[f"{name}.weight"].T
        return out if bias is None else out + bias

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        return layer_norm(x, self.w[f"{name}.weight"], self.w.get(f"{name}.bias"), self.eps)

    def _attention(self, x: np.ndarray, block: str) -> np.ndarray:
        n = len(x)

        def heads(name: str) -> np.ndarray:
            return self._linear(x, f"{block}.{name}").reshape(n, self.n_head, self.head_dim).transpose(1, 0, 2)

        out = full_attention(heads("attn_q"), heads("attn_k"), heads("attn_v"), self.kv_dtype)
        return self._linear(out, f"{block}.attn_output")

    def hidden(self, tokens: Sequence[int]) -> np.ndarray:
        """The last layer's output: one row per token."""
        x = self.w["token_embd.weight"][np.asarray(tokens, dtype=np.int64)]
        types = self.w.get("token_types.weight")
        if types is not None:
            x = x + types[0]
        x = self._norm(x + self.w["position_embd.weight"][: len(tokens)], "token_embd_norm")
        for layer in range(self.n_layer):
            block = f"blk.{layer}"
            x = self._norm(x + self._attention(x, block), f"{block}.attn_output_norm")
            ffn = self._linear(gelu(self._linear(x, f"{block}.ffn_up")), f"{block}.ffn_down")
            x = self._norm(x + ffn, f"{block}.layer_output_norm")
        return x

    def rank_score(self, tokens: Sequence[int]) -> float:
        """The classification head's score of the [CLS] vector (``tokens`` is the whole rerank pair)."""
        first = self.hidden(tokens)[0]
        if self.w.get("cls.weight") is not None:
            first = np.tanh(self._linear(first, "cls"))
        return float(self._linear(first, "cls.output")[0])
