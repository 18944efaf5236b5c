"""The noise workload: its spec and plan (workloads/noise.py), the sender and its sink (engine/hostile.py) against a
fake server on 127.0.0.1, and the verdict (analysis/noise.py) on synthetic records that pass and fail."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest
from aiohttp import web

from llamatest.http.loopback import LoopbackApp
from llamatest.load.analysis import noise as verdicts
from llamatest.load.engine import hostile
from llamatest.load.engine.client import Target
from llamatest.load.workloads import noise
from llamatest.load.workloads.noise import NoiseSpec, ServerFacts
from llamatest.machine import NotJudged

KEY = {"Authorization": "Bearer k"}
FACTS = ServerFacts(has_key=True, headers=KEY, n_ctx=64, vision=True, sink_url="http://127.0.0.1:9")

# ----- the spec: every bad value named with its fix -----


@pytest.mark.parametrize(("given", "message"), [
    ({"rate": 0}, "noise rate must be a number > 0 (requests/s); got 0"),
    ({"rate": float("nan")}, "noise rate must be a number > 0"),
    ({"max_count": 0}, "noise max_count must be an int >= 1 (requests); got 0"),
    ({"max_count": True}, "noise max_count must be an int >= 1"),
    ({"duration_s": -1}, "noise duration_s must be a number > 0 (seconds); got -1"),
    ({"slowloris_s": 0}, "noise slowloris_s must be a number > 0 (seconds); got 0"),
    ({"kinds": ("wrong_key", "teapot")}, "noise kinds must be some of wrong_key, missing_key, malformed_json, "
                                         "over_context, over_size, slowloris, dropped_stream, media_url, "
                                         "media_missing; got unknown 'teapot'"),
    ({"kinds": ()}, "got unknown none (an empty list)"),
    ({"kinds": ("slowloris", "slowloris")}, "noise kinds are named twice: slowloris, slowloris"),
])
def test_a_bad_spec_is_refused_with_the_field_and_the_fix(given, message):
    with pytest.raises(ValueError) as caught:
        NoiseSpec(**given)
    assert message in str(caught.value)


def test_the_text_form_sets_every_part_and_takes_the_run_duration():
    spec = NoiseSpec.parse("rate=2.5 max=7 kinds=slowloris,over_size slowloris=3", duration_s=12)
    assert spec == NoiseSpec(rate=2.5, max_count=7, duration_s=12, kinds=("slowloris", "over_size"), slowloris_s=3)
    assert NoiseSpec.parse("", duration_s=4) == NoiseSpec(duration_s=4)


@pytest.mark.parametrize(("text", "message"), [
    ("rate2", "noise part 'rate2': write NAME=VALUE with NAME one of rate, max, kinds, slowloris, e.g. "
              "'rate=2 max=30'"),
    ("speed=2", "noise part 'speed=2': write NAME=VALUE"),
    ("rate=fast", "noise rate='fast': give a number, e.g. rate=2"),
    ("max=2.5", "noise max='2.5': give a number, e.g. max=2"),
    ("kinds=wrong_key,nope", "got unknown 'nope'"),
])
def test_a_bad_text_form_is_refused_on_one_line(text, message):
    with pytest.raises(ValueError) as caught:
        NoiseSpec.parse(text, duration_s=5)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


# ----- the plan: bounded by rate, count and time; kinds in turn; skipped kinds with the reason -----


def test_the_plan_is_evenly_spaced_and_takes_the_kinds_in_turn():
    spec = NoiseSpec(rate=4, max_count=100, duration_s=1.5, kinds=("wrong_key", "slowloris", "over_size"))
    sends, skipped = noise.plan(spec, FACTS)
    assert sends == [(0.0, "wrong_key"), (0.25, "slowloris"), (0.5, "over_size"), (0.75, "wrong_key"),
                     (1.0, "slowloris"), (1.25, "over_size")]
    assert skipped == {}


def test_the_plan_stops_at_max_count():
    sends, _ = noise.plan(NoiseSpec(rate=10, max_count=3, duration_s=60), FACTS)
    assert [t for t, _ in sends] == [0.0, 0.1, 0.2]


def test_a_server_without_key_nor_projector_skips_those_kinds_and_says_why():
    facts = ServerFacts(has_key=False, n_ctx=64, vision=False, sink_url=None)
    sends, skipped = noise.plan(NoiseSpec(rate=1, duration_s=5), facts)
    assert [k for _, k in sends] == ["malformed_json", "over_context", "over_size", "slowloris", "dropped_stream"]
    assert skipped["wrong_key"] == skipped["missing_key"] == (
        "the server has no API key (GET /props answers without one): any key is accepted")
    assert skipped["media_url"] == skipped["media_missing"] == (
        "the server has no image projector (modalities.vision is false in /props): it fetches nothing")


def test_nothing_is_planned_when_every_kind_is_skipped():
    facts = ServerFacts(has_key=False)
    assert noise.plan(NoiseSpec(kinds=("wrong_key",)), facts) == ([], {"wrong_key": noise.skipped(
        NoiseSpec(kinds=("wrong_key",)), facts)["wrong_key"]})


def test_each_request_carries_its_hostility():
    assert noise.request("wrong_key", 0, FACTS).headers["Authorization"] == "Bearer llamatest-wrong-key"
    assert "Authorization" not in noise.request("missing_key", 0, FACTS).headers
    assert noise.request("malformed_json", 0, FACTS).headers == {"Content-Type": "application/json", **KEY}
    with pytest.raises(json.JSONDecodeError):
        json.loads(noise.request("malformed_json", 0, FACTS).body)
    content = json.loads(noise.request("over_context", 0, FACTS).body)["messages"][0]["content"]
    assert content == "x" * (40 * 64)
    assert noise.request("over_size", 0, FACTS).pad_to == 100 * 1024 * 1024 + 1
    assert noise.request("media_url", 5, FACTS).fetch == "http://127.0.0.1:9/image.png?seed=5&noise=5"
    assert noise.request("media_missing", 6, FACTS).fetch == "http://127.0.0.1:9/no-such-image.png?seed=6&noise=6"
    assert json.loads(noise.request("dropped_stream", 0, FACTS).body)["stream"] is True


# ----- the sender and the sink, against a fake server that answers as llama-server does -----


def _error(status: int, kind: str, message: str) -> web.Response:
    return web.json_response({"error": {"message": message, "type": kind, "code": status}}, status=status)


@web.middleware
async def _keys(request: web.Request, handler):
    if request.path != "/health" and request.headers.get("Authorization") != KEY["Authorization"]:
        return _error(401, "authentication_error", "Invalid API Key")
    return await handler(request)


async def _props(_request: web.Request) -> web.Response:
    return web.json_response({"default_generation_settings": {"n_ctx": 64}, "modalities": {"vision": True}})


async def _health(_request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def _stream(request: web.Request) -> web.StreamResponse:
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    for _ in range(50):  # longer than the client listens: it hangs up after the first content
        await resp.write(b'data: {"choices": [{"delta": {"content": "a"}, "index": 0}]}\n\n')
        await asyncio.sleep(0.02)
    return resp


async def _fetch(url: str) -> int:
    async with aiohttp.ClientSession() as session, session.get(url) as resp:
        return resp.status


async def _chat(request: web.Request) -> web.StreamResponse:
    if int(request.headers.get("Content-Length", 0)) > noise.BODY_LIMIT:
        await request.read()
        return web.Response(status=413)
    try:
        body = json.loads(await request.read())
    except ValueError:
        return _error(400, "invalid_request_error", "parse error")
    content = body["messages"][0]["content"]
    if isinstance(content, list):
        fetched = await _fetch(content[1]["image_url"]["url"])
        return web.json_response({"choices": []}) if fetched == 200 else _error(500, "server_error",
                                                                                 "Failed to download image")
    if len(content) > 64:
        return _error(400, "exceed_context_size_error", "exceeds the available context size")
    return await _stream(request) if body.get("stream") else web.json_response({"choices": []})


@pytest.fixture
def fake_server():
    app = web.Application(middlewares=[_keys], client_max_size=1 << 20)
    app.router.add_get("/props", _props)
    app.router.add_get("/health", _health)
    app.router.add_post("/v1/chat/completions", _chat)
    served = LoopbackApp(app, "fake-llama-server")
    yield served.url
    served.stop()


def test_every_kind_is_sent_and_the_sink_counts_each_fetch(fake_server, monkeypatch):
    monkeypatch.setattr(noise, "BODY_LIMIT", 4096)  # the fake's limit: no 100 MiB in a unit test
    spec = NoiseSpec(rate=20, max_count=9, duration_s=1, slowloris_s=1)
    with hostile.NoiseBeside(Target(base_url=fake_server, headers=KEY), spec) as beside:
        pass
    record = beside.record
    got = {o["kind"]: verdicts.label(o) for o in record["outcomes"]}
    assert got == {"wrong_key": "401 authentication_error", "missing_key": "401 authentication_error",
                   "malformed_json": "400 invalid_request_error", "over_context": "400 exceed_context_size_error",
                   "over_size": "413 (no error object)", "slowloris": "client_gave_up",
                   "dropped_stream": "200 (no error object), then dropped_by_client",
                   "media_url": "200 (no error object)", "media_missing": "500 server_error"}
    assert (record["health_status"], record["fetched"], record["skipped"]) == (200, 2, {})
    block = verdicts.verdict(record)
    assert block["ok"], block["problems"]
    assert block["fetches"] == {"asked": 2, "counted": 2}


def test_the_sender_refuses_a_target_off_this_machine():
    with pytest.raises(ValueError, match="only to loopback hosts"):
        hostile.NoiseBeside(Target(base_url="http://10.1.2.3:8080"), NoiseSpec())


# ----- the verdict, on synthetic records -----


def _o(kind: str, status: int | None, error_type: str | None = None, outcome: str = "answered", **more) -> dict:
    return {"kind": kind, "t": 0.5, "status": status, "error_type": error_type, "message": None, "outcome": outcome,
            "detail": None, "fetch": None, **more}


GOOD = [_o("wrong_key", 401, "authentication_error"), _o("over_size", 413),
        _o("slowloris", None, outcome=noise.GAVE_UP), _o("dropped_stream", 200, outcome=noise.DROPPED),
        _o("media_url", 200), _o("media_missing", 500, "server_error")]


def _record(outcomes=GOOD, health=200, fetched=2) -> dict:
    return {"outcomes": outcomes, "health_status": health, "fetched": fetched, "skipped": {"missing_key": "why"}}


def test_documented_answers_a_healthy_server_and_matching_fetches_pass():
    block = verdicts.verdict(_record())
    assert block["ok"] and block["problems"] == []
    assert block["kinds"]["dropped_stream"] == {"sent": 1, "as_documented": 1, "got": {
        "200 (no error object), then dropped_by_client": 1},
        "expected": "200 (no error object), then dropped by the client"}
    assert block["skipped"] == {"missing_key": "why"}


@pytest.mark.parametrize(("outcome", "problem"), [
    (_o("wrong_key", 200), "wrong_key at 0.5 s got 200 (no error object), documented: 401 authentication_error"),
    (_o("over_size", 413, "invalid_request_error"), "over_size at 0.5 s got 413 invalid_request_error, documented: "
                                                    "413 (no error object)"),
    (_o("slowloris", 408), "slowloris at 0.5 s got 408 (no error object), documented: no answer; the client gives up"),
    (_o("slowloris", None, outcome="closed_by_server", detail="after 2 bytes"),
     "slowloris at 0.5 s got closed_by_server, documented: no answer; the client gives up (after 2 bytes)"),
    (_o("dropped_stream", 200), "dropped_stream at 0.5 s got 200 (no error object), documented: 200 (no error "
                                "object), then dropped by the client"),
    (_o("malformed_json", None, outcome="transport_error", detail="ServerDisconnectedError: x"),
     "malformed_json at 0.5 s got transport_error, documented: 400 invalid_request_error (ServerDisconnectedError: x)"),
])
def test_a_request_that_got_something_else_fails_the_verdict(outcome, problem):
    block = verdicts.verdict(_record([*GOOD, outcome]))
    assert not block["ok"]
    assert block["problems"] == [problem]


def test_an_unhealthy_server_fails_the_verdict():
    assert verdicts.verdict(_record(health=None))["problems"] == [
        "GET /health after the noise answered nothing, not 200"]
    assert verdicts.verdict(_record(health=503))["problems"] == ["GET /health after the noise answered 503, not 200"]


def test_a_fetch_count_that_differs_from_the_media_requests_fails_the_verdict():
    assert verdicts.verdict(_record(fetched=3))["problems"] == [
        "the server was asked to fetch 2 media URL(s) and the sink counted 3 fetch(es)"]
    unanswered = _o("media_url", None, outcome="no_answer", detail="TimeoutError: ")
    block = verdicts.verdict(_record([*GOOD, unanswered], fetched=2))
    assert block["fetches"] == {"asked": 2, "counted": 2}  # a request left without an answer is not counted as asked


def test_no_noise_at_all_fails_the_verdict():
    assert "no noise request was sent" in verdicts.verdict(_record([], fetched=0))["problems"][0]


def test_the_keyword_check_fails_with_the_problems_and_skips_a_busy_machines_timeouts():
    summary = {"noise": verdicts.verdict(_record([*GOOD, _o("wrong_key", 500, "server_error")])), "flags": {}}
    with pytest.raises(AssertionError, match="'r': the noise beside it was not answered as documented: wrong_key"):
        verdicts.noise_as_documented(summary, "r")
    late = _o("wrong_key", None, outcome="no_answer")
    busy = {"noise": verdicts.verdict(_record([*GOOD, late])), "flags": {"machine_busy": {"set": True, "detail": "x"}}}
    with pytest.raises(NotJudged):
        verdicts.noise_as_documented(busy, "r")
    with pytest.raises(AssertionError, match="sent no noise: give noise="):
        verdicts.noise_as_documented({}, "r")


def test_counter_flags_are_set_aside_beside_noise_with_their_figures():
    summary = {"flags": {"counter_mismatch": {"set": True, "detail": "moved by 420, the client counted 416"},
                         "dropped": {"set": True, "detail": "2"}}}
    assert verdicts.set_aside_spoiled_flags(summary) == ["counter_mismatch"]
    assert summary["flags"]["counter_mismatch"] == {"set": False, "detail": "not judged beside noise (the server "
                                                    "counts the noise's requests and tokens too): moved by 420, the "
                                                    "client counted 416"}
    assert summary["flags"]["dropped"]["set"] is True


def test_the_kinds_skipped_are_checked_exactly():
    summary = {"noise": verdicts.verdict(_record())}
    assert verdicts.skipped_exactly(summary, "r", ("missing_key",)) == {"missing_key": "why"}
    with pytest.raises(AssertionError, match="the noise skipped missing_key, not media_url, missing_key "
                                             r"\(missing_key: why\)"):
        verdicts.skipped_exactly(summary, "r", ("missing_key", "media_url"))
