"""results.py (summary.json, requests.jsonl, summary.csv, configuration key) and history.py."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from llamatest.load.engine.record import LoadEvent, RequestRecord, RunRecord
from llamatest.load.output.history import History, check_baseline_name
from llamatest.load.output.results import (
    CSV_COLUMNS,
    SCHEMA,
    SummaryError,
    config_key,
    load_requests,
    load_summary,
    machine_fingerprint,
    profile_slug,
    run_identity,
    write_run,
)

MACHINE = {"cpu": "Test CPU", "logical_cores": 2, "ram_gb": 7.8, "os": "Linux 6", "arch": "x86_64", "python": "3.11"}
PROFILE = {"kind": "rate", "rate": 2.0, "arrival": "poisson", "duration_s": 10.0, "seed": 7}


def distribution(values: list[float]) -> dict:
    """A summary distribution (the shape metrics.distribution returns) without its bootstrap."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    out = {"n": n, "mean": float(x.mean()) if n else None, "std": float(x.std()) if n else None,
           "min": float(x.min()) if n else None, "max": float(x.max()) if n else None, "missing": {},
           "ci": {"p50": None, "p95": None, "p99": None}}
    for key, q, need in (("p50", 50, 1), ("p90", 90, 1), ("p95", 95, 1), ("p99", 99, 100), ("p99_9", 99.9, 1000)):
        out[key] = float(np.percentile(x, q)) if n >= need else None
        if n < need:
            out["missing"][key] = f"needs n >= {need}, have {n}"
    for key in ("p50", "p95"):
        if out[key] is not None:
            out["ci"][key] = [out[key] * 0.9, out[key] * 1.1]
    return out


def summary_from_samples(samples: dict[str, list[float]], *, profile: dict | None = None, config_key_: str = "k1",
                         started_at: str = "2026-12-01T07:00:00Z", throughput: dict | None = None,
                         timeseries: list | None = None, slo: dict | None = None, flags: dict | None = None) -> dict:
    """A summary dict in the shared schema, made from per-request samples (for tests of what reads them)."""
    return {"schema": SCHEMA, "profile": dict(profile or PROFILE), "target": {"route": "/v1/chat/completions"},
            "counts": {"attempted": len(next(iter(samples.values()), [])), "errors_by_class": {}},
            "metrics": {name: distribution(values) for name, values in samples.items()},
            "samples": {name: list(values) for name, values in samples.items()},
            "throughput": throughput or {"window": {"duration_s": 10.0, "request_throughput": 2.0,
                                                    "output_throughput": 64.0, "goodput": None},
                                         "wall": {"duration_s": 11.0}, "peak_output_tps": 80.0,
                                         "error_rate": 0.0},
            "slo": slo, "timeseries": timeseries or [], "flags": flags or {},
            "run": {"config_key": config_key_, "started_at": started_at}}


def make_run() -> RunRecord:
    ok = RequestRecord(index=0, t_scheduled=0.0, t_dispatched=0.001, t_headers=0.05, t_done=0.2, t_closed=0.21,
                       status=200, outcome="finish_length",
                       events=[LoadEvent(t=0.05, kind="role"), LoadEvent(t=0.06, kind="content", n_chars=3),
                               LoadEvent(t=0.1, kind="content", n_chars=4)])
    dropped = RequestRecord(index=1, t_scheduled=0.5, error="dropped")
    return RunRecord(profile=dict(PROFILE), target={"base_url": "http://127.0.0.1:1234", "route": "/completion"},
                     t0_wall=1.0e9, t0_perf=10.0, window=(0.0, 10.0), requests=[ok, dropped])


def identity(summary: dict, **changes) -> dict:
    args = {"server_build": "b100-abc", "model_hash": "m1", "dataset_hash": "d1", "machine": MACHINE,
            "started_at": "2026-12-01T07:00:00Z", **changes}
    return run_identity(summary, **args)


