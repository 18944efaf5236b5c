"""pipeline: named runs, sweeps and capacity searches end to end against the scripted SSE server.

The scripted server answers ``/props`` like llama-server (build, model path, slots); the model path is a file
made here, so the model hash is computed. Every request streams a short scripted chat answer (three tokens and
``usage``), sent as a request field of the plan. Runs are kept to a few tenths of a second.
"""

from __future__ import annotations

import csv
import hashlib
import json
import urllib.request

import pytest

from llamatest.load.analysis import validity
from llamatest.load.analysis.compare import VERDICTS
from llamatest.load.engine.client import Target
from llamatest.load.engine.profiles import Profile
from llamatest.load.output import results
from llamatest.load.output.history import SWEEPS, History
from llamatest.load.pipeline import (
    Dataset,
    Plan,
    _per_request_slo,
    baseline_key,
    execute,
    execute_capacity,
    execute_sweep,
    server_identity,
)
from tests.fixtures.scripted_server import DONE, chat, usage

BUILD = "b4242-scripted"
STREAM = [[0.004, chat({"role": "assistant", "content": None})], [0.004, chat({"content": "a"})],
          [0.004, chat({"content": "b"})], [0.004, chat({"content": "c"})], [0, chat({}, "length")],
          [0, usage(3, prompt=4)], [0, DONE]]
SHORT = Profile("concurrency", users=2, duration_s=0.3)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
STEADY = {"schedule_lag_p99_ms": 1e9, "loop_lag_p99_ms": 1e9, "cpu_pct": 1e9, "rate_ratio_min": 0.0,
          "oversaturation_min_points": 10**9}
FROZEN_NOW = "2026-01-01T00:00:00Z"  # what a seconds-resolution clock says for two runs within one second


