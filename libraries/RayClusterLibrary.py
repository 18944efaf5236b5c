"""Robot facade of llamatest.load.engine.raycluster: a Ray cluster of several nodes on this machine, a node lost on
purpose, and the verdicts on where a sharded load run's workers ran."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest.load.analysis import verdicts as _verdicts
from llamatest.load.engine import raycluster
from llamatest.load.pipeline import LoadRun


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class RayClusterLibrary:
    """Starts a Ray cluster the way a user does (``ray start --head``, then ``ray start --address`` per node), each
    node with one CPU and a temp folder of its own, and stops exactly its processes (never ``ray stop``, which
    ends every Ray process of the user).

    | Suite Setup       `Start Ray Cluster`    nodes=${2}
    | Suite Teardown    `Stop Ray Cluster`
    | ${address} =    `Ray Cluster Address`
    | ${run} =    Run Load Profile    ${prompts}    rate    rate=${4}    duration=${8}    workers=${2}
    | ...    ray_address=${address}
    | `Load Run Should Have Spread Workers Over Nodes`    ${run}    ${2}

    Every process of the cluster is in the pid registry that run.py sweeps, so a run killed before its
    teardown leaves no Ray process either.
    """

    def __init__(self) -> None:
        self._cluster: raycluster.RayCluster | None = None
        self._last_folder: str | None = None

    @keyword("Start Ray Cluster")
    def start_ray_cluster(self, nodes: int = 2, cpus_per_node: int = 1) -> str:
        """Starts a head and ``nodes - 1`` nodes joined to it and returns the head's ``HOST:PORT``."""
        if self._cluster is not None:
            raise RuntimeError(f"a Ray cluster is running already at {self._cluster.address}: stop it first")
        self._cluster = raycluster.start_cluster(int(nodes), int(cpus_per_node))
        self._last_folder = str(self._cluster.folder)
        logger.info(f"Ray cluster at {self._cluster.address}: {len(self._cluster.nodes)} nodes under "
                    f"{self._cluster.folder}")
        return self._cluster.address

    @keyword("Ray Cluster Address")
    def ray_cluster_address(self) -> str:
        """The running cluster's head, ``HOST:PORT``: what ``ray_address`` of `Run Load Profile` takes."""
        return self._running().address

    @keyword("Stop Ray Cluster")
    def stop_ray_cluster(self) -> None:
        """Ends every process of the cluster (SIGKILL, as ``ray stop --force``) and removes its folder; nothing to
        do when none runs. Fails if a process outlived it."""
        cluster, self._cluster = self._cluster, None
        if cluster is not None:
            report = raycluster.stop_cluster(cluster)
            logger.info(f"Ray cluster stopped: {report['stopped']} processes")

    @keyword("Lose Ray Node")
    def lose_ray_node(self, node: int = 1) -> None:
        """SIGKILLs every process of ``node`` (not the head) now."""
        count = raycluster.lose_node(self._running(), int(node))
        logger.info(f"Ray node {node}: {count} processes killed")

    @keyword("Lose Ray Node During The Next Run")
    def lose_ray_node_during_the_next_run(self, seconds: float, node: int = 1) -> None:
        """SIGKILLs every process of ``node`` (not the head) ``seconds`` after a load worker on it began its shard,
        while the test goes on: a machine that drops off the network in the middle of the next sharded run."""
        raycluster.lose_node_during_run(self._running(), int(node), float(seconds))

    @keyword("Ray Cluster Should Run Nodes")
    def ray_cluster_should_run_nodes(self, count: int) -> None:
        """Exactly ``count`` of the cluster's nodes have a live raylet (the process that makes a machine a node)."""
        live = raycluster.live_nodes(self._running())
        if len(live) != int(count):
            raise AssertionError(f"{len(live)} Ray nodes run ({live}), expected {count}")

    @keyword("No Ray Process Should Be Left")
    def no_ray_process_should_be_left(self) -> None:
        """No live process names the folder of the cluster stopped last (a psutil scan of every process)."""
        if self._last_folder is None:
            raise AssertionError("no Ray cluster was started")
        left = raycluster.leftovers(self._last_folder)
        if left:
            raise AssertionError(f"Ray processes left under {self._last_folder}: {'; '.join(left)}")

    @keyword("Load Run Should Have Spread Workers Over Nodes")
    def load_run_should_have_spread_workers_over_nodes(self, load_run: LoadRun, nodes: int) -> None:
        """The run's workers ran on ``nodes`` different Ray nodes, none was lost, and each sent exactly the
        requests its share of the profile scheduled."""
        _verdicts.workers_spread(load_run.run.workers, load_run.name, int(nodes))

    @keyword("Load Run Should Have Lost The Worker Of Node")
    def load_run_should_have_lost_the_worker_of_node(self, load_run: LoadRun, node: int) -> None:
        """The worker that ran on ``node`` (found by its working folder, the node's) alone was lost, the
        ``worker_lost`` validity flag is set, every request of its share is counted missing, and the run counts
        only what the other workers sent."""
        worker = raycluster.worker_on_node(self._running(), load_run.run.workers, int(node))
        entry = _verdicts.worker_lost(load_run.summary, load_run.run.workers, load_run.name, worker)
        logger.info(f"worker {worker} lost at {entry['lost_at_s']:.1f} s: sent {entry['sent']} by its last report, "
                    f"{entry['answers_missing']} answers missing")

    def _running(self) -> raycluster.RayCluster:
        if self._cluster is None:
            raise RuntimeError("no Ray cluster runs: call Start Ray Cluster first")
        return self._cluster
