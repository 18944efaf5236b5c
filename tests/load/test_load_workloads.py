"""Workloads against the workload fixture server: multi-turn sessions, shared prefix, routes, the registry."""

from __future__ import annotations

import json
import urllib.request

import pytest

from llamatest.load import catalog
from llamatest.load.analysis import metrics, workload_metrics
from llamatest.load.analysis.summary import summarize
from llamatest.load.engine.client import Target
from llamatest.load.engine.pacing import run_load_sync
from llamatest.load.engine.profiles import Profile
from llamatest.load.workloads import mix as route_mix
from llamatest.load.workloads import multiturn

CHAT = "/v1/chat/completions"


@pytest.fixture
def server(workloads_url):
    return workloads_url


def server_log(url: str) -> list[dict]:
    """What the server was asked since the last call (and its slots emptied)."""
    with urllib.request.urlopen(f"{url}/log?clear=1", timeout=5) as resp:
        return json.loads(resp.read())


def run(url, dataset, profile, *, route=CHAT, cold=False, max_tokens=4):
    server_log(url)
    body_for = dataset.workload.body_maker(route=route, max_tokens=max_tokens, cold=cold, extra=None)
    return run_load_sync(Target(url, route=route), profile, body_for, telemetry=False)


# ----- multi-turn -----
def test_closed_loop_users_each_hold_a_conversation_turn_by_turn(server):
    dataset = catalog.load_dataset("generated-multiturn", count=4, turns=3, words=5)
    record = run(server, dataset, Profile("concurrency", users=2, duration_s=30, max_requests=12))
    by_session: dict[int, list] = {}
    for r in record.requests:
        by_session.setdefault(r.session, []).append(r)
    assert sorted(by_session) == [0, 1, 2, 3]
    for turns in by_session.values():
        assert [r.turn for r in turns] == [0, 1, 2]
        assert all(b.t_dispatched >= a.t_closed for a, b in zip(turns, turns[1:], strict=False))
    prompts = {e["prompt"] for e in server_log(server)}
    # turn t's prompt is turn t-1's prompt, its recorded answer and the next user turn
    assert sum(1 for p in prompts if any(q != p and p.startswith(q) for q in prompts)) == 8


def test_later_turns_report_the_cached_history_and_a_warm_run_is_not_contaminated(server):
    dataset = catalog.load_dataset("generated-multiturn", count=2, turns=3, words=5)
    record = run(server, dataset, Profile("concurrency", users=2, duration_s=30, max_requests=6))
    measured = metrics.measure(record)
    block = workload_metrics.workload_block(record, measured)
    first, second, third = block["turns"]
    assert first["cached_tokens_mean"] == 0
    prompt_by = {(r.session, r.turn): measured[r.index][0]["n_in"] for r in record.requests}
    for r in record.requests:
        if r.turn:
            # the slot kept turn t-1's prompt (minus the BOS token) and then its own answer, not the recorded one
            assert measured[r.index][0]["n_cached"] == prompt_by[(r.session, r.turn - 1)] - 1
    assert 0 < second["cached_ratio"] < third["cached_ratio"] < 1
    assert not summarize(record, cold=False)["flags"]["cache_contaminated"]["set"]
    assert summarize(record, cold=True)["flags"]["cache_contaminated"]["set"]


def test_open_loop_arrivals_each_start_a_conversation_whose_turns_follow_the_answers(server):
    dataset = catalog.load_dataset("generated-multiturn", count=10, turns=2, words=3)
    profile = Profile("rate", rate=4.0, duration_s=1.0, think_time_s=0.05, drain_timeout_s=5)
    record = run(server, dataset, profile)
    first_turns = [r for r in record.requests if r.turn == 0]
    assert len(first_turns) == len(profile.plan()[0]) == 4
    assert [r.session for r in first_turns] == [0, 1, 2, 3]
    for r in first_turns:
        later = [x for x in record.requests if x.session == r.session and x.turn == 1]
        if later:  # a second turn is sent only while the window is open
            assert later[0].t_dispatched >= r.t_closed + 0.05


def test_a_cold_multi_turn_run_sends_cache_prompt_false(server):
    dataset = catalog.load_dataset("generated-multiturn", count=1, turns=2, words=3)
    record = run(server, dataset, Profile("synchronous", duration_s=30, max_requests=2), cold=True)
    assert [e["cache_n"] for e in server_log(server)] == [0, 0]
    assert len(record.requests) == 2


def test_multi_turn_on_the_messages_route_keeps_the_system_prompt_apart():
    conversations = multiturn.Conversations(((("hi", "hello"), ("more", "sure")),), system="be brief")
    body = conversations.body_maker(route="/v1/messages", max_tokens=3, cold=False, extra=None).turn_body(0, 1)
    assert body["system"] == "be brief"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][0]["content"] == "[session 0] hi"


# ----- shared prefix -----
def test_shared_prefix_system_prompt_is_exact_and_reused(server):
    dataset = catalog.load_dataset("shared-prefix", base_url=server, prefix_tokens=50, questions=8)
    assert len(dataset.workload.system) == 50  # one token per character on the fixture server
    record = run(server, dataset, Profile("concurrency", users=2, duration_s=30, max_requests=8))
    measured = metrics.measure(record)
    cached = [measured[r.index][0]["n_cached"] for r in record.requests]
    # two slots: the first request on each misses, every later one reuses at least the system prompt
    assert sorted(cached)[:2] == [0, 0]
    assert all(c >= 50 for c in sorted(cached)[2:])
    assert workload_metrics.workload_block(record, measured)["cache"]["requests_with_cache_hit"] == 6


