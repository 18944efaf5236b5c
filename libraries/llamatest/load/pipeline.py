"""Named load runs from start to finish: identify the server, run, derive, save, compare, draw.

This is what the keywords call. The engine (or its Ray shards) produces the raw event logs, ``metrics``
derives the summary, ``results`` writes it, ``history`` finds the previous comparable run and the named
baseline, ``compare`` gives the verdicts and ``charts`` draws the run over both. Sweeps and capacity
searches run their points through the same `Plan`.

The server's build is recorded with every run but is not part of the configuration key: comparing one
build with another (a release build given through ``LLAMA_SERVER_BIN``) is what baselines are for.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from llamatest import deadlines, machine
from llamatest.load.analysis import answers, metrics, noise, soak, sweep, trials
from llamatest.load.analysis.summary import summarize
from llamatest.load.engine.client import Target
from llamatest.load.engine.hostile import NoiseBeside
from llamatest.load.engine.pacing import run_load_sync
from llamatest.load.engine.profiles import Profile
from llamatest.load.engine.record import RunRecord
from llamatest.load.output import drawing, results
from llamatest.load.output.history import History
from llamatest.load.workloads import datasets
from llamatest.load.workloads.datasets import Dataset
from llamatest.load.workloads.noise import NoiseSpec


@dataclass
class LoadRun:
    """What a load keyword returns: the raw run, its summary, the files written and the comparisons."""

    name: str
    run: RunRecord
    summary: dict[str, Any]
    outdir: Path
    paths: dict[str, Path] = field(default_factory=dict)
    charts: list[Path] = field(default_factory=list)
    previous: dict[str, Any] | None = None
    baseline: dict[str, Any] | None = None
    baseline_name: str | None = None
    comparisons: dict[str, dict[str, Any]] = field(default_factory=dict)  # previous/baseline/reference -> compare()
    compat: dict[str, dict[str, Any]] = field(default_factory=dict)  # other tools' definitions, same event logs


@dataclass
class SweepRun:
    """A sweep or a capacity search: its points (each a summary), the result, charts and the previous one."""

    name: str
    kind: str  # "sweep" or "capacity"
    result: dict[str, Any]  # sweep.sweep() or sweep.capacity_under_slo()
    outdir: Path
    charts: list[Path] = field(default_factory=list)
    previous: dict[str, Any] | None = None  # the previous comparable sweep document

    @property
    def points(self) -> list[dict[str, Any]]:
        return self.result.get("points", [])


@dataclass(frozen=True)
class Plan:
    """What stays fixed across the points of a run, a sweep or a capacity search."""

    name: str
    target: Target
    dataset: Dataset
    max_tokens: int
    cold: bool = True
    request_fields: dict[str, Any] = field(default_factory=dict)
    workers: int = 1
    ray_address: str | None = None
    on_tick: Any = None  # pacing.run_load's live progress callback (one process only, not Ray)
    noise: NoiseSpec | None = None  # hostile traffic sent beside every run (engine.hostile)

    @property
    def request_params(self) -> dict[str, Any]:
        # The noise is part of the configuration: a run beside noise is never compared with a quiet one.
        noise_spec = {"noise_spec": self.noise.as_dict()} if self.noise is not None else {}
        return {"route": self.target.route, "max_tokens": self.max_tokens, "cold": self.cold, **self.request_fields,
                **noise_spec}

    @property
    def spec(self) -> dict[str, Any]:
        """``datasets.body_maker``'s arguments (plain data: Ray workers get it as it is)."""
        return {"prompts": list(self.dataset.prompts), "route": self.target.route, "max_tokens": self.max_tokens,
                "cold": self.cold, "extra": dict(self.request_fields), "images": list(self.dataset.images)}

    def run(self, profile: Profile) -> RunRecord:
        """Runs ``profile`` in this process, or sharded over Ray workers; with ``noise``, hostile traffic beside it
        (its record in ``run.meta["noise"]``)."""
        drawing.ready()  # chart workers still starting would take the cores from the timed requests
        if self.noise is None:
            return self._run(profile)
        with NoiseBeside(self.target, self.noise) as beside:
            run = self._run(profile)
        run.meta["noise"] = beside.record
        return run

    def _run(self, profile: Profile) -> RunRecord:
        sharded = self.workers > 1 or self.ray_address
        if sharded and self.dataset.workload is not None:
            raise ValueError(f"the workload '{self.dataset.name}' runs in one process: use workers=1")
        if sharded:
            from llamatest.load.engine.distributed import run_distributed  # Ray is imported only when asked for

            # Worker 0 alone scrapes the server (llama-server resets some gauges on every scrape).
            run = run_distributed(self.target, profile, self.spec, workers=self.workers, address=self.ray_address,
                                  telemetry=True)
        else:
            bodies = self.dataset.bodies(route=self.target.route, max_tokens=self.max_tokens, cold=self.cold,
                                         extra=dict(self.request_fields))
            before = machine.sample()
            run = run_load_sync(self.target, profile, bodies, on_tick=self.on_tick)
            share = machine.share_between(before, machine.sample())
            # Whether other processes took the machine meanwhile (validity's machine_busy); one process only:
            # Ray workers may run on other machines.
            run.meta["machine"] = {"other_cores": round(share.cores, 3), "own_cores": round(share.ours, 3),
                                   "seconds": round(share.seconds, 3)}
        run.meta.update({"dataset": self.dataset.name, "dataset_params": self.dataset.params, **self.request_params})
        return run

    def summarize(self, run: RunRecord, server: dict[str, Any], slo: dict[str, float] | None = None,
                  measured: dict | None = None) -> dict:
        """The summary of ``run`` with its identity block (``summary["run"]``) and configuration key."""
        run.meta.setdefault("total_slots", server.get("total_slots"))  # the overhead check's slots without /slots
        summary = summarize(run, slo=_per_request_slo(slo), cold=self.cold, measured=measured)
        if run.meta.get("noise") is not None:
            summary["noise"] = noise.verdict(run.meta["noise"])
            noise.set_aside_spoiled_flags(summary)
        # started_at is when the run started, to the millisecond: two short runs within one second must still
        # be ordered, or the second would not find the first as its previous comparable run.
        summary["run"] = results.run_identity(
            summary, server_build=server.get("build_info", ""), model_hash=server["model_hash"],
            dataset_hash=self.dataset.hash,
            started_at=_iso(run.t0_wall),
            workers=run.workers or [{"id": 0, "host": "local"}], request_params=self.request_params,
            profile_name=self.name, server=server,
            dataset={"name": self.dataset.name, "hash": self.dataset.hash, "count": len(self.dataset.prompts),
                     **self.dataset.params},
            profile_text=Profile.from_dict(summary["profile"]).describe())
        return summary

    def run_and_measure(self, profile: Profile, server: dict[str, Any], slo: dict[str, float] | None = None,
                        server_pid: int | None = None) -> tuple[RunRecord, dict, dict]:
        """Runs ``profile`` and derives its summary: (run, summary, `metrics.measure`). With ``server_pid`` the
        server's resources are sampled meanwhile (``summary["resources"]``: `soak.leak_report`)."""
        with soak.ResourceSampler(server_pid) if server_pid is not None else contextlib.nullcontext() as sampler:
            run = self.run(profile)
        measured = metrics.measure(run)
        summary = self.summarize(run, server, slo, measured)
        if sampler is not None:
            summary["resources"] = soak.leak_report(sampler.samples, run)
        return run, summary, measured

    def run_and_write(self, profile: Profile, server: dict[str, Any], outdir: Path,
                      slo: dict[str, float] | None = None) -> tuple[RunRecord, dict, dict, dict[str, Path]]:
        """Runs ``profile``, derives its summary and writes its files: (run, summary, `metrics.measure`, paths)."""
        run, summary, measured = self.run_and_measure(profile, server, slo)
        paths = results.write_run(outdir, run, summary, summary["run"],
                                  request_metrics=lambda r: measured[r.index][0])
        return run, summary, measured, paths