def put_props(url: str, props: dict) -> None:
    req = urllib.request.Request(f"{url}/props", data=json.dumps(props).encode(), method="PUT",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        resp.read()


@pytest.fixture(scope="module", autouse=True)
def steady():
    """The machine is shared: how promptly this client dispatched is not what these tests check, so the flags
    that judge it (client-bound, rate shortfall, oversaturation) never invalidate a point here."""
    with pytest.MonkeyPatch.context() as mp:
        for name, value in STEADY.items():
            mp.setitem(validity.DEFAULT_THRESHOLDS, name, value)
        yield


@pytest.fixture(scope="module")
def model(scripted, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tiny.gguf"
    path.write_bytes(b"GGUF" + bytes(range(256)) * 8)
    put_props(scripted.url, {"build_info": BUILD, "model_path": str(path), "total_slots": 2})
    return path


@pytest.fixture
def plan(scripted, model):
    return Plan(name="pipe", target=Target(scripted.url), dataset=Dataset("two", ("first prompt", "second prompt")),
                max_tokens=3, request_fields={"script": STREAM})


def test_server_identity_reads_props_and_hashes_the_model(scripted, model):
    ident = server_identity(scripted.url)
    assert ident == {"build_info": BUILD, "model_path": str(model),
                     "model_hash": "sha256:" + hashlib.sha256(model.read_bytes()).hexdigest(), "total_slots": 2}


def test_a_run_writes_its_files_and_its_history(plan, model, tmp_path):
    out, root = tmp_path / "out", tmp_path / "history"
    load_run = execute(plan, SHORT, outdir=out, history_root=root)
    summary = load_run.summary
    assert set(load_run.paths) == {"summary", "requests", "server_series", "csv"}
    written = results.load_summary(out / "summary.json")
    assert written["run"]["config_key"] == summary["run"]["config_key"]
    assert summary["counts"]["succeeded"] >= 2 and summary["counts"]["errored"] == 0
    lines = (out / "requests.jsonl").read_text().splitlines()
    assert len(lines) == len(load_run.run.requests)
    with (out / "summary.csv").open() as fh:
        assert "ttft_ms" in {row["name"] for row in csv.DictReader(fh)}
    names = {p.name for p in load_run.charts}
    assert {"latency_percentiles.png", "timeline.png"} <= names
    assert all(p.read_bytes().startswith(PNG_MAGIC) for p in load_run.charts)
    assert load_run.previous is None and load_run.comparisons == {}
    saved = History(root).runs()
    assert [s["run"]["config_key"] for _, s in saved] == [summary["run"]["config_key"]]


def test_the_run_identity(plan, model, tmp_path):
    ident = execute(plan, SHORT, outdir=tmp_path, history_root=tmp_path / "h", save_history=False).summary["run"]
    assert len(ident["config_key"]) == 64 and int(ident["config_key"], 16) >= 0
    assert ident["dataset_hash"] == plan.dataset.hash == ident["dataset"]["hash"]
    assert ident["dataset"]["count"] == 2 and ident["dataset"]["name"] == "two"
    assert ident["server_build"] == BUILD, "the build is recorded with the run"
    assert "server_build" not in ident["config"], "the build stays out of the configuration key"
    assert ident["model_hash"] == "sha256:" + hashlib.sha256(model.read_bytes()).hexdigest()
    assert ident["server"]["total_slots"] == 2
    assert ident["profile_text"] == SHORT.describe()
    assert ident["config"]["request_params"]["max_tokens"] == 3
    assert ident["started_at"].endswith("Z") and "." in ident["started_at"], "milliseconds: runs stay ordered"


def test_a_second_run_in_the_same_second_finds_the_first(plan, tmp_path, monkeypatch):
    monkeypatch.setattr(results, "utc_now_iso", lambda: FROZEN_NOW)
    root = tmp_path / "history"
    first = execute(plan, SHORT, outdir=tmp_path / "1", history_root=root)
    second = execute(plan, SHORT, outdir=tmp_path / "2", history_root=root)
    assert second.previous is not None
    assert second.previous["run"]["started_at"] == first.summary["run"]["started_at"]
    cmp = second.comparisons["previous"]
    assert cmp["config_key_match"] is True and cmp["verdict"] in VERDICTS
    assert len(History(root).runs()) == 2


def test_another_dataset_is_not_comparable(plan, tmp_path):
    root = tmp_path / "history"
    execute(plan, SHORT, outdir=tmp_path / "1", history_root=root)
    other = Plan(name=plan.name, target=plan.target, dataset=Dataset("other", ("a different prompt",)),
                 max_tokens=3, request_fields=plan.request_fields)
    assert execute(other, SHORT, outdir=tmp_path / "2", history_root=root).previous is None


def test_a_baseline_by_name_and_no_history(plan, tmp_path):
    root = tmp_path / "history"
    first = execute(plan, SHORT, outdir=tmp_path / "1", history_root=root, save_history=False)
    assert History(root).run_paths() == [], "save_history=False saves nothing"
    History(root).save_baseline(baseline_key("release-1", plan.name), first.summary)
    second = execute(plan, SHORT, outdir=tmp_path / "2", history_root=root, baseline="release-1")
    assert second.baseline_name == "release-1" and second.baseline is not None
    assert set(second.comparisons) == {"baseline"}, "the first run was not saved, so there is no previous"
    assert second.comparisons["baseline"]["verdict"] in VERDICTS
    assert second.comparisons["baseline"]["config_key_match"] is True


def test_an_unknown_baseline_gives_no_comparison(plan, tmp_path):
    load_run = execute(plan, SHORT, outdir=tmp_path, history_root=tmp_path / "h", baseline="never-saved",
                       save_history=False)
    assert load_run.baseline is None and load_run.comparisons == {}


def test_a_sweep_is_saved_and_found_again(plan, tmp_path, monkeypatch):
    monkeypatch.setattr(results, "utc_now_iso", lambda: FROZEN_NOW)  # two sweeps in one second keep both files
    base = Profile("synchronous", duration_s=0.25)
    root = tmp_path / "history"
    first = execute_sweep(plan, base, outdir=tmp_path / "1", history_root=root, k=1, users=2)
    assert [p["kind"] for p in first.points] == ["synchronous", "concurrency", "rate"]
    assert all(p["summary"] for p in first.points)
    assert (tmp_path / "1" / "01-synchronous" / "summary.json").is_file()
    document = json.loads((tmp_path / "1" / "sweep.json").read_text())
    assert document["kind"] == "sweep" and len(document["points"]) == 3
    assert "samples" not in document["points"][0]["summary"], "sweep documents keep no per-request samples"
    assert first.previous is None
    assert {"sweep_latency.png", "sweep_throughput.png"} <= {p.name for p in first.charts}
    second = execute_sweep(plan, base, outdir=tmp_path / "2", history_root=root, k=1, users=2)
    assert second.previous is not None and second.previous["config_key"] == document["config_key"]
    assert len(list((root / SWEEPS / "pipe").glob("*.json"))) == 2


def test_capacity_with_a_goodput_limit(plan, tmp_path):
    slo = {"ttft_p50_ms": 10_000, "itl_token_p95_ms": 10_000, "goodput_min": 0.1}
    capacity = execute_capacity(plan, Profile("rate", rate=2, duration_s=0.3), slo, outdir=tmp_path,
                                history_root=tmp_path / "h", lo=2, hi=4, max_iter=1)
    assert [p["violations"] for p in capacity.points] == [[], []], "goodput is computed against the SLO"
    assert capacity.result["capacity"] == 4 and capacity.result["bracket"] == [4, None]
    assert json.loads((tmp_path / "capacity.json").read_text())["kind"] == "capacity"
    assert len(list((tmp_path / "h" / SWEEPS / "pipe").glob("*.json"))) == 1


def test_capacity_when_even_the_lowest_load_fails(plan, tmp_path):
    capacity = execute_capacity(plan, Profile("rate", rate=2, duration_s=0.3), {"ttft_p50_ms": 0.001},
                                outdir=tmp_path, history_root=tmp_path / "h", lo=2, hi=4)
    assert capacity.result["capacity"] is None and len(capacity.points) == 1
    assert "ttft p50" in capacity.points[0]["violations"][0]


def test_percentile_limits_become_per_request_limits():
    assert _per_request_slo({"ttft_p95_ms": 500, "e2e_p50_ms": "900", "error_rate_max": 0}) == {
        "ttft_ms": 500.0, "e2e_ms": 900.0}
    assert _per_request_slo({"error_rate_max": 0}) is None and _per_request_slo(None) is None
    assert _per_request_slo({"itl_token_p95_ms": 50, "server_prompt_p50_ms": 9, "tpot_max_ms": 80}) == {
        "tpot_ms": 80.0}, "limits with no per-request value stay run-level"
