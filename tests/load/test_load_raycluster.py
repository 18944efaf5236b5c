"""A Ray worker lost mid-run, without Ray: what the driver knows of the lost shard, the merged run and its
``worker_lost`` flag, the verdicts and views that name each worker's node and share, the CLI's checks of
``--workers``/``--ray-address``, and the process scan that stops a test cluster (raycluster.py). With Ray: a test
cluster whose owner was killed is ended by the sweep of the pid registry."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_load_distributed import worker_run

from llamatest.load import cli
from llamatest.load.analysis import validity, verdicts
from llamatest.load.analysis.summary import summarize
from llamatest.load.engine import distributed, raycluster
from llamatest.load.engine.profiles import Profile
from llamatest.load.output.textreport import worker_lines
from llamatest.machine import NotJudged
from llamatest.report.load import workers_table
from llamatest.server import registry

RATE = Profile(kind="rate", rate=8.0, arrival="constant", duration_s=3.0, seed=1)


def lost_run(progress: dict | None = None):
    """Worker 0 finished its three requests; worker 1 (on node "n1") was lost 1.5 s in."""
    shards = [RATE.shard(i, 2) for i in range(2)]
    results = [{"record": worker_run(0.0, [0.02, 0.03, 0.04]), "late_s": 0.0}, None]
    lost = {1: {"error": "ActorDiedError: its node died", "lost_at_s": 1.5, "progress": progress}}
    hellos = [{"host": "h", "pid": 10, "cwd": "/c/0", "node_id": "n0"}, {"host": "h", "pid": 11, "cwd": "/c/1",
                                                                        "node_id": "n1"}]
    return distributed._assemble(results, lost, shards, hellos, [(0.0, 0.001), (0.0, 0.002)], t0_wall=0.0,
                                 t0_perf=0.0)


def test_a_lost_open_loop_shard_counts_its_whole_schedule_missing():
    shard = RATE.shard(1, 2)
    entry = distributed.lost_shard(1, shard, error="ActorDiedError: x", lost_at_s=1.5,
                                   progress={"sent": 5, "answered": 4, "at_s": 1.2})
    assert len(shard.schedule()) == 12  # 4/s for 3 s
    assert entry == {"id": 1, "lost": True, "error": "ActorDiedError: x", "lost_at_s": 1.5, "reported_at_s": 1.2,
                     "sent": 5, "answered": 4, "scheduled": 12, "answers_missing": 12, "requests": 0, "measured": 0,
                     "succeeded": 0, "share": 0.0}


def test_a_lost_closed_loop_shard_counts_what_it_reported_sent():
    users = Profile(kind="concurrency", users=2, duration_s=3.0).shard(1, 2)
    entry = distributed.lost_shard(1, users, error="e", lost_at_s=2.0, progress={"sent": 7, "answered": 6,
                                                                                  "at_s": 1.9})
    assert (entry["scheduled"], entry["sent"], entry["answers_missing"]) == (None, 7, 7)
    silent = distributed.lost_shard(1, users, error="e", lost_at_s=0.3, progress=None)
    assert (silent["reported_at_s"], silent["sent"], silent["answered"]) == (None, 0, 0)


def test_merge_keeps_the_ids_of_the_workers_that_finished_and_their_shares():
    merged = distributed.merge_runs([worker_run(0.0, [0.02, 0.03, 0.04]), worker_run(0.0, [0.05])],
                                    offsets=[0.0, 0.0], t0_wall=0.0, t0_perf=0.0, ids=[0, 2])
    assert sorted({r.worker for r in merged.requests}) == [0, 2]
    assert [(w["id"], w["share"]) for w in merged.workers] == [(0, 0.75), (2, 0.25)]
    with pytest.raises(ValueError, match="one id per record: 1 records, 2 ids"):
        distributed.merge_runs([worker_run(0.0, [0.02])], offsets=[0.0], t0_wall=0.0, t0_perf=0.0, ids=[0, 1])


def test_the_merged_run_names_the_lost_worker_beside_the_finished_one():
    run = lost_run({"sent": 5, "answered": 4, "at_s": 1.2})
    assert [(w["id"], w.get("lost", False), w["node_id"], w["share"]) for w in run.workers] == [
        (0, False, "n0", 1.0), (1, True, "n1", 0.0)]
    assert {r.worker for r in run.requests} == {0} and len(run.requests) == 3
    assert [w["scheduled"] for w in run.workers] == [12, 12]


def test_every_worker_lost_is_an_error():
    with pytest.raises(distributed.DistributedError, match="every Ray worker was lost: ActorDiedError: gone"):
        distributed._assemble([None], {0: {"error": "ActorDiedError: gone", "lost_at_s": 1.0, "progress": None}},
                              [RATE], [{"node_id": "n0"}], [(0.0, 0.0)], t0_wall=0.0, t0_perf=0.0)


def test_a_lost_worker_sets_a_machine_side_flag_that_makes_verdicts_not_judged():
    summary = summarize(lost_run({"sent": 5, "answered": 4, "at_s": 1.2}))
    flag = summary["flags"]["worker_lost"]
    assert flag["set"]
    assert flag["detail"] == ("1 of 2 workers lost: worker 1 on node n1 lost at 1.5 s (ActorDiedError: its node "
                              "died): by its last report at 1.2 s it had sent 5 and had 4 answered, of 12 scheduled; "
                              "12 answers missing from the results")
    assert "worker_lost" in validity.MACHINE_SIDE and "worker_lost" in validity.INVALIDATING
    with pytest.raises(NotJudged, match="worker_lost"):
        verdicts.judge(summary, "r", "missed")
    healthy = summarize(worker_run(0.0, [0.02]))["flags"]["worker_lost"]
    assert healthy == {"set": False, "detail": "1 worker(s), none lost"}


def test_the_lost_worker_verdict_checks_the_flag_the_worker_and_the_counts():
    run = lost_run({"sent": 5, "answered": 4, "at_s": 1.2})
    summary = summarize(run)
    assert verdicts.worker_lost(summary, run.workers, "r", 1)["answers_missing"] == 12
    with pytest.raises(AssertionError, match=r"lost worker\(s\) \[1\], expected \[0\]"):
        verdicts.worker_lost(summary, run.workers, "r", 0)
    summary["counts"]["attempted"] += 12  # a run that silently counted the lost shard's requests as its own
    with pytest.raises(AssertionError, match="counts 15 requests, its surviving workers sent 3"):
        verdicts.worker_lost(summary, run.workers, "r", 1)
    clear = summarize(worker_run(0.0, [0.02]))
    with pytest.raises(AssertionError, match="worker_lost is not set"):
        verdicts.worker_lost(clear, [], "r", 1)


def test_workers_spread_wants_every_node_no_loss_and_each_share_sent():
    run = lost_run()
    with pytest.raises(AssertionError, match=r"lost worker\(s\) \[1\]"):
        verdicts.workers_spread(run.workers, "r", 2)
    both = [{"id": 0, "node_id": "a", "requests": 12, "scheduled": 12},
            {"id": 1, "node_id": "b", "requests": 12, "scheduled": 12}]
    verdicts.workers_spread(both, "r", 2)
    with pytest.raises(AssertionError, match=r"on 1 node\(s\), expected 2"):
        verdicts.workers_spread([{**both[0]}, {**both[1], "node_id": "a"}], "r", 2)
    with pytest.raises(AssertionError, match="worker 1 sent 11 of 12"):
        verdicts.workers_spread([both[0], {**both[1], "requests": 11}], "r", 2)


def test_the_views_name_each_workers_node_and_share():
    summary = summarize(lost_run({"sent": 5, "answered": 4, "at_s": 1.2}))
    summary["run"] = {"workers": lost_run({"sent": 5, "answered": 4, "at_s": 1.2}).workers}
    lines = worker_lines(summary["run"]["workers"])
    assert lines == ["workers:", "  0: node n0 (h, pid 10) 3 measured requests (100.0 %), 3 ok",
                     "  1: node n1 (h, pid 11) LOST at 1.5 s: sent 5 by its last report, 12 answers missing"]
    html = workers_table(summary)
    assert ">n1</td>" in html and "lost at 1.5 s: sent 5 by its last report, 12 answers missing" in html
    assert worker_lines(summary["run"]["workers"][:1]) == [] and workers_table({"run": {"workers": []}}) == ""


class FakeRay:
    """``ray.wait``/``ray.get`` over results that are in at once: a value, or an exception to raise."""

    class exceptions:  # noqa: N801 - named as Ray's module
        RayError = type("RayError", (Exception,), {})
        RayActorError = type("RayActorError", (RayError,), {})
        ActorDiedError = type("ActorDiedError", (RayActorError,), {})
        RayTaskError = type("RayTaskError", (RayError,), {})
        GetTimeoutError = type("GetTimeoutError", (RayError,), {})

    def __init__(self, outcomes: list):
        self.outcomes = outcomes

    def wait(self, refs, num_returns, timeout):
        return list(refs), []

    def get(self, ref, timeout):
        outcome = self.outcomes[ref] if isinstance(ref, int) else ref()
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


class FakeActor:
    def __init__(self, sent: int):
        self.progress = type("M", (), {"remote": staticmethod(lambda: lambda: {"sent": sent, "answered": sent,
                                                                                "wall": 101.0})})()


def test_collect_keeps_a_lost_worker_apart_and_raises_for_a_worker_that_failed():
    ray = FakeRay([{"record": "r0"}, FakeRay.exceptions.ActorDiedError("node died")])
    results, lost = distributed._collect(ray, [FakeActor(1), FakeActor(2)], [0, 1], 10.0, time.time(), [0.0, 0.0])
    assert results == [{"record": "r0"}, None]
    assert list(lost) == [1] and lost[1]["error"] == "ActorDiedError: node died" and lost[1]["progress"] is None
    failing = FakeRay([{"record": "r0"}, FakeRay.exceptions.RayTaskError("ray::LoadWorker.run() failed")])
    with pytest.raises(distributed.DistributedError, match=r"a Ray worker failed to finish the run: ray::LoadWorker"):
        distributed._collect(failing, [FakeActor(1), FakeActor(2)], [0, 1], 10.0, time.time(), [0.0, 0.0])


def test_cli_checks_workers_and_the_ray_address_before_the_server(capsys, closed_port_url):
    port = closed_port_url.rsplit(":", 1)[1]
    base = ["run", "--url", closed_port_url, "--rate", "1"]
    assert cli.main([*base, "--workers", "0"]) == cli.EXIT_USAGE
    assert capsys.readouterr().err == "error: --workers 0: give 1 or more workers, e.g. --workers 2\n"
    assert cli.main([*base, "--workers", "2", "--ray-address", "headnode"]) == cli.EXIT_USAGE
    assert capsys.readouterr().err == ("error: --ray-address 'headnode': write HOST:PORT of the cluster's head, e.g. "
                                       "10.0.0.5:6379\n")
    assert cli.main([*base, "--workers", "2", "--ray-address", f"127.0.0.1:{port}"]) == cli.EXIT_USAGE
    assert capsys.readouterr().err == (f"error: --ray-address 127.0.0.1:{port}: nothing answers there "
                                       "(ConnectionRefusedError): start the head with `ray start --head --port "
                                       f"{port}` on 127.0.0.1, or give its address\n")


def test_the_cluster_scan_finds_a_process_by_its_working_folder_and_its_children(tmp_path):
    node = tmp_path / "1"
    node.mkdir()
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                               "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
                               "time.sleep(60)"], cwd=node)
    try:
        deadline = time.monotonic() + 10
        while len(raycluster.processes_under(node)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        found = raycluster.processes_under(node)
        assert parent.pid in {p.pid for p in found} and len(found) == 2
        assert raycluster.processes_under(tmp_path / "2") == []
        for p in found:
            p.kill()
        parent.wait(timeout=10)
        assert registry.wait_ended(found, 5.0) == [] and raycluster.leftovers(node) == []
    finally:
        parent.kill()


def test_a_cluster_whose_owner_was_killed_is_left_to_the_sweep(tmp_path, monkeypatch):
    """A run killed with -9 never reaches its teardown: its cluster's processes are in the pid registry, and the
    sweep run.py makes before the next run ends them all and removes the cluster's folder."""
    pytest.importorskip("ray")
    from llamatest import deadlines, settings

    monkeypatch.setenv(settings.ENV_PID_DIR, str(tmp_path / "pids"))
    code = ("import sys, time; from llamatest.load.engine import raycluster; "
            "print(raycluster.start_cluster(2).folder, flush=True); time.sleep(600)")
    owner = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        folder = owner.stdout.readline().strip()
        assert folder and len(raycluster.leftovers(folder)) >= 8  # GCS, two raylets, their agents and monitors
    finally:
        owner.kill()
        owner.wait(timeout=deadlines.deadline("kill"))
    assert raycluster.leftovers(folder), "killing the owner alone leaves the cluster running"
    registry.sweep(only_orphans=True)
    assert raycluster.leftovers(folder) == []
    assert not Path(folder).exists()