# --- results.py -----------------------------------------------------------------------------------------------


def test_summary_round_trips_through_summary_json(tmp_path):
    summary = summary_from_samples({"ttft_ms": [10.0, 12.0, float("nan")], "tpot_ms": [5.0, 6.0]})
    del summary["run"]
    ident = identity(summary, seeds=[7], workers=2)
    paths = write_run(tmp_path, make_run(), summary, ident, request_metrics=lambda r: {"ttft": r.t_scheduled})
    loaded = load_summary(paths["summary"])
    assert loaded["schema"] == SCHEMA
    assert loaded["run"]["config_key"] == ident["config_key"]
    assert loaded["run"]["seeds"] == [7] and loaded["run"]["workers"] == 2
    assert loaded["run"]["server_build"] == "b100-abc" and loaded["run"]["dataset_hash"] == "d1"
    assert loaded["samples"]["ttft_ms"] == [10.0, 12.0, None]  # NaN is not JSON: written as null
    assert loaded["metrics"]["tpot_ms"] == summary["metrics"]["tpot_ms"]


def test_requests_jsonl_holds_each_record_with_its_metrics(tmp_path):
    run = make_run()
    paths = write_run(tmp_path, run, summary_from_samples({"ttft_ms": [1.0]}), {"config_key": "k"},
                      request_metrics=lambda r: {"index_twice": r.index * 2})
    lines = load_requests(paths["requests"])
    assert [line["metrics"] for line in lines] == [{"index_twice": 0}, {"index_twice": 2}]
    assert [RequestRecord.from_dict(line) for line in lines] == run.requests


def test_requests_jsonl_lines_are_the_records_as_dict(tmp_path):
    """Each line is the JSON of ``RequestRecord.as_dict()`` plus its metrics, to the byte (the writer reads the
    fields without asdict's deep copy), nested usage and timings included."""
    run = make_run()
    run.requests[0].events.append(LoadEvent(t=0.2, kind="done", finish_reason="length", usage={"total_tokens": 9},
                                            timings={"predicted_ms": 1.5, "draft": [1, 2]}))
    paths = write_run(tmp_path, run, summary_from_samples({"ttft_ms": [1.0]}), {"config_key": "k"},
                      request_metrics=lambda r: {"index": r.index})
    expected = [json.dumps({**r.as_dict(), "metrics": {"index": r.index}}, ensure_ascii=False) + "\n"
                for r in run.requests]
    assert paths["requests"].read_text(encoding="utf-8").splitlines(keepends=True) == expected


def test_requests_jsonl_without_metrics_when_none_is_asked(tmp_path):
    paths = write_run(tmp_path, make_run(), summary_from_samples({"ttft_ms": [1.0]}), {"config_key": "k"},
                      request_metrics=None)
    assert all("metrics" not in line for line in load_requests(paths["requests"]))


def test_summary_csv_has_one_row_per_metric(tmp_path):
    summary = summary_from_samples({"ttft_ms": [10.0, 20.0, 30.0], "n_out": [8.0, 8.0, 8.0]})
    paths = write_run(tmp_path, None, summary, {"config_key": "k"})
    assert set(paths) == {"summary", "csv"}
    with paths["csv"].open() as fh:
        rows = {row["name"]: row for row in csv.DictReader(fh)}
    assert list(rows["ttft_ms"]) == list(CSV_COLUMNS)
    assert (rows["ttft_ms"]["unit"], rows["ttft_ms"]["n"], rows["ttft_ms"]["p50"]) == ("ms", "3", "20")
    assert (rows["ttft_ms"]["p99"], rows["ttft_ms"]["p50_ci_lo"], rows["ttft_ms"]["p50_ci_hi"]) == ("", "18", "22")
    assert rows["n_out"]["unit"] == "tokens"
    assert (rows["window.output_throughput"]["value"], rows["window.output_throughput"]["unit"]) == ("64", "tok/s")
    assert rows["error_rate"]["kind"] == "run"


