"""Trace files (three formats, bad rows), the seeded bursty trace, and its replay with exact token counts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from llamatest.load import catalog
from llamatest.load.analysis import metrics
from llamatest.load.engine.client import Target
from llamatest.load.engine.pacing import run_load_sync
from llamatest.load.engine.profiles import Profile
from llamatest.load.workloads import traces


@pytest.fixture
def server(workloads_url):
    return workloads_url


def write(tmp_path, name: str, lines: list) -> str:
    path = tmp_path / name
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return str(path)


def test_the_three_formats_read_to_the_same_rows(tmp_path):
    ours = write(tmp_path, "ours.jsonl", [{"offset_s": 1.5, "input_tokens": 10, "output_tokens": 3, "session": 7},
                                          {"offset_s": 1.0, "input_tokens": 20, "output_tokens": 4}])
    mooncake = write(tmp_path, "mooncake.jsonl", [{"timestamp": 1000, "input_length": 20, "output_length": 4,
                                                   "hash_ids": [1, 2]},
                                                  {"timestamp": 1500, "input_length": 10, "output_length": 3}])
    burstgpt = write(tmp_path, "burst.csv", ["Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type",
                                             "5.0,ChatGPT,20,4,24,Conversation log",
                                             "5.2,ChatGPT,99,0,99,Conversation log",
                                             "5.5,GPT-4,10,3,13,API log"])
    read = {name: traces.read_trace(path) for name, path in
            (("ours", ours), ("mooncake", mooncake), ("burstgpt", burstgpt))}
    for name, (rows, source) in read.items():
        assert [(r.offset_s, r.input_tokens, r.output_tokens) for r in rows] == [(0.0, 20, 4), (0.5, 10, 3)], name
        assert source["format"] == ("llamatest" if name == "ours" else name)
    assert read["ours"][0][1].session == "7"
    assert read["mooncake"][0][0].hash_ids == (1, 2)
    assert read["burstgpt"][1]["skipped"] == 1  # the failed request (0 response tokens)


@pytest.mark.parametrize(("lines", "message"), [
    (['{"offset_s": 0, "input_tokens": 5, "output_tokens": 2}', "{oops"], r"t\.jsonl:2: not a JSON object"),
    ([{"offset_s": 0, "input_tokens": "many", "output_tokens": 2}], r"t\.jsonl:1: input_tokens is not a number"),
    ([{"offset_s": -1, "input_tokens": 5, "output_tokens": 2}], r"t\.jsonl:1: offset_s must be a number >= 0"),
    ([{"offset_s": 0, "input_tokens": 5.5, "output_tokens": 2}], r"t\.jsonl:1: input_tokens must be a whole number"),
    ([{"offset_s": 0, "input_tokens": 5, "output_tokens": 0}], r"t\.jsonl:1: .* must be at least 1"),
    (["", {"when": 0, "in": 5}], r"t\.jsonl:2: columns \['in', 'when'\] match no trace format"),
])
def test_a_bad_row_gives_one_line_with_file_line_and_problem(tmp_path, lines, message):
    path = write(tmp_path, "t.jsonl", lines)
    with pytest.raises(traces.TraceError, match=message) as caught:
        traces.read_trace(path)
    assert "\n" not in str(caught.value)


def test_the_bursty_trace_is_seeded_and_burstier_than_poisson():
    rows = traces.bursty_trace(400, rate=2.0, burstiness=0.25, seed=3)
    assert rows == traces.bursty_trace(400, rate=2.0, burstiness=0.25, seed=3)
    gaps = np.diff([r.offset_s for r in rows])
    assert np.std(gaps) / np.mean(gaps) > 1.5  # Poisson gaps have a coefficient of variation of 1
    assert 1.5 < len(rows) / rows[-1].offset_s < 2.7
    assert all(32 <= r.input_tokens <= 256 and 8 <= r.output_tokens <= 64 for r in rows)


def test_a_written_trace_reads_back(tmp_path):
    rows = traces.bursty_trace(5, seed=1)
    back, _ = traces.read_trace(traces.write_trace(rows, tmp_path / "t.jsonl"))
    assert back == rows


def test_replay_sends_on_the_trace_schedule_with_exact_token_counts(server):
    dataset = catalog.load_dataset("bursty-trace", base_url=server, requests=12, rate=8.0, seed=2)
    rows = dataset.workload.rows
    body_for = dataset.workload.body_maker(route="/v1/chat/completions", max_tokens=1, cold=False, extra=None)
    record = run_load_sync(Target(server), Profile("rate", rate=8.0, duration_s=30, drain_timeout_s=10), body_for,
                           telemetry=False)
    assert [round(r.t_scheduled - record.requests[0].t_scheduled, 6) for r in record.requests] == [
        r.offset_s for r in rows]
    measured = metrics.measure(record)
    assert [(measured[r.index][0]["n_in"], measured[r.index][0]["n_out"]) for r in record.requests] == [
        (r.input_tokens, r.output_tokens) for r in rows]
    assert [r.n_prompt_expected for r in record.requests] == [r.input_tokens for r in rows]


def test_rows_of_one_session_share_their_prompt_prefix(server):
    rows = [traces.TraceRow(0.0, 40, 1, "a"), traces.TraceRow(0.1, 60, 1, "a"), traces.TraceRow(0.2, 60, 1, "b")]
    prompts = traces.build_prompts(server, rows, route=None).prompts
    assert prompts[1].startswith(prompts[0][:-1])
    assert prompts[0].startswith("[sa] ") and prompts[2].startswith("[sb] ")
    assert prompts[2][5:25] != prompts[0][5:25]  # another session: other filler
