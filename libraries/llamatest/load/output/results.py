"""What a load run leaves on disk: ``summary.json``, ``requests.jsonl``, ``server-series.jsonl`` and ``summary.csv``.

``summary.json`` is the summary (see ``summary.summarize``) plus ``"run"``: the identity of the run
(configuration key, start time, server build, model hash, dataset hash, seeds, workers, machine).
It is schema-versioned (``SCHEMA``); `load_summary` refuses a file it cannot read and says why.

The configuration key decides which runs may be compared (``compare.compare`` refuses runs whose keys
differ). It is a SHA-256 over, in this order (``CONFIG_KEY_PARTS``):

- ``model_hash``: a hash of the model file;
- ``machine``: `machine_fingerprint` (CPU model, logical cores, RAM, OS, Python);
- ``profile``: the profile as a dict, seed included (a new seed is a new arrival sequence);
- ``dataset_hash``: a hash of the prompts;
- ``request_params``: the request parameters of the target (route, max_tokens, temperature, ...)
  without what changes from run to run for no reason: the base URL (the port), headers (keys), API keys;
- ``client_version``: the version of this load client (``CLIENT_VERSION``), bumped when a change to
  the client changes what it measures.

The start time, the output folder and the server's port are not part of the key, nor is the server's
build (recorded as ``server_build``): comparing one build with another, e.g. a release build as the
baseline, is what comparisons are for.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import json
import math
import os
import platform
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from llamatest.load.analysis import metrics, server_series
from llamatest.load.analysis.metrics import SCHEMA

SCHEMA_FAMILY, SCHEMA_VERSION = SCHEMA.rsplit("/", 1)[0], 1
CLIENT_VERSION = "llamatest.load/1"
CONFIG_KEY_PARTS = ("model_hash", "machine", "profile", "dataset_hash", "request_params", "client_version")
# Target fields that never go into the key: they change between identical runs (ports, keys).
VOLATILE_TARGET_FIELDS = frozenset({"base_url", "url", "host", "port", "headers", "api_key", "authorization"})
REQUIRED_FIELDS = {"schema": str, "profile": dict, "metrics": dict}
OPTIONAL_DICT_FIELDS = ("counts", "samples", "throughput", "flags", "run", "client", "server", "definitions")

CSV_PERCENTILES = ("p50", "p90", "p95", "p99", "p99_9")
CSV_CI = ("p50", "p95", "p99")
CSV_COLUMNS = ("name", "unit", "kind", "n", "value", "mean", "std", "min", "max", *CSV_PERCENTILES,
               *(f"{p}_ci_{end}" for p in CSV_CI for end in ("lo", "hi")))
RUN_LEVEL_UNITS = {"duration_s": "s", "request_throughput": "req/s", "output_throughput": "tok/s",
                   "total_token_throughput": "tok/s", "goodput": "req/s", "goodput_ratio": "ratio",
                   "peak_output_tps": "tok/s", "concurrency_mean": "requests", "peak_concurrency": "requests",
                   "achieved_rate": "req/s", "target_rate": "req/s", "error_rate": "ratio"}


class SummaryError(ValueError):
    """A summary file (or dict) that is not a readable ``llamatest.load.analysis.summary``."""


# --- identity -------------------------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _ram_gb() -> float | None:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (AttributeError, ValueError, OSError):
        pass
    try:
        import psutil  # optional: only where sysconf cannot tell (Windows)

        return round(psutil.virtual_memory().total / 2**30, 1)
    except Exception:  # no way to tell: leave it out
        return None


def machine_fingerprint() -> dict[str, Any]:
    """The hardware and software a run measured on: the same on every run on one machine.

    ``{"cpu": model, "logical_cores": n, "ram_gb": 7.8, "os": "Linux 6.1.0-...", "arch": "x86_64",
    "python": "3.11.2"}``. Nothing that changes between runs (load, free memory, host name) is in it.
    """
    return {"cpu": _cpu_model(), "logical_cores": os.cpu_count(), "ram_gb": _ram_gb(),
            "os": f"{platform.system()} {platform.release()}".strip(), "arch": platform.machine(),
            "python": platform.python_version()}


def key_request_params(target: Mapping[str, Any] | None) -> dict[str, Any]:
    """The target's fields that belong in the configuration key (without URL, port, headers, keys)."""
    return {k: v for k, v in (target or {}).items() if k.lower() not in VOLATILE_TARGET_FIELDS}


