"""A Ray cluster of several nodes on this machine, started the way a user starts one, and stopped without
``ray stop``.

``start_cluster(nodes)`` runs ``ray start --head`` and then ``ray start --address HEAD:PORT`` once per further
node, each with one CPU (``cpus_per_node``), a small object store, no dashboard and a temp folder of its own
(``<cluster folder>/<node index>``), which is also the working folder of each of its processes. Every process
of node ``i`` names that folder in its command line or works in it (the raylet's agents and workers), so one
node's processes can be told apart from the other node's and from any other Ray on the machine. That is how
the cluster is stopped: ``ray stop`` ends every Ray process of the user, a concurrent run's local instance too,
so `stop_cluster` SIGKILLs exactly the processes found under the cluster's folder (as ``ray stop --force``
would). Every process is also put in the pid registry that run.py sweeps, so a run killed before its teardown
leaves nothing behind either. `lose_node` SIGKILLs one node's processes at once, as when a
machine drops off the network.

Workers go to the nodes by Ray's SPREAD strategy (``distributed``), not by a custom resource per node: SPREAD
works on any cluster a user has, with nothing to declare on its nodes, and with one CPU per node and one CPU per
worker two workers cannot share a node anyway.

The cluster uses Ray's token authentication with a token of this process (a file in the cluster folder, named
by ``RAY_AUTH_TOKEN_PATH``): its ports listen on every interface. The driver (this process) joins with the same
token, so ``RAY_AUTH_MODE`` and ``RAY_AUTH_TOKEN_PATH`` are set in this process while the cluster runs and put
back when it stops.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from llamatest import deadlines, workdir
from llamatest.server import registry
from llamatest.server.process import free_port

NODE_OBJECT_STORE_BYTES = 80 * 1024 * 1024  # Ray's minimum is 75 MiB; the runs ship only event logs
RUN_TITLE = "ray::LoadWorker.run"  # Ray's title of a worker process while it runs distributed.LoadWorker.run
WATCH_INTERVAL_S = 0.1  # between two looks at a node's processes
AUTH_ENV = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH")
_TOKEN = secrets.token_hex(32)  # one per process: Ray's token loader may keep the first token it read


class RayClusterError(RuntimeError):
    """A node did not start, or a process of the cluster outlived its stop."""


@dataclass
class RayCluster:
    """A running cluster: its folder, the head's address and each node's temp folder."""

    folder: Path
    address: str
    nodes: list[Path] = field(default_factory=list)  # node i's --temp-dir
    env: dict[str, str] = field(default_factory=dict)  # what `ray start` and the driver need
    registered: list[int] = field(default_factory=list)  # the pids `_register` put in the pid registry
    saved_env: dict[str, str | None] = field(default_factory=dict)  # this process's values before the cluster

    def node_processes(self, index: int) -> list[psutil.Process]:
        return processes_under(self.nodes[index])


def processes_under(folder: str | Path) -> list[psutil.Process]:
    """Every process whose command line names ``folder`` (a path inside it) or that works in it, and their
    descendants. The working folder finds the agents a raylet starts (``ray::DashboardAgent``: no path in their
    command line), also once their raylet is gone and they belong to init."""
    mark = str(folder)
    roots = []
    for p in psutil.process_iter(["cmdline", "cwd"]):
        if p.pid != os.getpid() and (any(mark in part for part in p.info["cmdline"] or ())
                                     or (p.info["cwd"] or "").startswith(mark)):
            roots.append(p)
    found = {p.pid: p for p in roots}
    for p in roots:
        with contextlib.suppress(psutil.Error):
            found.update((c.pid, c) for c in p.children(recursive=True))
    return list(found.values())


def start_cluster(nodes: int = 2, cpus_per_node: int = 1) -> RayCluster:
    """A head and ``nodes - 1`` nodes joined to it, each bounded by the ``ray_node_start`` deadline. A node that
    does not start stops what was started and raises RayClusterError with the tail of its output."""
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise ValueError(f"nodes must be an int >= 1; got {nodes!r}")
    folder = workdir.create("raycl")
    token = folder / "token"
    token.write_text(_TOKEN)
    token.chmod(0o600)
    port = free_port()
    cluster = RayCluster(folder=folder, address=f"127.0.0.1:{port}",
                         env={"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token),
                              "RAY_USAGE_STATS_ENABLED": "0"})
    try:
        for index in range(nodes):
            _start_node(cluster, index, cpus_per_node)
    except BaseException:
        stop_cluster(cluster)
        raise
    _use_token(cluster)
    return cluster


def _start_node(cluster: RayCluster, index: int, cpus: int) -> None:
    node = cluster.folder / str(index)
    node.mkdir()
    cluster.nodes.append(node)
    common = ["--node-ip-address", "127.0.0.1", "--temp-dir", str(node), "--num-cpus", str(cpus),
              "--object-store-memory", str(NODE_OBJECT_STORE_BYTES), "--disable-usage-stats"]
    if index == 0:
        head_port = cluster.address.rsplit(":", 1)[1]
        role = ["--head", "--port", head_port, "--include-dashboard=false", "--dashboard-port", str(free_port())]
    else:
        role = ["--address", cluster.address]
    log = cluster.folder / f"node-{index}.log"
    command = [_ray_executable(), "start", *role, *common]
    try:
        with log.open("w") as out:
            done = subprocess.run(command, cwd=node, env={**os.environ, **cluster.env}, stdout=out,
                                  stderr=subprocess.STDOUT, timeout=deadlines.deadline("ray_node_start"),
                                  check=False)
    except subprocess.TimeoutExpired:
        raise RayClusterError(f"Ray node {index} did not start within {deadlines.deadline('ray_node_start'):.0f} s"
                              f": {_tail(log)}") from None
    finally:
        _register(cluster, index)
    if done.returncode != 0:
        raise RayClusterError(f"`ray start` of node {index} exited with {done.returncode}: {_tail(log)}")


def _register(cluster: RayCluster, index: int) -> None:
    """Puts the node's processes in the pid registry (run.py's sweep ends them if this process dies first), with no
    SIGTERM grace: a raylet took 9 s to end on SIGTERM, and a test cluster holds nothing to save."""
    for p in cluster.node_processes(index):
        with contextlib.suppress(psutil.Error, OSError):
            registry.register(p.pid, role=f"ray-node-{index}", cwd=str(cluster.folder), grace=0)
            cluster.registered.append(p.pid)


def _ray_executable() -> str:
    """The ``ray`` command of this interpreter's environment (the venv's, whatever PATH says)."""
    return str(Path(sys.executable).with_name("ray"))


def _tail(log: Path, lines: int = 6) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return "(no output)"


def _use_token(cluster: RayCluster) -> None:
    """This process joins the cluster with its token (saved values come back in `stop_cluster`)."""
    for name in AUTH_ENV:
        cluster.saved_env[name] = os.environ.get(name)
        os.environ[name] = cluster.env[name]
    _reset_token_cache()


def _restore_env(cluster: RayCluster) -> None:
    for name, value in cluster.saved_env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    cluster.saved_env.clear()
    _reset_token_cache()


def _reset_token_cache() -> None:
    """Ray's token loader caches the token it read; a later local instance must read its own."""
    if "ray" in sys.modules:
        with contextlib.suppress(Exception):
            from ray._raylet import AuthenticationTokenLoader

            AuthenticationTokenLoader.instance().reset_cache()