# ----- routes -----
def test_a_route_mix_sends_each_route_its_body_and_measures_what_applies(server):
    weights = {CHAT: 1, "/v1/responses": 1, "/v1/messages": 1, "/infill": 1, "/v1/embeddings": 1,
               "/embedding": 1, "/v1/rerank": 1}
    mix = route_mix.RouteMix(("alpha beta", "gamma delta", "epsilon"), route_mix.parse_weights(weights), inputs=3)
    body_for = mix.body_maker(route=CHAT, max_tokens=5, cold=True, extra=None)
    record = run_load_sync(Target(server), Profile("concurrency", users=2, duration_s=30, max_requests=70),
                           body_for, telemetry=False)
    measured = metrics.measure(record)
    assert all(r.ok for r in record.requests), [(r.route, r.error_detail) for r in record.requests if not r.ok]
    block = workload_metrics.routes_block(record.requests, measured, metrics.window_of(record))
    assert set(block) == set(weights)
    for route, stats in block.items():
        if route in ("/v1/embeddings", "/embedding", "/v1/rerank"):
            assert "ttft_ms_p50" not in stats and stats["inputs_per_s"] > 0
        else:
            assert stats["ttft_ms_p50"] > 0 and stats["output_tokens_per_s"] > 0
    for r in record.requests:
        m = measured[r.index][0]
        if r.route in ("/v1/responses", "/v1/messages", CHAT):
            assert (m["n_out"], m["n_out_source"]) == (5, "usage")
        if r.route == "/v1/embeddings":
            assert r.n_inputs == 3 and m["ttft"] is None and m["e2e_closed"] > 0


def test_route_choice_is_seeded_and_follows_the_weights():
    mix = route_mix.RouteMix(("a",), ((CHAT, 3.0), ("/v1/embeddings", 1.0)), seed=7)
    bodies = mix.body_maker(route=CHAT, max_tokens=1, cold=True, extra=None)
    chosen = [bodies.route_of(i) for i in range(4000)]
    assert chosen == [mix.body_maker(route=CHAT, max_tokens=1, cold=True, extra=None).route_of(i)
                      for i in range(4000)]
    assert 0.72 < chosen.count(CHAT) / 4000 < 0.78


def test_an_embeddings_answer_without_one_result_per_input_is_a_bad_answer(scripted):
    class Bodies:
        def route_of(self, index):
            return "/v1/embeddings"

        def __call__(self, index):
            return {"input": ["a", "b"], "content_type": "application/json",
                    "script": [[0, json.dumps({"data": [{"embedding": [1.0]}]})]]}

    record = run_load_sync(Target(scripted.url), Profile("synchronous", duration_s=30, max_requests=1), Bodies(),
                           telemetry=False)
    assert (record.requests[0].error, record.requests[0].error_detail) == (
        "bad_answer", "/v1/embeddings answered 1 results for 2 inputs")


@pytest.mark.parametrize(("text", "message"), [
    ("/v1/chat/completions", "route=weight"),
    ("/nope=1", "route must be one of"),
    ("/v1/rerank=x", "could not convert"),
])
def test_bad_route_weights_say_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        route_mix.parse_weights(text)


# ----- the registry -----
@pytest.mark.parametrize(("name", "params", "message"), [
    ("nope", {}, "unknown dataset 'nope': use one of sharegpt, "),
    ("sharegpt-multiturn", {"turn": 3}, "takes no turn; it takes count, turns, seed, max_chars"),
    ("shared-prefix", {}, "give the server's URL"),
    ("trace", {"base_url": "http://127.0.0.1:9"}, "needs path"),
])
def test_the_registry_names_what_is_wrong(name, params, message):
    with pytest.raises(ValueError, match=message):
        catalog.load_dataset(name, **params)


# ----- through the pipeline -----
def test_a_workload_run_writes_its_workload_block_and_its_sessions(server, tmp_path):
    from llamatest.load.pipeline import Plan, execute

    dataset = catalog.load_dataset("generated-multiturn", count=2, turns=2, words=4)
    plan = Plan(name="talks", target=Target(server), dataset=dataset, max_tokens=3, cold=not dataset.warm)
    load_run = execute(plan, Profile("concurrency", users=2, duration_s=30, max_requests=4), outdir=tmp_path,
                       history_root=tmp_path / "history", save_history=False)
    turns = load_run.summary["workload"]["turns"]
    assert [(t["turn"], t["requests"]) for t in turns] == [(0, 2), (1, 2)]
    assert not load_run.summary["flags"]["cache_contaminated"]["set"]
    assert tmp_path / "turns.png" in load_run.charts
    lines = [json.loads(x) for x in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert sorted((x["session"], x["turn"]) for x in lines) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_a_workload_is_not_sharded_over_workers(server):
    from llamatest.load.pipeline import Plan

    dataset = catalog.load_dataset("generated-multiturn", count=1, turns=2)
    plan = Plan(name="talks", target=Target(server), dataset=dataset, max_tokens=3, workers=2)
    with pytest.raises(ValueError, match="the workload 'generated-multiturn' runs in one process: use workers=1"):
        plan.run(Profile("concurrency", users=2, duration_s=1))