def _canonical(obj: Any) -> str:
    return json.dumps(_jsonable(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def config_parts(summary: Mapping[str, Any], *, model_hash: Any, machine: Any,
                 dataset_hash: Any, client_version: str = CLIENT_VERSION,
                 request_params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The values `config_key` hashes, by name (``CONFIG_KEY_PARTS``); kept in the identity so that a
    refused comparison can say which part differs."""
    params = key_request_params(summary.get("target")) if request_params is None else dict(request_params)
    return {"model_hash": model_hash, "machine": machine,
            "profile": summary.get("profile"), "dataset_hash": dataset_hash, "request_params": params,
            "client_version": client_version}


def config_key(summary: Mapping[str, Any], *, model_hash: Any, machine: Any,
               dataset_hash: Any, client_version: str = CLIENT_VERSION,
               request_params: Mapping[str, Any] | None = None) -> str:
    """SHA-256 (hex) over the parts listed in the module documentation; runs compare only when it matches.

    ``summary`` gives the profile (seed included) and, unless ``request_params`` is given, the request
    parameters (``summary["target"]`` without URL, port and headers).
    """
    return _key_of(config_parts(summary, model_hash=model_hash, machine=machine, dataset_hash=dataset_hash,
                                client_version=client_version, request_params=request_params))


def _key_of(parts: Mapping[str, Any]) -> str:
    return hashlib.sha256(_canonical(parts).encode()).hexdigest()


def utc_now_iso() -> str:
    """Now, as an ISO 8601 UTC timestamp with seconds (``2026-12-01T07:45:00Z``)."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def profile_slug(summary: Mapping[str, Any]) -> str:
    """A short folder-safe name of the run's profile: ``run.profile_name`` or ``run.name`` when given, else
    made from the profile (``concurrency-4``, ``rate-2-poisson``, ``synchronous``)."""
    run = summary.get("run") or {}
    profile = summary.get("profile") or {}
    name = run.get("profile_name") or run.get("name") or profile.get("name")
    if not name:
        kind = str(profile.get("kind") or "run")
        if kind == "concurrency":
            name = f"concurrency-{profile.get('users', 1)}"
        elif kind == "rate":
            rate = profile.get("rate")
            rate_text = f"{rate:g}" if isinstance(rate, int | float) else str(rate)
            name = f"rate-{rate_text}-{profile.get('arrival', 'constant')}"
        else:
            name = kind
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(name)).strip(".-") or "run"


def run_identity(summary: Mapping[str, Any], *, server_build: Any, model_hash: Any, dataset_hash: Any,
                 started_at: str | None = None, client_version: str = CLIENT_VERSION,
                 machine: Mapping[str, Any] | None = None, seeds: Any = None, workers: Any = None,
                 profile_name: str | None = None, request_params: Mapping[str, Any] | None = None,
                 **extra: Any) -> dict[str, Any]:
    """The ``"run"`` block of ``summary.json``: configuration key and its parts, start time and the rest.

    ``seeds`` defaults to the profile's seed; ``workers`` to 1; ``started_at`` to now; extra keyword
    arguments are kept as they are (e.g. ``server_bin``, ``notes``).
    """
    machine = dict(machine) if machine is not None else machine_fingerprint()
    parts = config_parts(summary, model_hash=model_hash, machine=machine, dataset_hash=dataset_hash,
                         client_version=client_version, request_params=request_params)
    profile = summary.get("profile") or {}
    identity = {"config_key": _key_of(parts),
                "started_at": started_at or utc_now_iso(), "server_build": server_build, "model_hash": model_hash,
                "dataset_hash": dataset_hash, "seeds": seeds if seeds is not None else profile.get("seed"),
                "workers": workers if workers is not None else 1, "machine": machine,
                "client_version": client_version, "config": parts}
    identity["profile_name"] = profile_name or profile_slug({"profile": profile})
    identity.update(extra)
    return identity


# --- writing --------------------------------------------------------------------------------------------------


def _jsonable(obj: Any) -> Any:
    """Plain JSON values: numpy scalars and arrays unwrapped, tuples as lists, NaN and infinities as None."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, str | bool | int):
        return obj
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist"):  # numpy scalar or array
        return _jsonable(obj.tolist())
    if hasattr(obj, "as_dict"):
        return _jsonable(obj.as_dict())
    return str(obj)


def write_json(path: Path, obj: Any) -> Path:
    """Write JSON atomically (a temporary file renamed over ``path``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(_jsonable(obj), indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)
    return path


def _unit(name: str) -> str:
    if name.endswith("_ms"):
        return "ms"
    if name.startswith("n_"):
        return "tokens"
    return RUN_LEVEL_UNITS.get(name.rsplit(".", 1)[-1], "")


def _cell(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else ""
    return "" if value is None else value


def csv_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per metric (``CSV_COLUMNS``): distributions (``metrics`` and ``client``), then the run-level
    throughput figures (``throughput.window.*``, ``throughput.wall.*`` and the rest) in ``value``."""
    rows: list[dict[str, Any]] = []

    def distribution_row(name: str, dist: Mapping[str, Any]) -> dict[str, Any]:
        row = {"name": name, "unit": _unit(name), "kind": "distribution"}
        for col in ("n", "mean", "std", "min", "max", *CSV_PERCENTILES):
            row[col] = dist.get(col)
        ci = dist.get("ci") or {}
        for p in CSV_CI:
            lo_hi = ci.get(p) or (None, None)
            row[f"{p}_ci_lo"], row[f"{p}_ci_hi"] = (lo_hi[0], lo_hi[1]) if len(lo_hi) == 2 else (None, None)
        return row

    for name, dist in (summary.get("metrics") or {}).items():
        if isinstance(dist, Mapping):
            rows.append(distribution_row(name, dist))
    for name, dist in (summary.get("client") or {}).items():
        if isinstance(dist, Mapping) and "n" in dist:
            rows.append(distribution_row(f"client.{name}", dist))
    throughput = summary.get("throughput") or {}
    for name, value in throughput.items():
        if isinstance(value, Mapping):
            for sub, v in value.items():
                if isinstance(v, int | float) or v is None:
                    rows.append({"name": f"{name}.{sub}", "unit": _unit(sub), "kind": "run", "value": v})
        elif isinstance(value, int | float) or value is None:
            rows.append({"name": name, "unit": _unit(name), "kind": "run", "value": value})
    return rows


def write_run(outdir: str | os.PathLike, run: Any, summary: Mapping[str, Any], identity: Mapping[str, Any], *,
              request_metrics: Callable[[Any], dict] | None = metrics.request_metrics) -> dict[str, Path]:
    """Write ``summary.json``, ``requests.jsonl``, ``server-series.jsonl`` and ``summary.csv`` into ``outdir``;
    return their paths by name (``"summary"``, ``"requests"``, ``"server_series"``, ``"csv"``).

    ``run`` is the `RunRecord` (or None: no ``requests.jsonl``). Each line of ``requests.jsonl`` is one
    ``RequestRecord.as_dict()`` plus ``"metrics"``: ``request_metrics(record)`` (by default
    ``metrics.request_metrics``; pass None to leave it out). ``identity`` is the ``"run"`` block
    (`run_identity`); it must hold ``config_key``. Each line of ``server-series.jsonl`` is one raw telemetry
    sample of the run (``RunRecord.telemetry``: ``/metrics`` values and ``/slots`` as read, times on the run's
    clock); the per-sample arrays derived from them are ``summary["server_series"]``.
    """
    if not identity.get("config_key"):
        raise ValueError("identity has no config_key: build it with run_identity(...) or config_key(...)")
    schema = summary.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise SummaryError(f"summary has schema {schema!r}; this writer writes {SCHEMA!r}")
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    document = {"schema": SCHEMA, **{k: v for k, v in summary.items() if k != "schema"}, "run": dict(identity)}
    paths = {"summary": write_json(outdir / "summary.json", document)}
    if run is not None:
        paths["requests"] = _write_lines(outdir / "requests.jsonl", (
            _request_line(record, request_metrics) for record in getattr(run, "requests", run)))
    if getattr(run, "telemetry", None) is not None:
        paths["server_series"] = _write_lines(outdir / "server-series.jsonl", server_series.sample_lines(run))
    path = outdir / "summary.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS, restval="")
        writer.writeheader()
        for row in csv_rows(document):
            writer.writerow({k: _cell(v) for k, v in row.items()})
    paths["csv"] = path
    return paths


def _request_line(record: Any, request_metrics: Callable[[Any], dict] | None) -> dict[str, Any]:
    # A record's fields as they are: _jsonable copies them into plain values on the way out, so the deep copy of
    # dataclasses.asdict (as_dict) would only walk every event a second time.
    line = _fields(record) if is_dataclass(record) else dict(record)
    if "events" in line:
        line["events"] = [_fields(e) if is_dataclass(e) else e for e in line["events"]]
    if request_metrics is not None:
        line["metrics"] = request_metrics(record)
    return line


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


def _write_lines(path: Path, lines: Iterable[Any]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(_jsonable(line), ensure_ascii=False, allow_nan=False) + "\n")
    return path


# --- reading --------------------------------------------------------------------------------------------------


def summary_problems(summary: Any) -> list[str]:
    """What keeps ``summary`` from being a readable summary of this schema; empty when it is fine."""
    if not isinstance(summary, Mapping):
        return [f"expected a JSON object, got {type(summary).__name__}"]
    problems = []
    schema = summary.get("schema")
    if schema is None:
        problems.append(f"no 'schema' field: not a load summary (expected {SCHEMA!r})")
    elif not isinstance(schema, str) or "/" not in schema or schema.rsplit("/", 1)[0] != SCHEMA_FAMILY:
        problems.append(f"schema {schema!r} is not a load summary (expected {SCHEMA!r})")
    else:
        version = schema.rsplit("/", 1)[1]
        if version != str(SCHEMA_VERSION):
            problems.append(f"schema version {version!r}: this llamatest reads version {SCHEMA_VERSION} "
                            f"({SCHEMA!r}); newer files need a newer llamatest")
    for name, kind in REQUIRED_FIELDS.items():
        if name == "schema":
            continue
        if name not in summary:
            problems.append(f"missing field {name!r}")
        elif not isinstance(summary[name], kind):
            problems.append(f"field {name!r} should be an object, got {type(summary[name]).__name__}")
    for name in OPTIONAL_DICT_FIELDS:
        if summary.get(name) is not None and not isinstance(summary[name], Mapping):
            problems.append(f"field {name!r} should be an object, got {type(summary[name]).__name__}")
    for name, dist in (summary.get("metrics") or {}).items() if isinstance(summary.get("metrics"), Mapping) else ():
        if dist is not None and not isinstance(dist, Mapping):
            problems.append(f"metrics.{name} should be an object (a distribution), got {type(dist).__name__}")
    samples = summary.get("samples")
    if isinstance(samples, Mapping):
        for name, values in samples.items():
            if not isinstance(values, list):
                problems.append(f"samples.{name} should be a list, got {type(values).__name__}")
    return problems


def check_summary(summary: Any, source: str = "summary") -> dict[str, Any]:
    """Return ``summary`` when it is readable, else raise `SummaryError` listing every problem."""
    problems = summary_problems(summary)
    if problems:
        raise SummaryError(f"{source} is not a usable load summary: " + "; ".join(problems))
    return summary


def load_summary(path: str | os.PathLike) -> dict[str, Any]:
    """Read a ``summary.json`` (or a baseline file) and check its schema; `SummaryError` says what is wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SummaryError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SummaryError(f"{path}: cannot be read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SummaryError(f"{path}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    return check_summary(data, str(path))


def load_requests(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The lines of a ``requests.jsonl`` as dicts (``RequestRecord.from_dict`` takes them back)."""
    with Path(path).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]

