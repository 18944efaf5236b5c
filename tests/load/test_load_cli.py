"""cli.py: python -m llamatest.load run/sweep/compare, its exit codes, one-line errors and the progress line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_load_results import summary_from_samples

from llamatest.load import cli
from llamatest.load.engine.progress import ProgressLine
from llamatest.load.engine.record import LoadEvent, RequestRecord
from llamatest.load.output.results import write_json
from llamatest.server.process import free_port

ROOT = Path(__file__).resolve().parents[2]


def error_of(capsys, argv: list[str]) -> str:
    assert cli.main(argv) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # one line
    return err.strip()


def test_unknown_profile_names_the_known_ones(capsys, scripted):
    err = error_of(capsys, ["run", "--url", scripted.url, "--profile", "burst", "--rate", "1"])
    assert err == "error: unknown profile 'burst': use one of synchronous, concurrency, rate, ramp"


def test_negative_rate_names_the_option(capsys, scripted):
    err = error_of(capsys, ["run", "--url", scripted.url, "--rate", "-2"])
    assert err == "error: --rate: rate must be > 0 for kind 'rate' (requests/s); got -2.0"


def test_a_rate_profile_without_rate_says_how(capsys, scripted):
    assert error_of(capsys, ["run", "--url", scripted.url]) == (
        "error: the rate profile needs --rate (requests/s, > 0), e.g. --rate 4")


def test_a_url_that_does_not_answer(capsys):
    url = f"http://127.0.0.1:{free_port()}"
    err = error_of(capsys, ["run", "--url", url, "--rate", "1"])
    assert err == (f"error: {url} does not answer (ConnectionError): start llama-server there or pass --url of a "
                   "running server")


def test_unknown_dataset_and_bad_slo(capsys, scripted):
    err = error_of(capsys, ["run", "--url", scripted.url, "--rate", "1", "--dataset", "nope"])
    assert err.startswith("error: ") and "unknown dataset 'nope'" in err
    err = error_of(capsys, ["run", "--url", scripted.url, "--rate", "1", "--slo", "ttft_p42_ms=3"])
    assert err.startswith("error: --slo 'ttft_p42_ms=3': unknown SLO 'ttft_p42_ms'; valid: ")


def test_a_run_writes_the_keywords_files_and_a_missed_slo_exits_1(capsys, scripted, tmp_path):
    """The scripted server answers these bodies (no script) with an empty stream: every request fails."""
    code = cli.main(["run", "--url", scripted.url, "--profile", "synchronous", "--max-requests", "3",
                     "--duration", "30", "--dataset", "sharegpt", "--count", "5", "--output", str(tmp_path / "run"),
                     "--history", str(tmp_path / "history"), "--slo", "error_rate_max=0"])
    out = capsys.readouterr().out
    assert code == cli.EXIT_MISSED
    assert "requests: 0 ok of 3, 3 errors {'truncated_stream': 3}, 0 dropped" in out
    assert "SLO missed: error_rate 1 > limit 0" in out
    files = {p.name for p in (tmp_path / "run").iterdir()}
    assert {"summary.json", "requests.jsonl", "summary.csv", "latency_percentiles.png"} <= files
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["profile"]["kind"] == "synchronous" and summary["counts"]["attempted"] == 3
    assert summary["flags"]["invalid_stream"]["set"] is False  # failed requests are not judged as streams


def test_compare_two_runs(capsys, tmp_path):
    a = summary_from_samples({"ttft_ms": [10.0 + i % 3 for i in range(50)]})
    b = summary_from_samples({"ttft_ms": [30.0 + i % 3 for i in range(50)]})
    write_json(tmp_path / "a" / "summary.json", a)
    write_json(tmp_path / "b.json", b)
    assert cli.main(["compare", str(tmp_path / "b.json"), str(tmp_path / "a")]) == cli.EXIT_MISSED
    out = capsys.readouterr().out
    assert out.startswith(f"{tmp_path / 'b.json'} against {tmp_path / 'a'}: regressed")
    assert cli.main(["compare", str(tmp_path / "a"), str(tmp_path / "a")]) == cli.EXIT_OK
    err = error_of(capsys, ["compare", str(tmp_path / "missing"), str(tmp_path / "a")])
    assert err.startswith("error: ") and "no such file" in err and "give a run folder" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def record(i: int, ttft_s: float | None, error: str | None = None, closed: bool = True) -> RequestRecord:
    events = [LoadEvent(0.1 + ttft_s, "content", n_chars=2)] if ttft_s is not None else []
    return RequestRecord(index=i, t_scheduled=0.0, t_dispatched=0.1, t_closed=1.0 if closed else None, error=error,
                         events=events)


def test_progress_line_on_a_terminal_and_none_otherwise():
    records = [record(0, 0.040), record(1, None, closed=False), record(2, 0.060), record(3, None, "http_5xx")]
    term = Terminal()
    line = ProgressLine(term, label="rate 4/s: ")
    line(records, 1)
    assert term.getvalue().strip() == "rate 4/s: 3 done, 1 in flight, 1 errors, TTFT p50 50 ms"
    records[1] = record(1, 0.020)
    line(records, 0)
    line.close()
    assert term.getvalue().rstrip("\n").split("\r")[-1].strip() == (
        "rate 4/s: 4 done, 0 in flight, 1 errors, TTFT p50 40 ms")
    assert term.getvalue().endswith("\n")
    piped = io.StringIO()
    silent = ProgressLine(piped)
    silent(records, 0)
    silent.close()
    assert piped.getvalue() == ""


def test_python_dash_m_runs_the_command_line():
    proc = subprocess.run([sys.executable, "-m", "llamatest.load", "run", "--help"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env={"PYTHONPATH": str(ROOT / "libraries"), "PATH": "/usr/bin"})
    assert proc.returncode == 0 and "--check-answers K" in proc.stdout and "--slo NAME=VALUE" in proc.stdout


@pytest.mark.parametrize("argv", [["run"], ["frobnicate"]])
def test_argparse_errors_exit_2(argv):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2


def test_dataset_params_are_typed_and_checked():
    assert cli._params(["turns=4", "rate=0.5", "path=t.jsonl"]) == {"turns": 4, "rate": 0.5, "path": "t.jsonl"}
    with pytest.raises(cli.UsageError, match="--dataset-param 'turns': write NAME=VALUE"):
        cli._params(["turns"])


def test_a_bad_noise_spec_is_named_before_the_server_is_asked(capsys, closed_port_url):
    err = error_of(capsys, ["run", "--url", closed_port_url, "--profile", "concurrency", "--noise", "rate=0"])
    assert err == "error: --noise 'rate=0': noise rate must be a number > 0 (requests/s); got 0.0"
