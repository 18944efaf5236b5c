"""The causal llama graph of `tiny` and its variants, in numpy, read from the GGUF file.

Per layer: RMSNorm, the query, key and value projections, RoPE on queries and keys (llama's "normal" mode:
adjacent pairs rotate, by ``position * base ** (-2i / n_rot)``), grouped-query attention (query head ``h``
reads key/value head ``h // (n_head / n_head_kv)``) over every earlier cell of the KV cache, the output
projection and residual, RMSNorm, SwiGLU (``down(silu(gate(x)) * up(x))``) and residual; then the output
RMSNorm (the hidden state a pooled embedding is made of) and the output head (the logits).

The KV cache is explicit, because what the server computes depends on it: after a context shift the kept
cells were computed while the discarded ones were still there, and only their positions moved (`KvCache.shift`).
The cache holds keys and values rounded to `kv_dtype`: llama-server's documented default cache type is f16
(``--cache-type-k``/``--cache-type-v``, "default: f16"), so a reference in full precision would differ by the
server's own, documented rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from llamatest.reference.weights import Weights

LORA_TARGETS = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")


@dataclass
class KvCache:
    """Per layer, the keys (after RoPE) and values of every cell, head-major: (n_head_kv, n_cells, head_dim)."""

    keys: list
    values: list
    positions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def next_position(self) -> int:
        return int(self.positions[-1]) + 1 if len(self.positions) else 0

    def truncate(self, n_cells: int) -> None:
        """Keeps the first `n_cells` cells (the server removes the cells a new prompt does not reuse)."""
        self.keys = [keys[:, :n_cells] for keys in self.keys]
        self.values = [values[:, :n_cells] for values in self.values]
        self.positions = self.positions[:n_cells]


@dataclass(frozen=True)
class Outputs:
    """What one forward pass gives, one row per token fed: ``hidden`` after the output norm, and ``logits``."""

    hidden: np.ndarray
    logits: np.ndarray


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


def rope(x: np.ndarray, positions: np.ndarray, n_rot: int, base: float) -> np.ndarray:
    """RoPE "normal" mode on (heads, tokens, head_dim): pairs (2i, 2i+1) of the first `n_rot` dimensions."""
    freqs = base ** (-np.arange(0, n_rot, 2, dtype=np.float64) / n_rot)
    angles = np.asarray(positions, dtype=np.float64)[:, None] * freqs[None, :]  # (tokens, n_rot / 2)
    cos, sin = np.cos(angles), np.sin(angles)
    out = x.copy()
    even, odd = x[..., 0:n_rot:2], x[..., 1:n_rot:2]
    out[..., 0:n_rot:2] = even * cos - odd * sin
    out[..., 1:n_rot:2] = even * sin + odd * cos
    return out


class Llama:
    """The forward pass of one llama GGUF file, with LoRA adapters (file weights and scale) merged in."""

    def __init__(self, weights: Weights, loras: Sequence[tuple[Weights, float]] = (), kv_dtype=np.float16):
        if weights.arch != "llama":
            raise ValueError(f"{weights.path}: architecture {weights.arch!r}, not llama")
        self.w = weights
        self.n_layer = weights.meta("block_count")
        self.n_head = weights.meta("attention.head_count")
        self.n_head_kv = weights.meta("attention.head_count_kv", self.n_head)
        self.head_dim = weights.meta("embedding_length") // self.n_head
        self.n_rot = weights.meta("rope.dimension_count", self.head_dim)
        self.rope_base = weights.meta("rope.freq_base", 10000.0)
        self.eps = weights.meta("attention.layer_norm_rms_epsilon")
        self.kv_dtype = kv_dtype
        self.layers = [self._layer(i, loras) for i in range(self.n_layer)]

    def _layer(self, i: int, loras: Sequence[tuple[Weights, float]]) -> dict:
        """The weights of layer `i`, each adapter's ``scale * alpha / rank * B @ A`` added to its targets."""
        layer = {}
        for name in ("attn_norm", "ffn_norm", *LORA_TARGETS):
            weight = self.w[f"blk.{i}.{name}.weight"]
            for adapter, scale in loras:
                a, b = adapter.get(f"blk.{i}.{name}.weight.lora_a"), adapter.get(f"blk.{i}.{name}.weight.lora_b")
                if a is not None and b is not None:
                    alpha = adapter.fields.get("adapter.lora.alpha") or a.shape[0]
                    weight = weight + float(scale) * alpha / a.shape[0] * (b @ a)
            layer[name] = weight
        return layer

    def empty_cache(self) -> KvCache:
        shape = (self.n_head_kv, 0, self.head_dim)
        return KvCache([np.zeros(shape)] * self.n_layer, [np.zeros(shape)] * self.n_layer)

    def _round(self, x: np.ndarray) -> np.ndarray:
        return x.astype(self.kv_dtype).astype(np.float64)

    def _attention(self, layer: dict, x: np.ndarray, cache: KvCache, index: int, positions: np.ndarray) -> np.ndarray:
        n = len(x)
        q = (x @ layer["attn_q"].T).reshape(n, self.n_head, self.head_dim).transpose(1, 0, 2)
        k = (x @ layer["attn_k"].T).reshape(n, self.n_head_kv, self.head_dim).transpose(1, 0, 2)
        v = (x @ layer["attn_v"].T).reshape(n, self.n_head_kv, self.head_dim).transpose(1, 0, 2)
        q, k = rope(q, positions, self.n_rot, self.rope_base), rope(k, positions, self.n_rot, self.rope_base)
        cache.keys[index] = np.concatenate([cache.keys[index], self._round(k)], axis=1)
        cache.values[index] = np.concatenate([cache.values[index], self._round(v)], axis=1)
        group = self.n_head // self.n_head_kv
        keys, values = np.repeat(cache.keys[index], group, axis=0), np.repeat(cache.values[index], group, axis=0)
        scores = q @ keys.transpose(0, 2, 1) / np.sqrt(self.head_dim)  # (heads, new tokens, cells)
        all_positions = np.concatenate([cache.positions, positions])
        scores = np.where(all_positions[None, None, :] <= positions[None, :, None], scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        out = (weights @ values).transpose(1, 0, 2).reshape(n, self.n_head * self.head_dim)
        return out @ layer["attn_output"].T

    def feed(self, cache: KvCache, tokens: Sequence[int]) -> Outputs:
        """Feeds `tokens` after what `cache` holds (at the next positions) and adds them to it."""
        return self.feed_vectors(cache, self.w["token_embd.weight"][np.asarray(tokens, dtype=np.int64)])

    def feed_vectors(self, cache: KvCache, x: np.ndarray) -> Outputs:
        """Feeds input embeddings (one row per position: an image's, from a projector) as `feed` feeds tokens."""
        positions = np.arange(len(x)) + cache.next_position
        for index, layer in enumerate(self.layers):
            x = x + self._attention(layer, rms_norm(x, layer["attn_norm"], self.eps), cache, index, positions)
            h = rms_norm(x, layer["ffn_norm"], self.eps)
            x = x + (silu(h @ layer["ffn_gate"].T) * (h @ layer["ffn_up"].T)) @ layer["ffn_down"].T
        cache.positions = np.concatenate([cache.positions, positions])
        hidden = rms_norm(x, self.w["output_norm.weight"], self.eps)
        output = self.w.get("output.weight")
        return Outputs(hidden, hidden @ (self.w["token_embd.weight"] if output is None else output).T)

    def run(self, tokens: Sequence[int]) -> Outputs:
        """The outputs of `tokens` from an empty cache."""
        return self.feed(self.empty_cache(), tokens)

    def greedy(self, tokens: Sequence[int], n_predict: int, cache: KvCache | None = None) -> list[int]:
        """The argmax chain: `n_predict` tokens, each the most likely after the prompt and the ones before it."""
        cache = self.empty_cache() if cache is None else cache
        logits = self.feed(cache, tokens).logits[-1]
        chain = []
        for _ in range(n_predict):
            chain.append(int(np.argmax(logits)))
            logits = self.feed(cache, chain[-1:]).logits[-1]
        return chain

    def shift(self, cache: KvCache, n_keep: int, n_discard: int) -> None:
        """A context shift: cells ``n_keep .. n_keep + n_discard`` leave, and the later ones move back by
        `n_discard` positions (their keys rotated by ``-n_discard``, and rounded to the cache type again)."""
        keep = np.r_[0:n_keep, n_keep + n_discard:len(cache.positions)]
        moved = keep >= n_keep
        delta = np.where(moved, -n_discard, 0)
        for index in range(self.n_layer):
            keys = cache.keys[index][:, keep]
            rotated = rope(keys, delta, self.n_rot, self.rope_base)
            cache.keys[index] = self._round(rotated)
            cache.values[index] = cache.values[index][:, keep]
        cache.positions = cache.positions[keep] + delta
