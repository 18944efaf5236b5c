"""drawing.py: the charts drawn by the worker processes are the files, and bytes, drawn here; errors and dead
workers are handled as if the charts were drawn here."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest
from test_load_charts import requests, run_summary, sweep_points

from llamatest.load.output import drawing


@pytest.fixture
def own_workers(monkeypatch):
    """Workers of this test's own, ended after it (the module's are kept for the other tests)."""
    monkeypatch.setattr(drawing, "_POOL", [])
    monkeypatch.setattr(drawing, "_STARTING", [])
    yield drawing._POOL
    for pool in drawing._POOL:
        pool.shutdown()


def overlays() -> dict:
    baseline = run_summary(scale=1.2, seed=2)
    baseline["baseline"] = {"name": "release-b4321"}
    return {"previous": run_summary(seed=1), "baseline": baseline, "requests": requests(),
            "sweep": {"current": sweep_points(1.0), "previous": sweep_points(1.1)}}


def test_the_workers_draw_the_same_files_and_bytes_as_this_process(tmp_path):
    summary = run_summary(slo={"ttft_ms": 150})
    here = drawing.charts(summary, tmp_path / "here", **overlays())
    beside = drawing.draw_beside(drawing.chart_jobs(summary, tmp_path / "beside", **overlays()))
    assert beside.futures is not None, "drawn by the workers"
    paths = beside.paths()
    assert [p.name for p in paths] == [p.name for p in here] == [
        "latency_percentiles.png", "distributions.png", "timeseries.png", "timeline.png", "sweep_latency.png",
        "sweep_throughput.png"]
    assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in here]
    assert drawing._POOL, "the workers are kept for the next drawing"


def test_a_chart_that_fails_in_a_worker_raises_its_error_here(tmp_path):
    jobs = [("latency_chart", ({"metrics": {}}, tmp_path / "x" / "no-such-folder" / "l.png"), {})]
    with pytest.raises(FileNotFoundError):
        drawing.draw_beside(jobs).paths()


def test_charts_owed_by_a_dead_worker_are_drawn_here_and_the_next_drawing_forks_new_workers(tmp_path):
    drawing.draw_beside(drawing.chart_jobs(run_summary(), tmp_path / "first")).paths()
    pool = drawing._POOL[0]
    for pid in list(pool._processes):
        os.kill(pid, signal.SIGKILL)
    paths = drawing.draw_beside(drawing.chart_jobs(run_summary(), tmp_path / "second")).paths()
    assert [p.name for p in paths] == ["latency_percentiles.png", "distributions.png", "timeseries.png"]
    after = drawing.draw_beside(drawing.chart_jobs(run_summary(), tmp_path / "third"))
    assert after.futures is not None and drawing._POOL[0] is not pool
    assert len(after.paths()) == 3


def test_with_ray_running_here_no_worker_is_forked(tmp_path, monkeypatch):
    monkeypatch.setattr(drawing, "_POOL", [])
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(is_initialized=lambda: True))
    owed = drawing.draw_beside(drawing.chart_jobs(run_summary(), tmp_path))
    assert owed.futures is None and drawing._POOL == []
    assert [p.name for p in owed.paths()] == ["latency_percentiles.png", "distributions.png", "timeseries.png"]


def test_a_worker_leaves_the_logging_and_ctrl_c_of_the_process_it_was_forked_from_alone(monkeypatch):
    # Robot's logging handler writes to the parent's open output.xml: a fork's copy of it would corrupt the file.
    handlers = [logging.NullHandler()]
    monkeypatch.setattr(logging.root, "handlers", handlers)
    monkeypatch.setattr(logging.root, "level", logging.DEBUG)
    installed = {}
    monkeypatch.setattr(signal, "signal", lambda signum, handler: installed.__setitem__(signum, handler))
    tied = []
    monkeypatch.setattr(drawing, "die_with_parent", lambda: tied.append(True))
    drawing._worker_start(threading.Barrier(1), os.getppid())
    assert handlers == [] and logging.root.level == logging.WARNING
    assert installed == {signal.SIGINT: signal.SIG_IGN, signal.SIGTERM: signal.SIG_DFL}
    assert tied == [True], "a worker ends with the process it was forked from"


def test_a_worker_ends_with_the_process_it_was_forked_from(tmp_path):
    # A process that forks the workers, then is killed: its workers must not stay behind, waiting for jobs.
    script = tmp_path / "parent.py"
    script.write_text("import os, sys\nfrom llamatest.load.output import drawing\ndrawing.prepare()\ndrawing.ready()\n"
                      "print(' '.join(str(p) for p in drawing._POOL[0]._processes), flush=True)\n"
                      "os.kill(os.getpid(), 9)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    workers = [int(pid) for pid in done.stdout.split()]
    assert len(workers) == drawing.WORKERS, done.stderr
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() and "Z" not in _state(pid) for pid in workers):
        assert time.monotonic() < deadline, f"workers {workers} outlived their parent"
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def test_prepared_workers_have_started_when_ready_returns(own_workers, tmp_path):
    drawing.ready()  # nothing prepared: nothing to wait for
    assert own_workers == []
    drawing.prepare()
    drawing.prepare()  # once is enough
    assert len(drawing._STARTING) == 1
    drawing.ready()
    assert drawing._STARTING == [] and len(own_workers[0]._processes) == drawing.WORKERS
    assert len(drawing.draw_beside(drawing.chart_jobs(run_summary(), tmp_path)).paths()) == 3


def test_a_worker_that_dies_while_starting_leaves_the_charts_to_this_process(own_workers, tmp_path, monkeypatch):
    start = drawing._worker_start
    monkeypatch.setattr(drawing, "_worker_start", lambda *_: time.sleep(60))  # forked: a start that hangs
    drawing.prepare()
    monkeypatch.setattr(drawing, "_worker_start", start)  # the next workers start as they should
    os.kill(next(iter(own_workers[0]._processes)), signal.SIGKILL)
    drawing.ready()
    assert own_workers == [], "the broken pool is dropped"
    assert len(drawing.draw_beside(drawing.chart_jobs(run_summary(), tmp_path)).paths()) == 3
