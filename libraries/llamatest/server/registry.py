"""Out-of-band registry of started processes, and the sweep that kills leaks.

run.py registers the robot process it starts, LlamaServerLibrary every server. Each entry is
a JSON file `<pid>.json` with the pid and create time of the process and of its owner (run.py,
or the robot process). A sweep kills the processes whose owner is gone (a run killed with -9,
a crashed worker) and never a process whose pid has been reused: both pid and create time
must match.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psutil

from llamatest import deadlines, workdir
from llamatest.settings import pid_dir

PR_SET_PDEATHSIG = 1
POLL_S = 0.05  # between two looks at processes told to end


def registry_dir() -> Path:
    return pid_dir()


def _create_time(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def register(pid: int, **info) -> None:
    """Record a started server; `info` (port, log, alias…) helps whoever reads a sweep report."""
    directory = registry_dir()
    directory.mkdir(parents=True, exist_ok=True)
    entry = {
        "pid": pid,
        "create_time": _create_time(pid),
        "owner_pid": os.getpid(),
        "owner_create_time": _create_time(os.getpid()),
        **info,
    }
    (directory / f"{pid}.json").write_text(json.dumps(entry))


def unregister(pid: int) -> None:
    (registry_dir() / f"{pid}.json").unlink(missing_ok=True)


def is_same_process(pid: int, create_time: float | None) -> bool:
    """True only when `pid` is alive and is still the process that was registered."""
    return create_time is not None and _create_time(pid) == create_time


def kill_tree(pid: int, create_time: float | None = None, grace: float | None = None) -> int | None:
    """SIGTERM the process and its children, SIGKILL survivors after `grace` s; see `kill_trees`."""
    return kill_trees([(pid, create_time)], grace)[pid]


def kill_trees(targets: list[tuple[int, float | None]], grace: float | None = None) -> dict[int, int | None]:
    """SIGTERM every (pid, create_time) process and its children, SIGKILL survivors after `grace` s.

    All trees share one grace, so stopping many servers takes no longer than stopping one:
    at most `grace` (default: the ``failed_start`` deadline) + the ``kill``
    deadline. Returns pid -> exit code. The exit code can only be
    collected for a child of this process: then it is the one place that reaps it, so the caller
    must not wait for it again (a Popen would report 0). A process ended by a signal is reported
    as the negative signal number, like Popen (-15, -9); None when unknown (not our child, a pid
    that no longer belongs to the registered process, still alive after SIGKILL). With a
    create_time, a pid is left alone unless it still belongs to that process.
    """
    roots: dict[int, psutil.Process] = {}
    procs: list[psutil.Process] = []
    for pid, create_time in targets:
        if create_time is not None and not is_same_process(pid, create_time):
            continue
        try:
            root = psutil.Process(pid)
            procs += root.children(recursive=True) + [root]
        except psutil.NoSuchProcess:
            continue
        roots[pid] = root
    _signal_all(procs, psutil.Process.terminate)
    alive = wait_ended(procs, deadlines.or_default(grace, "failed_start"))
    _signal_all(alive, psutil.Process.kill)
    wait_ended(alive, deadlines.deadline("kill"))
    codes: dict[int, int | None] = {pid: None for pid, _ in targets}
    for pid, root in roots.items():
        code = getattr(root, "returncode", None)  # set by wait_procs on the processes that are gone
        codes[pid] = None if code is None else int(code)
    return codes


def wait_ended(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """`psutil.wait_procs` (which reaps our own children, so that their exit codes are known) for up to
    ``timeout`` s, where a zombie that is not our child counts as ended: only its parent can remove it, and an
    orphan's new parent, the container's init, may reap it seconds later or never. Returns those still alive."""
    end = time.monotonic() + timeout
    alive = list(procs)
    while alive:
        _, alive = psutil.wait_procs(alive, timeout=min(POLL_S, max(end - time.monotonic(), 0.0)))
        alive = [proc for proc in alive if not _orphan_zombie(proc)]
        if time.monotonic() >= end:
            break
    return alive


def _orphan_zombie(proc: psutil.Process) -> bool:
    try:
        return proc.status() == psutil.STATUS_ZOMBIE and proc.ppid() != os.getpid()
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:  # not ours to look at: wait for it as for any other
        return False


def _signal_all(procs: list[psutil.Process], send) -> None:
    for proc in procs:
        try:
            send(proc)
        except psutil.Error:  # gone meanwhile, or not ours to signal
            pass


def dying_with_parent(args: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """The command line and ``preexec_fn`` that start ``args`` as a child the kernel ends with its parent: through
    util-linux's ``setpriv --pdeathsig`` when it is installed, else `die_with_parent`. A ``preexec_fn`` makes
    Python fork the whole robot process (12.7 ms at 185 MB) instead of vfork (0.2 ms), at each of a run's 190
    server starts. The death signal survives setpriv's exec of the server (prctl(2)); it is set a moment after
    the spawn returns, when setpriv runs: a parent killed before then leaves the child to the registry's sweep."""
    setpriv = death_signal_setpriv()
    if setpriv is None:
        return list(args), die_with_parent
    return [setpriv, "--pdeathsig", "TERM", "--", *args], None


@functools.cache
def death_signal_setpriv() -> str | None:
    """util-linux's setpriv where it is installed and knows ``--pdeathsig`` (util-linux 2.33 and later), else None:
    tried once, on ``true``, as an older one would fail every server start."""
    found = shutil.which("setpriv")
    if found is None:
        return None
    try:
        works = subprocess.run([found, "--pdeathsig", "TERM", "--", "true"], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=deadlines.deadline("probe")).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        works = False
    return found if works else None


def die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: the kernel sends SIGTERM to this child when its parent dies, even by SIGKILL.

    Use as `preexec_fn`; it covers the direct child only, hence the registry as well. The signal
    comes when the *thread* that started the child ends: start servers from a long-lived thread.
    """
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


def sweep(only_orphans: bool = True) -> list[dict]:
    """Kill registered processes whose owner is gone; return what was killed.

    Repeats until nothing changes: killing an orphaned robot orphans the servers it owned.
    With `only_orphans=False` every registered process that is still the same one is killed.
    """
    killed = []
    while True:
        found = _sweep_once(only_orphans)
        if not found:
            return killed
        killed += found


def _sweep_once(only_orphans: bool) -> list[dict]:
    killed = []
    directory = registry_dir()
    if not directory.is_dir():
        return killed
    for path in sorted(directory.glob("*.json")):
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            path.unlink(missing_ok=True)
            continue
        owner_alive = is_same_process(entry.get("owner_pid", -1), entry.get("owner_create_time"))
        if only_orphans and owner_alive:
            continue
        if is_same_process(entry["pid"], entry.get("create_time")):
            # An entry may bring its own SIGTERM grace: 0 for a test Ray cluster, whose raylet lingers on SIGTERM
            kill_tree(entry["pid"], entry.get("create_time"), grace=entry.get("grace"))
            killed.append(entry)
        workdir.remove(entry.get("cwd"))  # a server's own working folder, left by a run that was killed
        path.unlink(missing_ok=True)
    return killed
