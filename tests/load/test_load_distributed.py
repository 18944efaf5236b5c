"""Sharded runs: the merge of worker event logs (no Ray needed), and one real run on 2 local Ray workers
against the fixture server's chat stream (tests/fixtures/http_server.py), whose counts and percentiles must be exact."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest

from llamatest import deadlines
from llamatest.load.analysis import metrics
from llamatest.load.analysis.summary import summarize
from llamatest.load.engine.record import LoadEvent, RequestRecord, RunRecord


def worker_run(t0_wall: float, ttfts_s: list[float], *, gap_s: float = 0.1) -> RunRecord:
    """A worker's run: request k scheduled at k*gap_s, dispatched on time, first token ttft later, done 10 ms on."""
    requests = []
    for k, ttft in enumerate(ttfts_s):
        t = k * gap_s
        events = [LoadEvent(t=t + ttft / 2, kind="role"), LoadEvent(t=t + ttft, kind="content", n_chars=3),
                  LoadEvent(t=t + ttft + 0.01, kind="content", n_chars=3), LoadEvent(t=t + ttft + 0.011, kind="done")]
        requests.append(RequestRecord(index=k, t_scheduled=t, t_dispatched=t, t_headers=t + ttft / 2,
                                      t_done=t + ttft + 0.011, t_closed=t + ttft + 0.012, status=200,
                                      outcome="finish_length", events=events, request_id=f"r{t0_wall}-{k}"))
    return RunRecord(profile={"kind": "rate"}, target={"base_url": "http://x"}, t0_wall=t0_wall, t0_perf=50.0,
                     window=(0.0, len(ttfts_s) * gap_s), requests=requests, loop_lag=[(0.5, 0.001)],
                     cpu=[(1.0, 20.0)], in_flight_at_window_end=1, meta={"engine": {"run_id": str(t0_wall)}})


def test_merge_moves_every_time_onto_the_driver_axis_and_renumbers():
    from llamatest.load.engine.distributed import merge_runs

    # Worker 1's clock is 2 s ahead of the driver's and it started 0.05 s (driver time) after t0.
    runs = [worker_run(1000.0, [0.02, 0.03]), worker_run(1002.05, [0.04])]
    merged = merge_runs(runs, offsets=[0.0, 2.0], t0_wall=1000.0, t0_perf=7.0)
    assert (merged.t0_wall, merged.t0_perf) == (1000.0, 7.0)
    assert [(r.index, r.worker) for r in merged.requests] == [(0, 0), (1, 1), (2, 0)]
    assert [r.t_scheduled for r in merged.requests] == pytest.approx([0.0, 0.05, 0.1])
    moved = merged.requests[1]
    assert moved.t_dispatched == pytest.approx(0.05) and moved.events[1].t == pytest.approx(0.09)
    assert metrics.request_metrics(moved)["ttft"] == pytest.approx(40.0)  # durations are untouched
    assert merged.loop_lag == [(0.5, 0.001), (pytest.approx(0.55), 0.001)]
    assert merged.window == (0.0, pytest.approx(0.2))  # from the first start to the last end
    assert merged.in_flight_at_window_end == 2
    assert [(w["id"], w["requests"], w["offset_s"]) for w in merged.workers] == [(0, 2, 0.0), (1, 1, 2.0)]
    assert merged.workers[1]["start_skew_s"] == pytest.approx(0.05)


