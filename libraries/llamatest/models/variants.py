"""Models derived from `tiny`: a draft model for speculative decoding and a LoRA adapter.

- ``tiny-draft``: `tiny` without its last layer. Same vocabulary, same special tokens, same seed,
  so its embeddings, output matrix and first layer are byte-identical to `tiny`'s: llama-server
  accepts it as a draft (the vocabularies must match) and its guesses agree with the target
  often, but not always.
- ``tiny-lora``: a LoRA adapter for `tiny` (``general.type = adapter``, ``adapter.type = lora``)
  with rank-4 ``lora_a``/``lora_b`` pairs on the query, value, gate and up projections of every
  layer. It never writes to the embedding dimension that carries `tiny`'s per-token logit bias
  (see `llamatest.models.tiny`), so the adapted model still emits printable text and never EOS,
  and scale 0 is exactly the base model.

Both are cached under a hash of this file and of the tiny generator, like `tiny`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from contextlib import closing
from pathlib import Path

import gguf
import numpy as np

from llamatest.models.tiny import FLAVOURS, TinySpec, generator_hash, write_tiny

DRAFT_SPEC = dataclasses.replace(FLAVOURS["tiny"], n_layer=FLAVOURS["tiny"].n_layer - 1)

LORA_BASE = FLAVOURS["tiny"]
LORA_RANK = 4
LORA_ALPHA = 8.0  # the delta is scale * alpha / rank * (B @ A): a scale of 1 doubles B @ A
LORA_SEED = 4321
LORA_TARGETS = ("attn_q", "attn_v", "ffn_gate", "ffn_up")


def variants_hash() -> str:
    """Hash of this file and the tiny generator: a change to either regenerates the variants."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(generator_hash().encode())
    return digest.hexdigest()[:16]


def target_shape(spec: TinySpec, target: str) -> tuple[int, int]:
    """(out, in) of one projection weight of `spec`, as numpy holds it."""
    head_dim = spec.n_embd // spec.n_head
    return {
        "attn_q": (spec.n_embd, spec.n_embd),
        "attn_v": (spec.n_head_kv * head_dim, spec.n_embd),
        "ffn_gate": (spec.n_ff, spec.n_embd),
        "ffn_up": (spec.n_ff, spec.n_embd),
    }[target]


def lora_tensors(spec: TinySpec = LORA_BASE, rank: int = LORA_RANK, seed: int = LORA_SEED) -> dict[str, np.ndarray]:
    """Random LoRA pairs; numpy shapes are lora_a (rank, in) and lora_b (out, rank).

    llama.cpp checks ``lora_a.ne[0] == W.ne[0]`` (the input size), ``lora_b.ne[1] == W.ne[1]``
    (the output size) and ``lora_a.ne[1] == lora_b.ne[0]`` (the rank); ggml's ``ne`` is the numpy
    shape reversed.
    """
    rng = np.random.default_rng(seed)
    tensors = {}
    for layer in range(spec.n_layer):
        for target in LORA_TARGETS:
            n_out, n_in = target_shape(spec, target)
            name = f"blk.{layer}.{target}.weight"
            tensors[f"{name}.lora_a"] = (rng.standard_normal((rank, n_in)) / np.sqrt(n_in)).astype(np.float32)
            tensors[f"{name}.lora_b"] = (rng.standard_normal((n_out, rank)) / np.sqrt(rank)).astype(np.float32)
    return tensors


def write_lora(path: Path, name: str, spec: TinySpec = LORA_BASE) -> None:
    """Write the LoRA adapter GGUF for `spec` to `path` (atomically)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # parallel runs may race
    with closing(gguf.GGUFWriter(str(tmp), "llama")) as writer:  # closed even when a step fails
        writer.add_type(gguf.GGUFType.ADAPTER)
        writer.add_name(name)
        writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
        writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, LORA_ALPHA)
        for tensor_name, array in lora_tensors(spec).items():
            writer.add_tensor(tensor_name, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    tmp.replace(path)


def _cached(name: str, cache_dir: Path, write) -> Path:
    path = cache_dir / f"{name}-{variants_hash()}.gguf"
    if not path.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        write(path)
    return path


def draft_model_path(cache_dir: Path) -> Path:
    """Path of ``tiny-draft``, generating it on first use."""
    return _cached("tiny-draft", cache_dir, lambda path: write_tiny(DRAFT_SPEC, path, "tiny-draft"))


def lora_adapter_path(cache_dir: Path) -> Path:
    """Path of ``tiny-lora`` (an adapter for ``tiny``, not a model), generating it on first use."""
    return _cached("tiny-lora", cache_dir, lambda path: write_lora(path, "tiny-lora"))
