"""Engine + per-request metrics against scripted streams whose timing is known to the server.

The server stamps each write with the same monotonic clock the client uses, so every metric can be
recomputed from the server's side and compared: TTFT, TPOT, ITL per chunk and per token, max stall and
E2E must agree within 1 ms, and role, ping, finish, usage and ``[DONE]`` events must not count as tokens.
"""

from __future__ import annotations

import pytest

from llamatest.load.analysis.metrics import request_metrics
from llamatest.load.engine.client import Target
from llamatest.load.engine.pacing import run_load_sync
from llamatest.load.engine.profiles import Profile
from tests.fixtures.scripted_server import DONE, PING, chat, native, usage

pytestmark = pytest.mark.timing  # timestamps and deadlines: see the timing marker in pyproject.toml

TOL_MS = 1.0
ATTEMPTS = 5  # the machine is shared: a timing check is retried when another process delayed this one


def send(scripted, script, route):
    record = run_load_sync(Target(scripted.url, route=route), Profile("synchronous", max_requests=1, duration_s=10),
                           lambda i: {"script": script}, telemetry=False)
    r = record.requests[0]
    stamps = scripted.stamps(r.request_id)
    # Server times on the client's axis: milliseconds after the request was dispatched.
    server_ms = [None if t is None else (t - record.t0_perf - r.t_dispatched) * 1000 for t in stamps["steps"]]
    end_ms = (stamps["end"] - record.t0_perf - r.t_dispatched) * 1000
    return r, request_metrics(r), server_ms, end_ms


def near(actual, expected, what):
    assert actual == pytest.approx(expected, abs=TOL_MS), f"{what}: {actual:.3f} ms, server says {expected:.3f} ms"


def retried(check):
    for attempt in range(ATTEMPTS):
        try:
            return check()
        except AssertionError:
            if attempt == ATTEMPTS - 1:
                raise


CHAT = [[0.040, chat({"role": "assistant", "content": None})],  # 0: role prelude, not a token
        [0.010, PING],                                            # 1: keep-alive, not a token
        [0.020, chat({"content": "Hel"})],                        # 2: first token
        [0.015, chat({"content": "lo, w"})],                      # 3: a chunk (tokens unknown per chunk)
        [0.030, PING],                                            # 4
        [0.025, chat({"content": "orld"})],                       # 5: last token after a 55 ms stall
        [0.010, chat({}, "stop")],                                # 6: finish
        [0.010, usage(5, prompt=7)],                              # 7: usage: 5 tokens
        [0.005, DONE]]                                            # 8


def test_chat_metrics_match_the_servers_clock(scripted):
    def check():
        r, m, s, end = send(scripted, CHAT, "/v1/chat/completions")
        assert r.outcome == "finish_stop"
        near(m["ttft"], s[2], "ttft")
        near(m["ttfo"], s[2], "ttfo")
        near(m["ttfe"], s[0], "ttfe (first event of any kind)")
        near(m["e2e"], s[5], "e2e (last token)")
        near(m["e2e_closed"], end, "e2e_closed")
        near(m["tpot"], (s[5] - s[2]) / (5 - 1), "tpot")
        assert len(m["itl_chunk"]) == 2
        near(m["itl_chunk"][0], s[3] - s[2], "itl_chunk[0]")
        near(m["itl_chunk"][1], s[5] - s[3], "itl_chunk[1]")
        near(m["max_stall"], s[5] - s[3], "max_stall")
        assert (m["n_out"], m["n_out_source"], m["n_in"]) == (5, "usage", 7)
        assert m["ttft"] - m["ttfe"] >= 30  # the role and the ping came 30 ms (scripted) before the first token

    retried(check)


NATIVE = [[0.030, native("The", [10])],
          [0.020, native(" quick brown", [11, 12])],    # a 2-token chunk
          [0.030, native(" fox jumps", [13, 14, 15])],  # a 3-token chunk
          [0.010, native("", [], stop=True, stop_type="limit",
                         timings={"prompt_n": 3, "prompt_ms": 12.5, "predicted_n": 6, "predicted_ms": 50.0,
                                  "cache_n": 0})]]


def test_native_token_counts_give_exact_per_token_itl(scripted):
    def check():
        r, m, s, end = send(scripted, NATIVE, "/completion")
        assert r.outcome == "finish_length" and r.t_done is not None
        near(m["ttft"], s[0], "ttft")
        near(m["e2e"], s[2], "e2e")
        near(m["e2e_closed"], end, "e2e_closed")
        assert (m["n_out"], m["n_out_source"]) == (6, "timings")
        near(m["tpot"], (s[2] - s[0]) / 5, "tpot")
        assert m["itl_token_estimated"] is False and len(m["itl_token"]) == 5
        for got, want in zip(m["itl_token"], [(s[1] - s[0]) / 2] * 2 + [(s[2] - s[1]) / 3] * 3, strict=True):
            near(got, want, "itl_token")
        assert m["server_prompt_ms"] == 12.5
        near(m["overhead_ttft"], s[0] - 12.5, "overhead_ttft")

    retried(check)


def test_single_token_has_no_tpot(scripted):
    r, m, s, _ = send(scripted, [[0.01, chat({"content": "A"})], [0, chat({}, "length")], [0, usage(1)], [0, DONE]],
                      "/v1/chat/completions")
    assert m["n_out"] == 1 and m["tpot"] is None and m["itl_chunk"] == []