def test_merged_percentiles_are_those_of_the_union_not_of_the_workers():
    from llamatest.load.engine.distributed import merge_runs

    fast = [0.010 + 0.001 * k for k in range(60)]
    slow = [0.200 + 0.010 * k for k in range(40)]
    merged = merge_runs([worker_run(0.0, fast), worker_run(0.0, slow)], offsets=[0.0, 0.0], t0_wall=0.0,
                        t0_perf=0.0)
    union_ms = np.array(fast + slow) * 1000
    got = summarize(merged)["metrics"]["ttft_ms"]
    assert got["n"] == 100
    for name, q in (("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99)):
        assert got[name] == pytest.approx(np.percentile(union_ms, q))
    per_worker_p95 = [np.percentile(np.array(x) * 1000, 95) for x in (fast, slow)]
    assert got["p95"] != pytest.approx(np.mean(per_worker_p95))


def test_merge_rejects_mismatched_offsets():
    from llamatest.load.engine.distributed import merge_runs

    with pytest.raises(ValueError, match="one offset per record: 1 records, 2 offsets"):
        merge_runs([worker_run(0.0, [0.01])], offsets=[0.0, 0.0], t0_wall=0.0, t0_perf=0.0)


def test_worker_bodies_interleave_so_no_two_workers_send_the_same_prompt():
    from llamatest.load.engine.distributed import ShardBodies
    from llamatest.load.workloads.datasets import body_maker

    bodies = body_maker([f"p{i}" for i in range(6)], route="/completion", max_tokens=1)
    sent = [ShardBodies(bodies, w, 2)(k)["prompt"] for w in range(2) for k in range(3)]
    assert sent == ["p0", "p2", "p4", "p1", "p3", "p5"]


def test_worker_bodies_give_the_prompt_hash_of_what_they_send():
    from llamatest.load.engine.distributed import ShardBodies
    from llamatest.load.workloads.datasets import body_maker, prompt_hash

    bodies = body_maker([f"p{i}" for i in range(6)], route="/completion", max_tokens=1)
    for inner in (bodies, lambda i: bodies(i)):  # a BodySpec knows its hashes; any other body maker is hashed
        shard = ShardBodies(inner, 1, 2)
        assert [shard.prompt_hash(k) for k in range(4)] == [prompt_hash(shard(k)) for k in range(4)]


def test_merge_moves_the_worker_records_in_place():
    from llamatest.load.engine.distributed import merge_runs

    runs = [worker_run(0.0, [0.02]), worker_run(0.5, [0.03])]
    originals = [r for run in runs for r in run.requests]
    merged = merge_runs(runs, offsets=[0.0, 0.0], t0_wall=0.0, t0_perf=0.0)
    assert all(a is b for a, b in zip(merged.requests, originals, strict=True))
    assert merged.requests[1].events[0].t == pytest.approx(0.5 + 0.015)


def test_importing_the_package_never_imports_ray():
    code = ("import sys, llamatest.load.engine.distributed, llamatest.load.workloads.datasets, "
            "llamatest.load.engine.pacing; "
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"


def test_a_missing_ray_is_a_clear_error(monkeypatch):
    from llamatest.load.engine import distributed

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(distributed.DistributedError, match="distributed runs need Ray"):
        distributed._start_ray(2, None, None)


def test_two_local_ray_workers_merge_exactly(server):
    pytest.importorskip("ray")
    from llamatest.load.engine.client import Target
    from llamatest.load.engine.distributed import run_distributed
    from llamatest.load.engine.profiles import Profile
    from llamatest.load.workloads.datasets import body_maker

    prompts = [f"prompt {i}" for i in range(200)]
    spec = body_maker(prompts, route="/v1/chat/completions", max_tokens=3,
                      extra={"mock_tokens": ["a", "b", "c"], "mock_pause": 0.002})
    profile = Profile(kind="rate", rate=40.0, arrival="poisson", duration_s=2.0, seed=11, drain_timeout_s=5.0)
    run = run_distributed(Target(base_url=server), profile, spec, workers=2)

    assert len(run.requests) == sum(w["requests"] for w in run.workers) > 20
    assert len(run.measured) == sum(w["measured"] for w in run.workers)
    assert all(r.ok for r in run.requests), [r.error_detail for r in run.requests if not r.ok][:3]
    assert [r.index for r in run.requests] == list(range(len(run.requests)))
    assert len({r.request_id for r in run.requests}) == len(run.requests)
    assert {r.worker for r in run.requests} == {0, 1}

    assert [w["id"] for w in run.workers] == [0, 1]
    assert all(w["host"] and w["pid"] for w in run.workers)
    assert len({w["pid"] for w in run.workers}) == 2
    assert all(Path(w["cwd"]).name.startswith("llamatest-ray-") for w in run.workers)  # never the checkout
    assert not Path(run.workers[0]["cwd"]).exists()  # removed with the instance
    assert all(0 <= w["bound_s"] < 0.5 and abs(w["offset_s"]) < 0.5 for w in run.workers)
    assert run.workers[0]["seed"] != run.workers[1]["seed"]
    schedules = [sorted(r.t_scheduled for r in run.requests if r.worker == w) for w in (0, 1)]
    assert schedules[0][:5] != schedules[1][:5]  # independent arrival processes
    assert run.meta["distributed"]["workers"] == 2 and run.profile == profile.as_dict()

    ttft = [metrics.request_metrics(r)["ttft"] for w in (0, 1) for r in run.measured if r.worker == w]
    got = summarize(run)["metrics"]["ttft_ms"]
    assert got["n"] == len(ttft)
    assert got["p50"] == pytest.approx(np.percentile(ttft, 50))
    assert got["p90"] == pytest.approx(np.percentile(ttft, 90))
    assert not ray_is_running(), "run_distributed started Ray, so it must stop it"


def ray_is_running() -> bool:
    import ray

    return ray.is_initialized()


class RayProcessWatcher:
    """Polls this process's descendants while a run goes on and keeps every Ray process it sees (psutil objects:
    a recycled pid never counts as the same process)."""

    def __init__(self, ray_dir: str, interval_s: float = 0.05):
        import psutil

        self.me, self.ray_dir, self.interval_s = psutil.Process(), ray_dir, interval_s
        self.seen: dict[int, psutil.Process] = {}
        self.cmdlines: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self):
        import psutil

        while not self._stop.is_set():
            for p in self.me.children(recursive=True):
                try:
                    cmdline = " ".join(p.cmdline())
                except psutil.Error:
                    continue
                if p.pid not in self.seen and (cmdline.startswith("ray::") or self.ray_dir in cmdline):
                    self.seen[p.pid] = p
                    self.cmdlines.append(cmdline)
            self._stop.wait(self.interval_s)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def test_a_local_ray_leaves_no_process_behind_and_stays_quiet_and_out_of_the_repo(server, monkeypatch, capfd):
    ray = pytest.importorskip("ray")
    import psutil

    from llamatest.load.engine.client import Target
    from llamatest.load.engine.distributed import run_distributed
    from llamatest.load.engine.profiles import Profile

    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)  # as on a first run: Ray would announce token auth
    monkeypatch.delenv("RAY_TMPDIR", raising=False)
    spec = {"prompts": ["p"], "route": "/v1/chat/completions", "max_tokens": 1, "extra": {"mock_tokens": ["a"]}}
    profile = Profile(kind="concurrency", users=2, duration_s=0.3, drain_timeout_s=2.0)
    with RayProcessWatcher(os.path.dirname(ray.__file__)) as watcher:
        run = run_distributed(Target(base_url=server), profile, spec, workers=2)

    assert len(watcher.seen) >= 4, watcher.cmdlines  # at least gcs_server, raylet and the 2 workers
    _, alive = psutil.wait_procs(list(watcher.seen.values()), timeout=3.0)
    assert alive == [], [p.pid for p in alive]
    stats = run.meta["distributed"]
    assert stats["local_processes"] >= len(watcher.seen) and stats["left_running"] == 0
    assert 0 <= stats["stopped_forcibly"] <= stats["local_processes"]
    session_root = os.path.join(tempfile.gettempdir(), "llamatest-ray")
    assert any(session_root in cmdline for cmdline in watcher.cmdlines), watcher.cmdlines
    assert "Token authentication" not in capfd.readouterr().err


def test_ray_processes_that_do_not_exit_are_terminated_and_others_are_left_alone(tmp_path):
    pytest.importorskip("psutil")
    from llamatest.load.engine.distributed import _RayProcesses

    session_dir = str(tmp_path / "session_x")
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(30)"
    tracker = _RayProcesses()
    ray_like = subprocess.Popen([sys.executable, "-c", stubborn, session_dir])
    unrelated = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        tracker.collect(session_dir)
        assert list(tracker.processes) == [ray_like.pid]
        tracker.stop(grace_s=0.2, term_s=1.0)
        assert (tracker.forced, tracker.left) == (1, 0)
        assert ray_like.wait(timeout=5) is not None and unrelated.poll() is None
    finally:
        for child in (ray_like, unrelated):
            child.kill()
            child.wait(timeout=5)


class BodiesThatCannotTravel:
    """Picklable on the driver, but its class lives in this test module, which the workers cannot import."""

    def __call__(self, index):
        return {}


def test_worker_failures_and_overruns_are_clear_errors_and_a_running_ray_is_left_running(server, monkeypatch):
    ray = pytest.importorskip("ray")
    from llamatest.load.engine import distributed
    from llamatest.load.engine.client import Target
    from llamatest.load.engine.profiles import Profile

    distributed._start_ray(2, None, None)
    try:
        profile = Profile(kind="concurrency", users=2, duration_s=0.5, drain_timeout_s=1.0)
        with pytest.raises(distributed.DistributedError, match=r"a Ray worker failed to finish the run: ray::"):
            distributed.run_distributed(Target(base_url=server), profile, BodiesThatCannotTravel(), workers=2)
        monkeypatch.setitem(deadlines.QUIET_S, "ray_margin", -1.5)  # lead 1 s + 1.5 s - 1.5 s: 1 s in all
        monkeypatch.setattr(deadlines, "_read_machine_factor", lambda: 1.0)  # unscaled, busy or not
        monkeypatch.setattr(deadlines, "_factor", [float("-inf"), 1.0])
        hang = {"prompts": ["p"], "route": "/v1/chat/completions", "max_tokens": 1,
                "extra": {"mock_tokens": ["a"], "mock_pause": 20}}
        with pytest.raises(distributed.DistributedError, match="did not finish the run within 1 s"):
            distributed.run_distributed(Target(base_url=server), profile, hang, workers=2)
        assert ray.is_initialized()
    finally:
        ray.shutdown()
