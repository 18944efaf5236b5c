"""A GGUF file's metadata and tensors as numpy arrays, for the reference forward passes.

The header comes from the fast reader (`llamatest.models.ggufheader`: arrays are stepped over, so a large
vocabulary costs nothing); the tensor data is memory-mapped and viewed in numpy order (ggml's ``ne``
reversed: a weight is (out, in)). Only F32 and F16 tensors are read: the models the project generates are
F32, and a quantised tensor would need ggml's block formats, which a reference should not re-implement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from llamatest.models.ggufheader import read_header

# ggml type -> numpy dtype of the types read here (ggml.h: GGML_TYPE_F32 = 0, GGML_TYPE_F16 = 1).
DTYPES = {0: np.float32, 1: np.float16}


@dataclass(frozen=True)
class Weights:
    """One GGUF file: ``fields`` (key -> value, arrays as their length) and ``tensors`` (name -> float64)."""

    path: str
    fields: dict
    tensors: dict

    @property
    def arch(self) -> str:
        return self.fields["general.architecture"]

    def meta(self, key: str, default=None):
        """The architecture's field ``{arch}.KEY`` (``attention.head_count``…), or `default`."""
        return self.fields.get(f"{self.arch}.{key}", default)

    def get(self, name: str) -> np.ndarray | None:
        return self.tensors.get(name)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.tensors[name]


def load_weights(path: str | Path) -> Weights:
    """The metadata and tensors of the GGUF file at `path` (read once per file version)."""
    stat = Path(path).stat()
    return _load(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _load(path: str, _mtime_ns: int, _size: int) -> Weights:
    # The arguments after the path key the cache: a regenerated file is read again.
    header = read_header(Path(path))
    data = np.memmap(path, dtype=np.uint8, mode="r")
    tensors = {}
    for name, info in header.tensors.items():
        if info.ggml_type not in DTYPES:
            raise ValueError(f"{path}: tensor {name} has ggml type {info.ggml_type}; the reference reads F32 "
                             f"and F16 tensors only (the models the project generates)")
        dtype = np.dtype(DTYPES[info.ggml_type])
        count = math.prod(info.shape)
        raw = data[info.offset:info.offset + count * dtype.itemsize].view(dtype)
        # Computed in float64: the reference's own rounding stays far below the server's F32 rounding.
        tensors[name] = raw.reshape(tuple(reversed(info.shape))).astype(np.float64)
    return Weights(path, header.fields, tensors)