def test_write_run_needs_a_config_key(tmp_path):
    with pytest.raises(ValueError, match="no config_key"):
        write_run(tmp_path, None, summary_from_samples({"ttft_ms": [1.0]}), {"started_at": "now"})


BAD_FILES = [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected a JSON object, got list"),
    ('{"profile": {}, "metrics": {}}', "no 'schema' field"),
    ('{"schema": "other.thing/1", "profile": {}, "metrics": {}}', "schema 'other.thing/1' is not a load summary"),
    ('{"schema": "llamatest.load.summary/2", "profile": {}, "metrics": {}}', "schema version '2'"),
    ('{"schema": "llamatest.load.summary/1", "profile": {}}', "missing field 'metrics'"),
    ('{"schema": "llamatest.load.summary/1", "profile": {}, "metrics": {"ttft_ms": 3}}', "metrics.ttft_ms should be"),
    ('{"schema": "llamatest.load.summary/1", "profile": {}, "metrics": {}, "samples": {"x": 1}}',
     "samples.x should be a list"),
]


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_a_bad_summary_file_is_refused_with_the_reason(tmp_path, text, message):
    path = tmp_path / "summary.json"
    path.write_text(text)
    with pytest.raises(SummaryError, match=message) as info:
        load_summary(path)
    assert str(path) in str(info.value)


def test_a_missing_summary_file_is_named(tmp_path):
    with pytest.raises(SummaryError, match="no such file"):
        load_summary(tmp_path / "nope.json")


def test_config_key_ignores_start_time_port_and_output_folder():
    summary = summary_from_samples({"ttft_ms": [1.0]})
    first = identity(summary, started_at="2026-12-01T07:00:00Z")
    moved = dict(summary, target={"route": "/v1/chat/completions", "base_url": "http://127.0.0.1:9999"})
    second = identity(moved, started_at="2026-12-02T09:30:00Z")
    assert first["config_key"] == second["config_key"]
    assert first["started_at"] != second["started_at"]


@pytest.mark.parametrize("change", [
    {"profile": {**PROFILE, "rate": 4.0}},
    {"profile": {**PROFILE, "seed": 8}},
    {"target": {"route": "/v1/chat/completions", "max_tokens": 64}},
])
def test_config_key_changes_with_profile_seed_and_request_params(change):
    summary = summary_from_samples({"ttft_ms": [1.0]})
    assert identity(summary)["config_key"] != identity({**summary, **change})["config_key"]


@pytest.mark.parametrize("part", ["model_hash", "dataset_hash", "client_version"])
def test_config_key_changes_with_each_identity_part(part):
    summary = summary_from_samples({"ttft_ms": [1.0]})
    args = {"model_hash": "m", "machine": MACHINE, "dataset_hash": "d", "client_version": "c"}
    assert config_key(summary, **args) != config_key(summary, **{**args, part: "other"})
    assert config_key(summary, **args) == config_key(summary, **{**args, "machine": dict(MACHINE)})


def test_the_server_build_is_recorded_but_not_part_of_the_key():
    summary = summary_from_samples({"ttft_ms": [1.0]})
    release, current = identity(summary, server_build="b1"), identity(summary, server_build="b2")
    assert release["config_key"] == current["config_key"] and current["server_build"] == "b2"
    assert "server_build" not in current["config"]


def test_machine_fingerprint_is_stable_and_complete():
    first = machine_fingerprint()
    assert first == machine_fingerprint()
    assert set(first) == {"cpu", "logical_cores", "ram_gb", "os", "arch", "python"}
    assert first["logical_cores"] >= 1 and first["cpu"]


