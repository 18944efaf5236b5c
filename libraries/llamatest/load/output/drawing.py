"""The charts of a run, drawn here (`charts`) or in worker processes beside the rest of the keyword (`draw_beside`).

A run's charts (see ``charts``) take most of a second of one core, nearly all of it matplotlib's own Python
(tick objects, text layout), so threads would only queue for the GIL. `draw_beside` hands them to two worker
processes, which draw them side by side on the cores the finished run has left idle, while the keyword
compares the run with the previous one and saves it; `Drawing.paths` waits for them before the keyword
returns, so no chart is drawn while requests are being timed. The workers are forked once and kept for the
life of the process, at `prepare` (while a run's prompts are made; `ready` then holds the run's requests until
both have started) or else at the first drawing: matplotlib is imported once in each, and in this process only
when it draws itself. Where a fork is not safe (Ray's gRPC threads running here) or not available, the charts
are drawn here, one after the other; so they are when a worker died (its pool is then replaced at the next
drawing). Either way the files and their bytes are the same.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from llamatest import deadlines
from llamatest.server.registry import die_with_parent

WORKERS = 2  # the machine's two cores: the run is over, so both are the charts' (more would only queue)
Job = tuple[str, tuple, dict]  # (a drawing function of ``charts``, its arguments, its named arguments)
_POOL: list[ProcessPoolExecutor] = []  # the workers, once forked
_STARTING: list[Future] = []  # prepare's job, done once both workers have started: what ready waits for


def chart_jobs(summary: Mapping[str, Any], outdir: str | Path, *, previous: Mapping[str, Any] | None = None,
               baseline: Mapping[str, Any] | None = None, sweep: Any = None, requests: Iterable[Any] | None = None,
               baseline_name: str | None = None) -> list[Job]:
    """The charts of one run into ``outdir``, in the order `charts` returns them (see its documentation)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    if baseline is not None and not baseline_name:
        from llamatest.load.output.charts import _dig  # matplotlib imported here: only a baseline run needs it

        baseline_name = _dig(baseline, "baseline", "name") or _dig(baseline, "run", "server_build")
    overlays = {"previous": previous, "baseline": baseline, "baseline_name": baseline_name}
    jobs: list[Job] = [("latency_chart", (summary, outdir / "latency_percentiles.png"), overlays),
                       ("distribution_chart", (summary, outdir / "distributions.png"), overlays),
                       ("timeseries_chart", (summary, outdir / "timeseries.png"), overlays),
                       ("server_chart", (summary, outdir / "server_series.png"), {})]
    if requests is not None:
        jobs.append(("timeline_chart", (list(requests), outdir / "timeline.png"), {"window": summary.get("window")}))
    if sweep is not None:
        jobs.append(("sweep_charts", (sweep, outdir / "sweep_latency.png", outdir / "sweep_throughput.png"),
                     {"slo": summary.get("slo"), "baseline_name": baseline_name}))
    return jobs


def charts(summary: Mapping[str, Any], outdir: str | Path, **overlays: Any) -> list[Path]:
    """Write the charts of one run into ``outdir`` in this process; return their paths.

    ``previous`` and ``baseline`` are summaries to overlay (the baseline's name comes from
    ``baseline["baseline"]["name"]`` unless ``baseline_name`` is given). ``requests`` (RequestRecords or
    their dicts) adds the request timeline. ``sweep`` is a list of points (summaries, ``(load, summary)``
    pairs or ``{"load", "summary"}``), or ``{"current": points, "previous": points, "baseline": points}``.
    A chart with nothing to show is not written (see ``charts``).
    """
    return _paths(draw(job) for job in chart_jobs(summary, outdir, **overlays))


def draw(job: Job) -> Path | list[Path] | None:
    """Draws one chart (in a worker or here): matplotlib is imported with the first."""
    from llamatest.load.output import charts as drawn

    name, args, kwargs = job
    return getattr(drawn, name)(*args, **kwargs)


def _draw_pickled(job: bytes) -> Path | list[Path] | None:
    return draw(pickle.loads(job))


