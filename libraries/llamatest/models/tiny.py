"""Generator of the `tiny` llama-architecture GGUF models.

The weights are random (fixed seed), so the text is gibberish, but everything the
server's contract depends on is real: a SentencePiece-style vocabulary with byte
fallback, BOS/EOS, FIM prefix/suffix/middle tokens, a ChatML chat template and a
llama graph with grouped-query attention.

Output control without a bias tensor: embedding dimension 0 holds a constant that
no layer writes to (row 0 of every output projection is zero), so after the final
RMS norm it is a large positive number and column 0 of `output.weight` acts as a
per-token logit bias. It keeps the `readable` flavour in printable text and makes
the `raw` flavour favour lone UTF-8 lead/continuation bytes.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import gguf
import numpy as np

# Token types of the GGUF vocabulary (llama.cpp's llama_token_type).
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6

SPECIALS = ["<unk>", "<s>", "</s>"]
CONTROL_TOKENS = ["<|im_start|>", "<|im_end|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"]
WORDS = ["the", "and", "hello", "world", "llama", "test", "server", "token", "is", "of"]
SPACE = "\u2581"  # SentencePiece's word-boundary marker

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

BIAS_DIM_VALUE = 4.0  # the constant in embedding dimension 0
BANNED_BIAS = -40.0  # column-0 weight of tokens a flavour never emits
RAW_BYTE_BIAS = 1.5  # column-0 weight that makes high bytes frequent in `raw`


@dataclass(frozen=True)
class TinySpec:
    """Shape and behaviour of one tiny model; variants derive from it."""

    flavour: str = "readable"  # "readable" or "raw"
    seed: int = 1234
    n_embd: int = 64
    n_head: int = 4
    n_head_kv: int = 2
    n_ff: int = 128
    n_layer: int = 2
    n_ctx_train: int = 4096


FLAVOURS = {
    "tiny": TinySpec(),
    "tiny-raw": TinySpec(flavour="raw"),
}


def build_vocab() -> tuple[list[str], list[float], list[int]]:
    """Return (pieces, scores, types); ids are list positions."""
    pieces = list(SPECIALS)
    types = [UNKNOWN, CONTROL, CONTROL]
    pieces += [f"<0x{b:02X}>" for b in range(256)]
    types += [BYTE] * 256
    pieces += CONTROL_TOKENS
    types += [CONTROL] * len(CONTROL_TOKENS)
    normal = [SPACE] + [chr(c) for c in range(0x21, 0x7F)]
    for word in WORDS:
        normal += [SPACE + word[:k] for k in range(1, len(word) + 1)]
    normal = list(dict.fromkeys(normal))
    pieces += normal
    types += [NORMAL] * len(normal)
    # SentencePiece merges the adjacent pair whose result scores highest: longer wins.
    scores = [float(len(p)) if t == NORMAL else 0.0 for p, t in zip(pieces, types, strict=True)]
    return pieces, scores, types


def token_bias(spec: TinySpec, pieces: list[str], types: list[int]) -> np.ndarray:
    """Per-token logit bias (column 0 of output.weight) for the flavour."""
    bias = np.zeros(len(pieces), dtype=np.float32)
    for i, (piece, kind) in enumerate(zip(pieces, types, strict=True)):
        high_byte = kind == BYTE and int(piece[3:5], 16) >= 0x80
        if spec.flavour == "raw" and high_byte:
            bias[i] = RAW_BYTE_BIAS
        elif kind != NORMAL:
            bias[i] = BANNED_BIAS
    return bias


def build_tensors(spec: TinySpec, n_vocab: int, bias: np.ndarray) -> dict[str, np.ndarray]:
    """Random llama weights; numpy shapes are (out, in), as gguf expects."""
    rng = np.random.default_rng(spec.seed)
    head_dim = spec.n_embd // spec.n_head
    n_kv = spec.n_head_kv * head_dim
    scale = 1.0 / np.sqrt(spec.n_embd)

    def rand(*shape: int, s: float = scale) -> np.ndarray:
        return (rng.standard_normal(shape) * s).astype(np.float32)

    embd = rand(n_vocab, spec.n_embd, s=1.0)
    embd[:, 0] = BIAS_DIM_VALUE
    output = rand(n_vocab, spec.n_embd, s=3.0 * scale)
    output[:, 0] = bias
    tensors = {
        "token_embd.weight": embd,
        "output_norm.weight": np.ones(spec.n_embd, dtype=np.float32),
        "output.weight": output,
    }
    for layer in range(spec.n_layer):
        attn_out = rand(spec.n_embd, spec.n_embd)
        ffn_down = rand(spec.n_embd, spec.n_ff, s=1.0 / np.sqrt(spec.n_ff))
        attn_out[0, :] = 0.0  # keep the bias dimension constant
        ffn_down[0, :] = 0.0
        tensors.update({
            f"blk.{layer}.attn_norm.weight": np.ones(spec.n_embd, dtype=np.float32),
            f"blk.{layer}.attn_q.weight": rand(spec.n_embd, spec.n_embd),
            f"blk.{layer}.attn_k.weight": rand(n_kv, spec.n_embd),
            f"blk.{layer}.attn_v.weight": rand(n_kv, spec.n_embd),
            f"blk.{layer}.attn_output.weight": attn_out,
            f"blk.{layer}.ffn_norm.weight": np.ones(spec.n_embd, dtype=np.float32),
            f"blk.{layer}.ffn_gate.weight": rand(spec.n_ff, spec.n_embd),
            f"blk.{layer}.ffn_up.weight": rand(spec.n_ff, spec.n_embd),
            f"blk.{layer}.ffn_down.weight": ffn_down,
        })
    return tensors


def write_tiny(spec: TinySpec, path: Path, name: str) -> None:
    """Write the GGUF file for `spec` to `path` (atomically)."""
    pieces, scores, types = build_vocab()
    tensors = build_tensors(spec, len(pieces), token_bias(spec, pieces, types))
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # parallel runs may race
    writer = gguf.GGUFWriter(str(tmp), "llama")
    writer.add_name(name)
    writer.add_context_length(spec.n_ctx_train)
    writer.add_embedding_length(spec.n_embd)
    writer.add_block_count(spec.n_layer)
    writer.add_feed_forward_length(spec.n_ff)
    writer.add_head_count(spec.n_head)
    writer.add_head_count_kv(spec.n_head_kv)
    writer.add_rope_dimension_count(spec.n_embd // spec.n_head)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(pieces))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(pieces)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_eot_token_id(pieces.index("<|im_end|>"))
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_uint32(gguf.Keys.Tokenizer.FIM_PRE_ID, pieces.index("<|fim_prefix|>"))
    writer.add_uint32(gguf.Keys.Tokenizer.FIM_SUF_ID, pieces.index("<|fim_suffix|>"))
    writer.add_uint32(gguf.Keys.Tokenizer.FIM_MID_ID, pieces.index("<|fim_middle|>"))
    writer.add_chat_template(CHAT_TEMPLATE)
    for tensor_name, array in tensors.items():
        writer.add_tensor(tensor_name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.replace(path)


def generator_hash() -> str:
    """Hash of this generator and the gguf version: a change regenerates the cache."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(metadata.version("gguf").encode())
    return digest.hexdigest()[:16]


def tiny_model_path(name: str, cache_dir: Path) -> Path:
    """Path of the named tiny model, generating it on first use."""
    spec = FLAVOURS[name]
    path = cache_dir / f"{name}-{generator_hash()}.gguf"
    if not path.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        write_tiny(spec, path, name)
    return path