def lose_node(cluster: RayCluster, index: int) -> int:
    """SIGKILLs every process of node ``index`` (raylet, agents, workers) at once; returns how many."""
    if not 0 < index < len(cluster.nodes):
        raise ValueError(f"index must name a node other than the head (1..{len(cluster.nodes) - 1}); got {index}")
    procs = cluster.node_processes(index)
    for p in procs:
        with contextlib.suppress(psutil.Error):
            p.kill()
    registry.wait_ended(procs, deadlines.deadline("kill"))
    return len(procs)


def live_nodes(cluster: RayCluster) -> list[int]:
    """The nodes whose raylet is alive."""
    return [i for i in range(len(cluster.nodes)) if any(_is_raylet(p) for p in cluster.node_processes(i))]


def _is_raylet(p: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return _alive(p) and p.name() == "raylet"
    return False


def worker_on_node(cluster: RayCluster, workers: list[dict], index: int) -> int:
    """The id of the load worker that ran on node ``index``: the one whose working folder is the node's."""
    found = [w["id"] for w in workers if w.get("cwd") == str(cluster.nodes[index])]
    if len(found) != 1:
        raise AssertionError(f"{len(found)} workers ran on node {index} ({cluster.nodes[index]}): "
                             f"{[(w['id'], w.get('cwd')) for w in workers]}")
    return found[0]


def lose_node_during_run(cluster: RayCluster, index: int, after_s: float) -> threading.Thread:
    """On a thread of its own (a run in this thread goes on meanwhile): waits until a load worker of node
    ``index`` runs its shard (Ray titles the process ``ray::LoadWorker.run`` then), ``after_s`` seconds more,
    then `lose_node`. Starting a worker takes seconds that vary with the machine's load, so the loss is timed
    from the run, not from now. Gives up after the ``ray_worker_run`` deadline without a run."""
    thread = threading.Thread(target=_lose_when_running, args=(cluster, index, after_s), daemon=True,
                              name=f"lose-ray-node-{index}")
    thread.start()
    return thread


def _lose_when_running(cluster: RayCluster, index: int, after_s: float) -> None:
    end = time.monotonic() + deadlines.deadline("ray_worker_run")
    while time.monotonic() < end:
        if any(_runs_shard(p) for p in cluster.node_processes(index)):
            time.sleep(after_s)
            lose_node(cluster, index)
            return
        time.sleep(WATCH_INTERVAL_S)


def _runs_shard(p: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return p.cmdline()[:1] == [RUN_TITLE]
    return False


def stop_cluster(cluster: RayCluster) -> dict[str, Any]:
    """Ends every process under the cluster's folder (SIGKILL), takes them out of the registry, removes the
    folder and puts the auth variables back. Returns what it did; raises RayClusterError if a process is still
    there afterwards."""
    _restore_env(cluster)
    procs = processes_under(cluster.folder)
    for p in procs:  # as `ray stop --force`: a test cluster holds nothing to save, and a raylet took 9 s on SIGTERM
        with contextlib.suppress(psutil.Error):
            p.kill()
    registry.wait_ended(procs, deadlines.deadline("kill"))  # a daemon's zombie counts as gone: init reaps it
    for pid in {p.pid for p in procs} | set(cluster.registered):
        registry.unregister(pid)
    left = leftovers(cluster.folder)
    workdir.remove(cluster.folder)
    if left:
        raise RayClusterError(f"Ray processes outlived the cluster's stop: {'; '.join(left)}")
    return {"stopped": len(procs)}


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def leftovers(folder: str | Path) -> list[str]:
    """``pid name`` of every live process under ``folder`` (zombies excluded: they hold no resource and are
    their parent's to reap)."""
    out = []
    for p in processes_under(folder):
        with contextlib.suppress(psutil.Error):
            if _alive(p):
                out.append(f"{p.pid} {p.name()}")
    return out