class Drawing:
    """Charts being drawn by the workers (or owed, to be drawn here): `paths` waits for them."""

    def __init__(self, jobs: list[Job]):
        self.jobs = jobs
        self.futures: list[Future] | None = None
        pool = _pool()
        if pool is not None:
            try:
                # Pickled now, not by the pool's feeder thread later: the caller goes on with these summaries.
                self.futures = [pool.submit(_draw_pickled, pickle.dumps(job, pickle.HIGHEST_PROTOCOL)) for job in jobs]
            except BrokenProcessPool:
                _POOL.clear()  # a worker died since the last drawing: these are drawn here, the next forks anew

    def paths(self) -> list[Path]:
        """The charts' paths once all are drawn; a chart's error is raised here, as if it was drawn here."""
        if self.futures is None:
            return _paths(draw(job) for job in self.jobs)
        limit = deadlines.deadline("charts")
        end = time.monotonic() + limit
        try:
            return _paths(f.result(timeout=max(0.0, end - time.monotonic())) for f in self.futures)
        except BrokenProcessPool:
            _POOL.clear()
            return _paths(draw(job) for job in self.jobs)
        except TimeoutError:
            raise RuntimeError(f"the charts of {self.jobs[0][1][1].parent} were not drawn within {limit:g} s") from None


def draw_beside(jobs: list[Job]) -> Drawing:
    """Starts drawing ``jobs`` in the workers and returns at once (see the module documentation)."""
    return Drawing(jobs)


def prepare() -> None:
    """Forks the workers now, so that they import matplotlib while the caller makes a run's prompts rather than
    when its first charts are due; `ready` (before any request is timed) waits until they are idle."""
    pool = _pool()
    if pool is not None and not _STARTING:
        with contextlib.suppress(BrokenProcessPool):
            _STARTING.append(pool.submit(int))  # a fork pool forks all its workers at the first submit


def ready() -> None:
    """Returns once the workers `prepare` forked have started (matplotlib imported): until then they take the cores
    that a run's timed requests must have. A worker that died on the way only leaves its charts to this process."""
    if not _STARTING:
        return
    limit = deadlines.deadline("charts")
    try:
        _STARTING[0].result(timeout=limit)  # a job runs after its worker's start, whose barrier waits for both
    except BrokenProcessPool:
        _POOL.clear()
    except TimeoutError:
        raise RuntimeError(f"the chart workers did not start within {limit:g} s") from None
    finally:
        _STARTING.clear()


def _pool() -> ProcessPoolExecutor | None:
    if not _POOL:
        ray = sys.modules.get("ray")
        if "fork" not in multiprocessing.get_all_start_methods() or (ray is not None and ray.is_initialized()):
            return None
        context = multiprocessing.get_context("fork")
        _POOL.append(ProcessPoolExecutor(WORKERS, mp_context=context, initializer=_worker_start,
                                         initargs=(context.Barrier(WORKERS), os.getpid())))
    return _POOL[0]


def _worker_start(started: Any, parent: int) -> None:
    """A worker is a fork of this process: it must leave this process's outputs alone. Logging handlers go (Robot's
    writes to the parent's open output.xml, whose unwritten buffer the fork copied: matplotlib's font look-ups
    log at DEBUG and would interleave it into the file); Ctrl-C is the parent's to handle (it ends the workers),
    and the worker ends with its ``parent`` (killed, the parent would leave it waiting for jobs forever).
    Then it imports matplotlib and waits at ``started`` for the other worker: no job runs before both have."""
    logging.root.handlers.clear()
    logging.root.setLevel(logging.WARNING)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # first: the parent's death is told with SIGTERM
    die_with_parent()
    if os.getppid() != parent:
        os._exit(0)  # the parent died before the line above: nothing would have ended this worker
    from llamatest.load.output import charts  # noqa: F401 (imported for the drawings to come)

    started.wait(deadlines.deadline("charts"))


def _paths(results: Iterable[Path | list[Path] | None]) -> list[Path]:
    out: list[Path] = []
    for result in results:
        out.extend(result if isinstance(result, list) else [result] if result is not None else [])
    return out