def server_identity(base_url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """Build, model and slots of the server under load, from its own ``/props`` (works for external servers)."""
    resp = requests.get(f"{base_url}/props", headers=headers or {}, timeout=deadlines.deadline("load_probe"))
    resp.raise_for_status()
    props = resp.json()
    model_path = str(props.get("model_path", ""))
    return {"build_info": props.get("build_info", ""), "model_path": model_path,
            "model_hash": file_hash(model_path), "total_slots": props.get("total_slots")}


_HASHES: dict[tuple, str] = {}


def file_hash(path: str) -> str:
    """sha256 of a model file, remembered per (path, mtime, size); "" when the file is not on this machine."""
    p = Path(path)
    if not path or not p.is_file():
        return ""
    key = (str(p), p.stat().st_mtime_ns, p.stat().st_size)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with p.open("rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        _HASHES[key] = "sha256:" + digest.hexdigest()
    return _HASHES[key]


@dataclass(frozen=True)
class Checks:
    """What a run does beyond one pass: ``repeats`` trials (``restart`` called between them, ``restart_label``
    said in the summary), ``answers`` requests sent again alone afterwards (see ``answers``), and the server
    process ``server_pid`` sampled for leaks (see ``soak``)."""

    repeats: int = 1
    restart: Any = None  # Callable[[], None] | None
    restart_label: str | None = None
    answers: int = 0
    answer_seed: int = 0
    server_pid: int | None = None


def _run_checked(plan: Plan, profile: Profile, server: dict, outdir: Path, slo: dict | None,
                 checks: Checks) -> tuple[RunRecord, dict, dict]:
    """One pass, or one per trial (its files in ``outdir/trial-<i>``), then the answer checks, whose block and
    flags go into the summary: (run, summary, `metrics.measure`)."""
    if checks.repeats == 1:
        run, summary, measured = plan.run_and_measure(profile, server, slo, checks.server_pid)
    else:
        def trial(i: int) -> tuple[RunRecord, dict, dict]:
            done = plan.run_and_measure(profile, server, slo, checks.server_pid)
            results.write_run(outdir / f"trial-{i}", done[0], done[1], done[1]["run"],
                              request_metrics=lambda r: done[2][r.index][0])
            return done

        label = (checks.restart_label or "restarted") if checks.restart is not None else None
        done = trials.run_trials(trial, checks.repeats, checks.restart)
        run, summary, measured = done[-1]
        summary = {**summary, "trials": trials.trials_block([d[1] for d in done], restart=label)}
    check = (answers.answer_check(plan.target, run, datasets.body_maker(**plan.spec), checks.answers,
                                  seed=checks.answer_seed) if checks.answers else None)
    summary["answers"], flags = answers.assess(run, check)
    summary["flags"] = {**summary.get("flags", {}), **flags}
    return run, summary, measured


def execute(plan: Plan, profile: Profile, *, outdir: Path, history_root: Path, baseline: str | None = None,
            slo: dict[str, float] | None = None, save_history: bool = True, checks: Checks | None = None) -> LoadRun:
    """Runs ``profile`` (with ``checks``: trials, answers sent again) and returns everything about it (see the
    module documentation)."""
    server = server_identity(plan.target.base_url, plan.target.headers)
    run, summary, measured = _run_checked(plan, profile, server, outdir, slo, checks or Checks())
    history = History(history_root)
    load_run = LoadRun(name=plan.name, run=run, summary=summary, outdir=outdir,
                       previous=history.previous_comparable(summary),
                       baseline=history.baseline(baseline_key(baseline, plan.name)) if baseline else None,
                       baseline_name=baseline)
    # The charts are drawn beside the files and the comparisons (the run is over: no request is timed now).
    charts = _draw(summary, outdir, previous=load_run.previous, baseline=load_run.baseline,
                   requests=run.measured, baseline_name=baseline)
    load_run.paths = results.write_run(outdir, run, summary, summary["run"],
                                       request_metrics=lambda r: measured[r.index][0])
    if load_run.previous is not None:
        load_run.comparisons["previous"] = trials.compare(summary, load_run.previous)
    if load_run.baseline is not None:
        load_run.comparisons["baseline"] = trials.compare(summary, load_run.baseline)
    load_run.compat = {tool: metrics.compat(run, tool, measured=measured) for tool in metrics.COMPAT_TOOLS}
    load_run.charts = charts.paths()
    if summary["workload"].get("turns"):
        from llamatest.load.output.workload_charts import turns_chart  # matplotlib only when there is a chart to draw

        load_run.charts.append(turns_chart(summary, outdir))
    if save_history:
        history.save(summary)
    return load_run


def baseline_key(baseline: str, run_name: str) -> str:
    """Baselines are kept per run: the baseline ``release`` of run ``constant-users`` is
    ``release.constant-users``, so that one name serves every test of a suite."""
    return f"{baseline}.{run_name}"


def _point_runner(plan: Plan, outdir: Path, slo: dict[str, float] | None):
    """``run_point(profile) -> summary`` for sweep.py: each point's files go to ``outdir/NN-<kind>``."""
    server = server_identity(plan.target.base_url, plan.target.headers)
    count = 0

    def run_point(profile: Profile) -> dict:
        nonlocal count
        count += 1
        return plan.run_and_write(profile, server, outdir / f"{count:02d}-{profile.kind}", slo)[1]

    return run_point


def execute_sweep(plan: Plan, base: Profile, *, outdir: Path, history_root: Path, k: int, spacing: str = "linear",
                  users: int | None = None) -> SweepRun:
    """Synchronous, maximum throughput, then ``k`` rates between (see ``sweep.sweep``), drawn over the previous
    comparable sweep."""
    result = sweep.sweep(_point_runner(plan, outdir, None), base, k=k, spacing=spacing, users=users)
    return _finish("sweep", plan, base, result, outdir, history_root, {"k": k, "spacing": spacing, "users": users})


def execute_capacity(plan: Plan, base: Profile, slo: dict[str, float], *, outdir: Path, history_root: Path,
                     lo: float, hi: float, axis: str = "rate", max_iter: int = 5) -> SweepRun:
    """The highest rate (or number of users) meeting ``slo``, by bisection (see ``sweep.capacity_under_slo``)."""
    result = sweep.capacity_under_slo(_point_runner(plan, outdir, slo), base, slo, lo=lo, hi=hi, axis=axis,
                                      max_iter=max_iter)
    return _finish("capacity", plan, base, result, outdir, history_root,
                   {"slo": slo, "lo": lo, "hi": hi, "axis": axis, "max_iter": max_iter})


def _finish(kind: str, plan: Plan, base: Profile, result: dict, outdir: Path, history_root: Path,
            params: dict[str, Any]) -> SweepRun:
    """Saves the sweep document, finds the previous comparable one, draws both."""
    done = [p for p in result["points"] if p.get("summary")]
    first_run = done[0]["summary"]["run"] if done else {}
    key_parts = {"kind": kind, "params": params, "base": base.as_dict(), "point_key_parts": {
        k: v for k, v in (first_run.get("config") or {}).items() if k != "profile"}}
    key = hashlib.sha256(json.dumps(key_parts, sort_keys=True, default=str).encode()).hexdigest()
    document = {"kind": kind, "name": plan.name, "config_key": key, "started_at": first_run.get("started_at"),
                "points": [_light_point(p) for p in result["points"]],
                **{k: v for k, v in result.items() if k != "points"}}
    history = History(history_root)
    previous = history.previous_sweep(plan.name, key)
    history.save_sweep(plan.name, document)
    results.write_json(Path(outdir) / f"{kind}.json", document)
    sweep_run = SweepRun(name=plan.name, kind=kind, result=result, outdir=Path(outdir), previous=previous)
    curves = {"current": document["points"], "previous": previous["points"] if previous else None}
    if done:
        sweep_run.charts = _draw(done[-1]["summary"], outdir, sweep=curves).paths()
    return sweep_run


def _iso(t_wall: float) -> str:
    """A wall-clock time as ISO 8601 UTC with milliseconds (``2026-12-01T07:45:00.123Z``)."""
    return _dt.datetime.fromtimestamp(t_wall, _dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _draw(summary: dict, outdir: Path, **overlays) -> drawing.Drawing:
    """The charts of a run, started in the chart workers (see ``output.drawing``): ``.paths()`` waits for them."""
    return drawing.draw_beside(drawing.chart_jobs(summary, outdir, **overlays))


def _light_point(point: dict[str, Any]) -> dict[str, Any]:
    """A point without its per-request samples: what a sweep chart and a later comparison need."""
    summary = point.get("summary")
    light = {k: v for k, v in point.items() if k != "summary"}
    if summary:
        light["summary"] = {k: v for k, v in summary.items() if k not in ("samples", "timeseries")}
    return light


def _per_request_slo(slo: dict[str, float] | None) -> dict[str, float] | None:
    """Goodput needs per-request limits (``ttft_ms``) and SLOs name percentiles (``ttft_p95_ms``): a limit on a
    latency percentile becomes the same limit per request; run-level limits do not apply per request."""
    if not slo:
        return None
    per_request = {}
    for key, value in slo.items():
        name, stat = sweep.parse_slo_key(key)
        if stat and name in metrics.PER_REQUEST_SLO:  # not the per-gap ones (itl_*) nor the server's own
            per_request[name] = float(value)
    return per_request or None