def test_identity_defaults_seeds_workers_and_profile_name():
    ident = identity(summary_from_samples({"ttft_ms": [1.0]}))
    assert (ident["seeds"], ident["workers"], ident["profile_name"]) == (7, 1, "rate-2-poisson")
    assert set(ident["config"]) == {"model_hash", "machine", "profile", "dataset_hash",
                                    "request_params", "client_version"}


@pytest.mark.parametrize(("profile", "run", "name"), [
    ({"kind": "concurrency", "users": 4}, {}, "concurrency-4"),
    ({"kind": "synchronous"}, {}, "synchronous"),
    ({"kind": "rate", "rate": 0.5, "arrival": "constant"}, {}, "rate-0.5-constant"),
    ({"kind": "rate"}, {"profile_name": "../smoke run"}, "smoke-run"),
    ({"kind": "rate"}, {"name": "Load Smoke"}, "Load-Smoke"),
])
def test_profile_slug_is_folder_safe(profile, run, name):
    assert profile_slug({"profile": profile, "run": run}) == name


# --- history.py -----------------------------------------------------------------------------------------------


def saved(history: History, key: str, started_at: str, **kw) -> dict:
    summary = summary_from_samples({"ttft_ms": [1.0]}, config_key_=key, started_at=started_at, **kw)
    history.save(summary)
    return summary


def test_history_saves_under_profile_name_and_utc_time(tmp_path):
    history = History(tmp_path)
    summary = summary_from_samples({"ttft_ms": [1.0]}, started_at="2026-12-01T08:15:30+01:00")
    first, second = history.save(summary), history.save(summary)
    assert first == tmp_path / "rate-2-poisson" / "20261201T071530Z" / "summary.json"
    assert second.parent.name == "20261201T071530Z-2"
    assert load_summary(first) == summary


def test_previous_comparable_is_the_latest_earlier_run_with_the_same_key(tmp_path):
    history = History(tmp_path)
    saved(history, "A", "2026-12-01T07:00:00Z")
    older = saved(history, "A", "2026-12-01T08:00:00Z")
    saved(history, "B", "2026-12-01T09:00:00Z")
    latest = saved(history, "A", "2026-12-01T10:00:00Z", profile={"kind": "concurrency", "users": 2})
    (tmp_path / "junk" / "x").mkdir(parents=True)
    (tmp_path / "junk" / "x" / "summary.json").write_text("{broken")
    now = summary_from_samples({"ttft_ms": [1.0]}, config_key_="A", started_at="2026-12-01T11:00:00Z")
    assert history.previous_comparable(now) == latest
    between = summary_from_samples({"ttft_ms": [1.0]}, config_key_="A", started_at="2026-12-01T09:30:00Z")
    assert history.previous_comparable(between) == older
    assert history.previous_comparable({**now, "run": {"config_key": "C"}}) is None
    assert history.previous_comparable({**now, "run": {}}) is None


def test_previous_comparable_of_a_run_already_saved_is_not_itself(tmp_path):
    history = History(tmp_path)
    first = saved(history, "A", "2026-12-01T07:00:00Z")
    current = saved(history, "A", "2026-12-01T08:00:00Z")
    assert history.previous_comparable(current) == first
    assert History(tmp_path / "empty").previous_comparable(current) is None


def test_previous_comparable_reads_only_the_files_its_index_does_not_know(tmp_path, monkeypatch):
    from llamatest.load.output import history as history_module

    reads = []
    monkeypatch.setattr(history_module, "load_summary", lambda path: reads.append(path) or load_summary(path))
    history = History(tmp_path)
    older = saved(history, "A", "2026-12-01T07:00:00Z")
    saved(history, "B", "2026-12-01T08:00:00Z")
    now = summary_from_samples({"ttft_ms": [1.0]}, config_key_="A", started_at="2026-12-01T11:00:00Z")
    assert history.previous_comparable(now) == older and len(reads) == 3, "two to index, then the one returned"
    reads.clear()
    assert history.previous_comparable(now) == older and len(reads) == 1, "the index knew both"
    reads.clear()
    latest = saved(history, "A", "2026-12-01T09:00:00Z")
    assert history.previous_comparable(now) == latest and len(reads) == 2, "the new file, then the one returned"


