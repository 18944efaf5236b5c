"""A user's own models: ``LLAMATEST_MODEL`` (and the embedding and rerank ones) for the model-agnostic presets.

Each variable names a GGUF file; the catalog knows it by a model name (``own``, ``own-embedding``,
``own-reranker``), and the presets that take it (presets.py, ``takes=``) run it instead of ours.
Its sha256 names it in the run's metadata; the hash is cached per file path, modification time and
size in ``$LLAMATEST_CACHE/models/sha256.json``, since a model of gigabytes takes seconds to hash.

Stdlib only: run.py checks the files before robot starts.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from llamatest.settings import ENV_EMBEDDING_MODEL, ENV_MODEL, ENV_RERANK_MODEL, atomic_write_text, cache_dir

# model name -> the variable that names its file
OWN_MODELS = {"own": ENV_MODEL, "own-embedding": ENV_EMBEDDING_MODEL, "own-reranker": ENV_RERANK_MODEL}
HASH_CACHE = "sha256.json"


def configured(env=None) -> dict[str, Path]:
    """The own models the environment names: model name -> path (not checked)."""
    env = os.environ if env is None else env
    return {name: Path(env[var]).expanduser() for name, var in OWN_MODELS.items() if env.get(var)}


def problem(name: str, path: Path) -> str | None:
    """One line saying why the file of own model ``name`` cannot be used; None when it can."""
    var = OWN_MODELS[name]
    if not path.exists():
        return f"{var}={path}: no such file"
    if not path.is_file():
        return f"{var}={path}: not a file (give the path of a .gguf model)"
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as err:
        return f"{var}={path}: cannot be read ({err.strerror or err})"
    if magic != b"GGUF":
        return f"{var}={path}: not a GGUF file (it starts with {magic!r}, not b'GGUF')"
    return None


def problems(env=None) -> list[str]:
    """A line for each configured own model that cannot be used (run.py ends the run on the first)."""
    return [line for name, path in configured(env).items() if (line := problem(name, path))]


def own_model_path(name: str, env=None) -> Path:
    """The checked file of own model ``name``; AssertionError (one line) when it is unset or unusable."""
    path = configured(env).get(name)
    if path is None:
        raise AssertionError(f"model '{name}' is the file named by {OWN_MODELS[name]}, which is not set")
    line = problem(name, path)
    if line:
        raise AssertionError(line)
    return path


def sha256(path: Path, cache: Path | None = None) -> str:
    """The file's sha256 (hex), from the cache when its path, mtime and size are unchanged."""
    cache = cache or cache_dir() / "models" / HASH_CACHE
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_mtime_ns}|{stat.st_size}"
    try:
        known = json.loads(cache.read_text())
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    if key not in known:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        known[key] = digest.hexdigest()
        atomic_write_text(cache, json.dumps(known, indent=1, sort_keys=True))
    return known[key]


def metadata(env=None, cache: Path | None = None) -> dict[str, str]:
    """Robot metadata for the own models: ``Own Model`` → ``/path/m.gguf (sha256 …)``, one per variable."""
    titles = {"own": "Own Model", "own-embedding": "Own Embedding Model", "own-reranker": "Own Rerank Model"}
    return {titles[name]: f"{path} (sha256 {sha256(path, cache)})" for name, path in configured(env).items()}
