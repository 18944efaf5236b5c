"""Generator of `tiny-reranker`: a BERT-architecture GGUF with a classification head and pooling `rank`.

The weights are random (fixed seed), so its scores carry no meaning, but everything the server's rerank
contract depends on is real: a WordPiece vocabulary in llama.cpp's spelling ([CLS]/[SEP] framing,
word starts marked with U+2581, continuations without a prefix), a non-causal BERT graph, and the
classification head (`cls`, `cls.output`) that turns the [CLS] vector of "query [SEP] document" into
one score. The same query and document always get the same score, wherever the document stands in
the list.
"""

from __future__ import annotations

import string
from functools import partial
from pathlib import Path

import gguf
import numpy as np

from llamatest.models.modelfile import bert_writer, cached_model, code_hash, write_out
from llamatest.models.tiny import TinySpec

NAME = "tiny-reranker"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # ids 0..4, CONTROL tokens
PAD, UNK, CLS, SEP, MASK = range(len(SPECIALS))
WORDS = ["the", "a", "is", "of", "and", "in", "to", "cat", "cats", "dog", "dogs", "sat", "on", "mat",
         "paris", "france", "capital", "city", "weather", "rain", "sun", "what", "where", "which",
         "pasta", "recipe", "cook", "python", "code", "llama", "server", "test"]
SPACE = "\u2581"  # marks a word start in llama.cpp's WordPiece vocabulary


N_TOKEN_TYPES = 2  # BERT's segments A and B
SPEC = TinySpec(seed=4321, n_embd=32, n_head=2, n_head_kv=2, n_ff=64, n_layer=2, n_ctx_train=512)  # flavour unused


def build_vocab() -> tuple[list[str], list[int]]:
    """(tokens, token types); every lowercase ASCII word can be spelled, so nothing becomes [UNK]."""
    chars = string.ascii_lowercase + string.digits
    tokens = list(SPECIALS)
    tokens += [SPACE + c for c in chars + string.punctuation]  # a word (or a punctuation mark) starts
    tokens += list(chars)  # a word goes on (WordPiece's "##x")
    tokens += [SPACE + word for word in WORDS if len(word) > 1]
    types = [gguf.TokenType.CONTROL] * len(SPECIALS) + [gguf.TokenType.NORMAL] * (len(tokens) - len(SPECIALS))
    return tokens, types


def build_tensors(spec: TinySpec, n_vocab: int) -> dict[str, np.ndarray]:
    """Random BERT weights with a classification head; numpy shapes are (out, in), as gguf expects."""
    rng = np.random.default_rng(spec.seed)
    scale = 1.0 / np.sqrt(spec.n_embd)

    def rand(*shape: int, s: float = scale) -> np.ndarray:
        return (rng.standard_normal(shape) * s).astype(np.float32)

    def ones() -> np.ndarray:
        return np.ones(spec.n_embd, dtype=np.float32)

    tensors = {
        "token_embd.weight": rand(n_vocab, spec.n_embd, s=1.0),
        "token_types.weight": rand(N_TOKEN_TYPES, spec.n_embd, s=0.1),
        "position_embd.weight": rand(spec.n_ctx_train, spec.n_embd, s=0.1),
        "token_embd_norm.weight": ones(),
        "token_embd_norm.bias": rand(spec.n_embd, s=0.1),
    }
    for layer in range(spec.n_layer):
        block = f"blk.{layer}"
        for proj in ("attn_q", "attn_k", "attn_v", "attn_output"):
            tensors[f"{block}.{proj}.weight"] = rand(spec.n_embd, spec.n_embd)
            tensors[f"{block}.{proj}.bias"] = rand(spec.n_embd, s=0.1)
        tensors.update({
            f"{block}.attn_output_norm.weight": ones(),
            f"{block}.attn_output_norm.bias": rand(spec.n_embd, s=0.1),
            f"{block}.ffn_up.weight": rand(spec.n_ff, spec.n_embd),
            f"{block}.ffn_up.bias": rand(spec.n_ff, s=0.1),
            f"{block}.ffn_down.weight": rand(spec.n_embd, spec.n_ff, s=1.0 / np.sqrt(spec.n_ff)),
            f"{block}.ffn_down.bias": rand(spec.n_embd, s=0.1),
            f"{block}.layer_output_norm.weight": ones(),
            f"{block}.layer_output_norm.bias": rand(spec.n_embd, s=0.1),
        })
    tensors.update({
        "cls.weight": rand(spec.n_embd, spec.n_embd),  # dense + tanh over the [CLS] vector
        "cls.bias": rand(spec.n_embd, s=0.1),
        "cls.output.weight": rand(1, spec.n_embd, s=1.0),  # one score
        "cls.output.bias": np.zeros(1, dtype=np.float32),
    })
    return tensors


def write_reranker(spec: TinySpec, path: Path) -> None:
    """Write the GGUF file for `spec` to `path`."""
    tokens, types = build_vocab()
    writer = bert_writer(path, NAME, tokens, types, {
        "context_length": spec.n_ctx_train,
        "embedding_length": spec.n_embd,
        "feed_forward_length": spec.n_ff,
        "block_count": spec.n_layer,
        "head_count": spec.n_head,
        "layer_norm_eps": 1e-12,
        "pooling_type": gguf.PoolingType.RANK,
        "token_type_count": N_TOKEN_TYPES,
        "bos_token_id": CLS, "eos_token_id": SEP, "sep_token_id": SEP,
        "unk_token_id": UNK, "pad_token_id": PAD, "mask_token_id": MASK,
        # a pair is [CLS] query [SEP] document [SEP], as in converted BERT rerankers
        "add_bos_token": True, "add_eos_token": True, "add_sep_token": False,
    })
    write_out(writer, build_tensors(spec, len(tokens)))


def generator_hash() -> str:
    """Hash of this generator and the gguf version: a change regenerates the cache."""
    return code_hash(Path(__file__))


def reranker_model_path(cache_dir: Path) -> Path:
    """Path of the tiny reranker, generating it on first use."""
    return cached_model(cache_dir, NAME, generator_hash(), partial(write_reranker, SPEC))
