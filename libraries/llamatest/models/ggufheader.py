"""A GGUF file's header read in a fraction of a second: its key-value metadata, its tensors' shapes and offsets.

``gguf.GGUFReader`` turns every entry of every array into a numpy object: on a 262,144-token vocabulary
(Gemma 3: tokens, scores and types) that takes 10 to 20 seconds, paid in every robot process that reads
the model's metadata. Here an array is stepped over and only its length kept; scalars and strings are
read as Python values. Layout: the GGUF specification (ggml's docs/gguf.md), little-endian files only.
"""

from __future__ import annotations

import math
import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"GGUF"
# GGUF value type -> struct format of one value (8: string, 9: array are read apart).
SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
STRING, ARRAY = 8, 9


@dataclass(frozen=True)
class Array:
    """An array value, stepped over: its element type and its length."""

    item_type: int
    length: int


@dataclass(frozen=True)
class TensorInfo:
    """Where one tensor's data is: its ggml dimensions (``ne``, innermost first), ggml type and file offset."""

    shape: list
    ggml_type: int
    offset: int  # from the start of the file


@dataclass(frozen=True)
class Header:
    fields: dict  # key -> int, float, bool, str, or Array
    tensor_shapes: list  # one list of dimensions per tensor
    tensors: dict = field(default_factory=dict)  # name -> TensorInfo, in file order


class _Cursor:
    def __init__(self, data) -> None:
        self.data, self.at = data, 0

    def unpack(self, fmt: str):
        value = struct.unpack_from(fmt, self.data, self.at)[0]
        self.at += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        size = self.unpack("<Q")
        self.at += size
        return bytes(self.data[self.at - size:self.at]).decode("utf-8", errors="replace")

    def value(self, kind: int):
        if kind == STRING:
            return self.string()
        if kind == ARRAY:
            item_type, length = self.unpack("<I"), self.unpack("<Q")
            self.skip(item_type, length)
            return Array(item_type, length)
        return self.unpack(SCALARS[kind])

    def skip(self, kind: int, count: int) -> None:
        if kind in SCALARS:
            self.at += struct.calcsize(SCALARS[kind]) * count
            return
        for _ in range(count):  # strings and nested arrays have their own lengths
            self.value(kind)


def read_header(path: Path) -> Header:
    """The metadata and tensor shapes of the GGUF file at ``path``; ValueError when it is not one."""
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data[:4] != MAGIC:
            raise ValueError(f"{path} is not a GGUF file")
        cursor = _Cursor(data)
        cursor.at = 4
        version = cursor.unpack("<I")
        if not 1 <= version <= 0xFFFF:
            raise ValueError(f"{path}: GGUF version {version:#x} (a big-endian file?) is not read here")
        n_tensors, n_fields = cursor.unpack("<Q"), cursor.unpack("<Q")
        fields = {}
        for _ in range(n_fields):
            key = cursor.string()
            fields[key] = cursor.value(cursor.unpack("<I"))
        infos = {}
        for _ in range(n_tensors):
            name = cursor.string()
            shape = [cursor.unpack("<Q") for _ in range(cursor.unpack("<I"))]
            infos[name] = (shape, cursor.unpack("<I"), cursor.unpack("<Q"))
        # The tensor data starts at the next multiple of the alignment (32 unless the file says).
        alignment = fields.get("general.alignment", 32)
        data_start = -(-cursor.at // alignment) * alignment
        tensors = {name: TensorInfo(shape, kind, data_start + offset) for name, (shape, kind, offset) in infos.items()}
        return Header(fields, [info.shape for info in tensors.values()], tensors)


def n_elements(header: Header) -> int:
    """The number of parameters: every tensor's element count, added up."""
    return sum(math.prod(shape) for shape in header.tensor_shapes)
