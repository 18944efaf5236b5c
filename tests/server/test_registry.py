"""The pid registry and the leak sweep: orphaned servers are killed, live owners and reused pids are left alone."""

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from llamatest.server import registry as _pidregistry

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]
DEAF_SLEEPER = [sys.executable, "-c",
                "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); "
                "time.sleep(60)"]
# An owner that starts a registered "server" and prints its pid, then waits to be killed.
OWNER = (
    "import subprocess, sys, time\nfrom llamatest.server import registry as _pidregistry\n"
    f"p = subprocess.Popen({SLEEPER!r}, start_new_session=True)\n"
    "_pidregistry.register(p.pid, port=1, alias='x')\n"
    "print(p.pid, flush=True)\n"
    "time.sleep(60)\n"
)

pytestmark = pytest.mark.usefixtures("pid_registry")


def start_owner(script: str = OWNER, path: str | None = None):
    """A robot-like owner process running ``script`` (default: one registered server), with ``PATH`` = ``path``
    (default this one's); returns (owner, the pid it printed)."""
    env = {"PYTHONPATH": str(Path(_pidregistry.__file__).parents[2]),
           "PATH": os.environ.get("PATH", "") if path is None else path,
           "LLAMATEST_PID_DIR": os.environ["LLAMATEST_PID_DIR"]}
    owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    return owner, int(owner.stdout.readline())


def test_sweep_kills_server_of_killed_owner():
    owner, server_pid = start_owner()
    owner.kill()  # like kill -9 of run.py/robot: no teardown ran
    owner.wait(timeout=5)
    killed = _pidregistry.sweep()
    assert [e["pid"] for e in killed] == [server_pid]
    assert not psutil.pid_exists(server_pid) or psutil.Process(server_pid).status() == psutil.STATUS_ZOMBIE


def test_sweep_leaves_server_of_live_owner(pid_registry):
    owner, server_pid = start_owner()
    try:
        assert _pidregistry.sweep() == []
        assert psutil.pid_exists(server_pid)
        assert (pid_registry / f"{server_pid}.json").exists()
    finally:
        owner.kill()
        owner.wait(timeout=5)
        _pidregistry.sweep()


def test_sweep_never_kills_a_reused_pid(pid_registry):
    proc = subprocess.Popen(SLEEPER)
    try:
        _pidregistry.register(proc.pid)
        entry = pid_registry / f"{proc.pid}.json"
        # Same pid, other create time: the registered process is gone and the pid was reused.
        entry.write_text(entry.read_text().replace('"create_time": ', '"create_time": 1'))
        _pidregistry.sweep(only_orphans=False)
        assert proc.poll() is None
        assert not entry.exists()
    finally:
        proc.kill()
        proc.wait()


def test_kill_tree_terminates_children_too():
    parent = subprocess.Popen([sys.executable, "-c",
                               f"import subprocess,time; subprocess.Popen({SLEEPER!r}); time.sleep(60)"])
    deadline = time.monotonic() + 5
    while not psutil.Process(parent.pid).children() and time.monotonic() < deadline:
        time.sleep(0.05)
    child = psutil.Process(parent.pid).children()[0]
    _pidregistry.kill_tree(parent.pid, grace=2)
    parent.wait(timeout=5)
    child.wait(timeout=5)
    assert not child.is_running()


def test_kill_tree_reports_the_signal_as_a_negative_exit_code():
    proc = subprocess.Popen(SLEEPER)
    assert _pidregistry.kill_tree(proc.pid, psutil.Process(proc.pid).create_time(), grace=5) == -15


def test_kill_trees_share_one_grace_then_sigkill():
    procs = [subprocess.Popen(DEAF_SLEEPER, stdout=subprocess.PIPE) for _ in range(3)]
    for proc in procs:
        proc.stdout.readline()  # the SIGTERM handler is in place
    started = time.monotonic()
    codes = _pidregistry.kill_trees([(p.pid, None) for p in procs], grace=0.5)
    assert time.monotonic() - started < 2.0
    assert codes == {p.pid: -9 for p in procs}
    for proc in procs:
        proc.stdout.close()


def test_kill_trees_do_not_wait_for_a_zombie_they_cannot_reap():
    # the parent never reaps its child, as a container's init may not for seconds: only it could remove the zombie
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                               "child = subprocess.Popen(['true']); print(child.pid, flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        zombie = psutil.Process(int(parent.stdout.readline()))
        deadline = time.monotonic() + 5
        while zombie.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        _pidregistry.kill_trees([(zombie.pid, None)], grace=5)
        assert time.monotonic() - started < 1.0
    finally:
        parent.kill()
        parent.wait()
        parent.stdout.close()


def test_kill_tree_leaves_a_reused_pid_alone():
    proc = subprocess.Popen(SLEEPER)
    try:
        assert _pidregistry.kill_tree(proc.pid, create_time=1.0, grace=1) is None
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_corrupt_registry_entry_is_removed(pid_registry):
    pid_registry.mkdir()
    (pid_registry / "123.json").write_text("{not json")
    assert _pidregistry.sweep() == []
    assert not (pid_registry / "123.json").exists()


# An owner that starts a sleeper as the server starts are started (dying_with_parent), prints its pid, waits.
TIED_OWNER = (
    "import subprocess, time\nfrom llamatest.server import registry as _pidregistry\n"
    f"argv, preexec = _pidregistry.dying_with_parent({SLEEPER!r})\n"
    "p = subprocess.Popen(argv, preexec_fn=preexec, start_new_session=True)\n"
    "print(p.pid, flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.mark.parametrize("setpriv", [True, False], ids=["setpriv", "preexec_fn"])
def test_a_child_started_dying_with_parent_ends_when_its_owner_is_killed(setpriv):
    if setpriv and _pidregistry.death_signal_setpriv() is None:
        pytest.skip("no util-linux setpriv with --pdeathsig here")
    owner, child_pid = start_owner(TIED_OWNER, path=None if setpriv else "")  # no PATH: no setpriv found
    child = psutil.Process(child_pid)
    end = time.monotonic() + 10
    while child.cmdline() != SLEEPER and time.monotonic() < end:  # setpriv sets the signal, then runs the sleeper
        time.sleep(0.01)
    owner.kill()  # no teardown: only the kernel's death signal can end the child
    owner.wait()
    psutil.wait_procs([child], timeout=10)
    assert not child.is_running() or child.status() == psutil.STATUS_ZOMBIE


def test_a_setpriv_without_pdeathsig_is_not_used(tmp_path, monkeypatch):
    """An older util-linux's setpriv (before 2.33) rejects --pdeathsig: servers are then started with preexec_fn."""
    old = tmp_path / "setpriv"
    old.write_text("#!/bin/sh\necho 'setpriv: unrecognized option' >&2\nexit 1\n")
    old.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    _pidregistry.death_signal_setpriv.cache_clear()
    try:
        assert _pidregistry.dying_with_parent(["llama-server"]) == (["llama-server"], _pidregistry.die_with_parent)
    finally:
        _pidregistry.death_signal_setpriv.cache_clear()
