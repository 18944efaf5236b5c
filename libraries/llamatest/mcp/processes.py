"""Finds and ends the MCP fixture processes of a run, by the marker on their command line.

llama-server spawns them, so they are not our children; psutil finds them wherever they are, and a
sweep ends any that a failed test left (each fixture also ends itself when its parent dies)."""

import psutil

from llamatest import deadlines


def fixture_processes(marker: str) -> list[psutil.Process]:
    """The live processes whose command line contains ``marker``."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info.get("cmdline") or []
        if marker in cmdline and proc.status() != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


def describe(processes: list[psutil.Process]) -> str:
    """``pid 123 (python faulty_server.py hang …)``, one per process, for a failure message."""
    parts = []
    for proc in processes:
        try:
            parts.append(f"pid {proc.pid} ({' '.join(proc.cmdline()[1:3])})")
        except psutil.Error:
            parts.append(f"pid {proc.pid}")
    return ", ".join(parts)


def end_processes(processes: list[psutil.Process], wait: float | None = None) -> list[psutil.Process]:
    """SIGKILLs ``processes`` and waits up to ``wait`` seconds (default: the ``kill`` deadline); returns those
    still alive."""
    for proc in processes:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(processes, timeout=deadlines.or_default(wait, "kill"))
    return alive
