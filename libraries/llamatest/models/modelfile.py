"""What the generated and converted models share: a cache file keyed by the code that makes it, written whole."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path

import gguf
import numpy as np


def code_hash(source: Path, *dists: str) -> str:
    """Hash of `source` (the module that makes a model) and of the versions of gguf and `dists`."""
    digest = hashlib.sha256(source.read_bytes())
    digest.update(" ".join(f"{dist}={metadata.version(dist)}" for dist in ("gguf", *dists)).encode())
    return digest.hexdigest()[:16]


def cached_model(cache_dir: Path, stem: str, key: str, make: Callable[[Path], None]) -> Path:
    """`cache_dir/STEM-KEY.gguf`, made by `make(path)` on first use into a temporary file that then takes its place,
    so a parallel run never reads half a file."""
    path = cache_dir / f"{stem}-{key}.gguf"
    if path.exists():
        return path
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial_file = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    make(partial_file)
    partial_file.replace(path)
    return path


def write_out(writer: gguf.GGUFWriter, tensors: Mapping[str, np.ndarray]) -> None:
    """Adds `tensors` to `writer`, writes header, metadata and tensors, and closes the file."""
    for name, array in tensors.items():
        writer.add_tensor(name, array)
    for step in (writer.write_header_to_file, writer.write_kv_data_to_file, writer.write_tensors_to_file):
        step()
    writer.close()


def bert_writer(path: Path, name: str, tokens: list[str], types: list[int],
                fields: Mapping[str, object]) -> gguf.GGUFWriter:
    """A writer for a non-causal llama.cpp BERT model with a WordPiece vocabulary (`tokens` in llama.cpp's
    spelling, `types`), its metadata added. `fields` names further GGUFWriter `add_*` calls and their values:
    ``{"embedding_length": 384, "pooling_type": gguf.PoolingType.MEAN}`` calls ``add_embedding_length(384)``…"""
    writer = gguf.GGUFWriter(str(path), gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    common = {"name": name, "causal_attention": False, "file_type": gguf.LlamaFileType.ALL_F32,
              "tokenizer_model": "bert", "tokenizer_pre": "default", "token_list": tokens, "token_types": types}
    for key, value in {**common, **fields}.items():
        getattr(writer, f"add_{key}")(value)
    return writer