def test_a_run_changed_since_it_was_indexed_and_a_damaged_index_are_read_again(tmp_path):
    history = History(tmp_path)
    older = saved(history, "A", "2026-12-01T07:00:00Z")
    path = history.run_paths()[0]
    newer = saved(history, "A", "2026-12-01T08:00:00Z")
    now = summary_from_samples({"ttft_ms": [1.0]}, config_key_="A", started_at="2026-12-01T11:00:00Z")
    assert history.previous_comparable(now) == newer
    newer_path = next(p for p in history.run_paths() if p != path)
    newer_path.write_text(json.dumps({**newer, "run": {**newer["run"], "config_key": "Z"}}))  # another key
    assert history.previous_comparable(now) == older
    (tmp_path / ".index.json").write_text('{"runs": {"x": 1, "' + path.relative_to(tmp_path).as_posix() + '": [0]}}')
    assert history.previous_comparable(now) == older
    (tmp_path / ".index.json").write_text("{broken")
    assert history.previous_comparable(now) == older
    assert json.loads((tmp_path / ".index.json").read_text())["runs"].keys() == {
        p.relative_to(tmp_path).as_posix() for p in history.run_paths()}


def test_a_history_whose_index_cannot_be_written_is_read_as_before(tmp_path, monkeypatch):
    from llamatest.load.output import history as history_module

    history = History(tmp_path)
    older = saved(history, "A", "2026-12-01T07:00:00Z")

    def refused(path, obj):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(history_module, "write_json", refused)
    now = summary_from_samples({"ttft_ms": [1.0]}, config_key_="A", started_at="2026-12-01T11:00:00Z")
    assert history.previous_comparable(now) == older
    assert not (tmp_path / ".index.json").exists()


def test_baseline_round_trip_keeps_samples_and_name(tmp_path):
    history = History(tmp_path)
    summary = summary_from_samples({"ttft_ms": [1.0, 2.0]})
    path = history.save_baseline("release-b4321", summary)
    assert path == tmp_path / "baselines" / "release-b4321.json"
    loaded = history.baseline("release-b4321")
    assert loaded["samples"] == summary["samples"] and loaded["baseline"]["name"] == "release-b4321"
    assert history.baseline("other") is None
    assert history.baselines() == ["release-b4321"]
    assert history.previous_comparable({**summary, "run": {"config_key": "k1"}}) is None  # baselines are not runs


@pytest.mark.parametrize("name", ["", "../x", "a/b", ".hidden", "x" * 129, "a..b", "name with space", None])
def test_bad_baseline_names_are_rejected(tmp_path, name):
    with pytest.raises(ValueError, match="is not allowed: use 1 to 128 letters"):
        History(tmp_path).save_baseline(name, summary_from_samples({"ttft_ms": [1.0]}))
    with pytest.raises(ValueError, match="is not allowed"):
        check_baseline_name(name)


def test_a_baseline_needs_samples_and_a_damaged_one_is_loud(tmp_path):
    history = History(tmp_path)
    with pytest.raises(ValueError, match="no per-request samples"):
        history.save_baseline("b", {**summary_from_samples({"ttft_ms": [1.0]}), "samples": {}})
    (tmp_path / "baselines").mkdir()
    (tmp_path / "baselines" / "b.json").write_text('{"schema": "nope"}')
    with pytest.raises(SummaryError, match="b.json"):
        history.baseline("b")


def test_written_json_is_strict(tmp_path):
    summary = summary_from_samples({"ttft_ms": [1.0]})
    summary["samples"]["ttft_ms"] = [math.inf, -math.inf, math.nan]
    path = write_run(tmp_path, None, summary, {"config_key": "k"})["summary"]
    json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
