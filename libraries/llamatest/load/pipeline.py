"""One named load run from start to finish: identify the server, run the profile, derive, save, compare, draw.

This is what a keyword calls: the engine (or its Ray shards) produces the raw event logs, ``metrics``
derives the summary, ``results`` writes it, ``history`` finds the previous comparable run and the
named baseline, ``compare`` gives the verdicts and ``charts`` draws the current run over both.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import requests

from llamatest.load import charts as _charts
from llamatest.load import compare as _compare
from llamatest.load import datasets, metrics, results
from llamatest.load.engine import Target, run_load_sync
from llamatest.load.history import History
from llamatest.load.profiles import Profile
from llamatest.load.record import RunRecord

CLIENT_VERSION = "llamatest.load/1"
PROPS_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Dataset:
    """The prompts of a run and how they were made (the name and parameters go into the config key)."""

    name: str  # "sharegpt" or "fixed-<N>-tokens"
    prompts: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def hash(self) -> str:
        return datasets.dataset_hash(list(self.prompts))

    def describe(self) -> str:
        return f"{self.name}: {len(self.prompts)} prompts, hash {self.hash[:12]}"


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
    comparisons: dict[str, dict[str, Any]] = field(default_factory=dict)  # "previous" / "baseline" -> compare()

    @property
    def identity(self) -> dict[str, Any]:
        return self.summary.get("run", {})


def server_identity(base_url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """Build, model and slots of the server under load, from its own ``/props`` (works for external servers)."""
    resp = requests.get(f"{base_url}/props", headers=headers or {}, timeout=PROPS_TIMEOUT_S)
    resp.raise_for_status()
    props = resp.json()
    model_path = str(props.get("model_path", ""))
    return {"build_info": props.get("build_info", ""), "model_path": model_path,
            "model_hash": file_hash(model_path), "total_slots": props.get("total_slots"),
            "n_ctx": (props.get("default_generation_settings") or {}).get("n_ctx")}


def file_hash(path: str) -> str:
    """sha256 of a model file, cached beside nothing: the file may be on another machine (then "")."""
    p = Path(path)
    if not path or not p.is_file():
        return ""
    return _cached_hash(str(p), p.stat().st_mtime_ns, p.stat().st_size)


_HASHES: dict[tuple, str] = {}


def _cached_hash(path: str, mtime_ns: int, size: int) -> str:
    key = (path, mtime_ns, size)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


def execute(name: str, target: Target, profile: Profile, dataset: Dataset, *, max_tokens: int, outdir: Path,
            history_root: Path, baseline: str | None = None, slo: dict[str, float] | None = None,
            workers: int = 1, ray_address: str | None = None, cold: bool = True,
            request_fields: dict[str, Any] | None = None, save_history: bool = True) -> LoadRun:
    """Runs ``profile`` with ``dataset`` against ``target`` and returns everything about it (see module doc)."""
    server = server_identity(target.base_url, target.headers)
    body_spec = {"prompts": list(dataset.prompts), "route": target.route, "max_tokens": max_tokens,
                 "cold": cold, "extra": dict(request_fields or {})}
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    if workers > 1 or ray_address:
        from llamatest.load.distributed import run_distributed

        run = run_distributed(target, profile, body_spec, workers=workers, address=ray_address)
    else:
        run = run_load_sync(target, profile, datasets.body_maker(**body_spec))
    run.meta.update({"dataset": dataset.name, "dataset_params": dataset.params, "max_tokens": max_tokens,
                     "cold": cold})
    summary = metrics.summarize(run, slo=slo, cold=cold)
    machine = results.machine_fingerprint()
    request_params = {"route": target.route, "max_tokens": max_tokens, "cold": cold, **(request_fields or {})}
    identity = {
        "name": name, "started_at": started_at, "server": server, "machine": machine,
        "dataset": {"name": dataset.name, "hash": dataset.hash, "count": len(dataset.prompts), **dataset.params},
        "request_params": request_params, "seed": profile.seed, "client_version": CLIENT_VERSION,
        "workers": run.workers or [{"id": 0, "host": "local"}],
        "config_key": results.config_key(summary, server_build="", model_hash=server["model_hash"],
                                         machine=machine, dataset_hash=dataset.hash,
                                         client_version=CLIENT_VERSION, request_params=request_params),
    }
    summary["run"] = identity
    history = History(history_root)
    previous = history.previous_comparable(summary)
    reference = history.baseline(baseline) if baseline else None
    load_run = LoadRun(name=name, run=run, summary=summary, outdir=outdir, previous=previous, baseline=reference,
                       baseline_name=baseline)
    load_run.paths = results.write_run(outdir, run, summary, identity, request_metrics=metrics.request_metrics)
    if previous is not None:
        load_run.comparisons["previous"] = _compare.compare(summary, previous)
    if reference is not None:
        load_run.comparisons["baseline"] = _compare.compare(summary, reference)
    load_run.charts = _charts.charts(summary, outdir, previous=previous, baseline=reference,
                                     requests=run.measured)
    if save_history:
        history.save(summary)
    return load_run


def timestamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime())
