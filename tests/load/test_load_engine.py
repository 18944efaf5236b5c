"""The load engine against the scripted SSE server: timing, classification, errors, drops, loops, drain."""

from __future__ import annotations

import socket
import time

import pytest

from llamatest.load.engine.client import Target
from llamatest.load.engine.pacing import run_load_sync
from llamatest.load.engine.profiles import Profile
from llamatest.load.engine.record import RequestRecord, RunRecord
from tests.fixtures.scripted_server import DONE, PING, chat, native, sse, text, usage

pytestmark = pytest.mark.timing  # timestamps and deadlines: see the timing marker in pyproject.toml

TOL = 0.001  # every recorded time within 1 ms after the server wrote the bytes
ATTEMPTS = 5  # the machine is shared: a timing check is retried when another process delayed this one


def retried(check) -> None:
    """Runs ``check()`` (a run plus its timing assertions) until it passes, at most ATTEMPTS times: a run
    is only repeated when its timing was off, and the last failure is reported as it is."""
    for attempt in range(ATTEMPTS):
        try:
            check()
            return
        except AssertionError:
            if attempt == ATTEMPTS - 1:
                raise


def run(scripted, scripts, *, route="/v1/chat/completions", profile=None, telemetry=False, **target_kw) -> RunRecord:
    """Sends each script once, all at the same time (closed loop, one user per script)."""
    target = Target(scripted.url, route=route, **target_kw)
    profile = profile or Profile("concurrency", users=len(scripts), max_requests=len(scripts), duration_s=30,
                                 drain_timeout_s=5)
    return run_load_sync(target, profile, lambda i: {"script": scripts[i % len(scripts)], "max_tokens": 4},
                         telemetry=telemetry)


def one(scripted, script, **kw) -> RequestRecord:
    record = run(scripted, [script], **kw)
    assert len(record.requests) == 1
    return record.requests[0]


def chat_stream(tokens=("Hel", "lo"), gap=0.0) -> list:
    steps = [[gap, chat({"role": "assistant", "content": None})]]
    steps += [[gap, chat({"content": t})] for t in tokens]
    steps += [[gap, chat({}, "stop")], [gap, usage(len(tokens))], [gap, DONE]]
    return steps


def assert_close(client_t: float, t0: float, server_t: float, what: str) -> None:
    delta = client_t + t0 - server_t
    assert -1e-4 <= delta < TOL, f"{what}: client {delta * 1000:+.3f} ms after the server's write"


# ----- timing -----

def test_every_recorded_time_is_within_1_ms_of_the_servers_write(scripted):
    retried(lambda: check_single_stream_timing(scripted))


def check_single_stream_timing(scripted, stamped=True):
    script = [{"delay": 0.03, "headers": True},
              [0.03, chat({"role": "assistant", "content": None})],
              [0.02, chat({"content": "Hel"})],
              [0.02, chat({"content": "lo wor"})],  # a multi-token chunk
              [0.03, PING],
              [0.02, chat({"content": "ld"})],
              [0.02, chat({}, "stop")],
              [0.02, usage(4)],
              [0.02, DONE]]
    record = run(scripted, [script])
    r = record.requests[0]
    stamps = scripted.stamps(r.request_id)
    t0 = record.t0_perf
    assert r.error is None and r.outcome == "finish_stop"
    assert [e.kind for e in r.events] == ["role", "content", "content", "ping", "content", "finish", "usage", "done"]
    assert not any(e.coalesced for e in r.events)
    assert_close(r.t_headers, t0, stamps["headers"], "t_headers")
    for event, t_write in zip(r.events, stamps["steps"][1:], strict=True):
        assert_close(event.t, t0, t_write, f"{event.kind} event")
    assert_close(r.t_done, t0, stamps["steps"][-1], "t_done")
    assert_close(r.t_closed, t0, stamps["end"], "t_closed")
    assert r.t_dispatched < r.t_headers
    assert record.meta["engine"]["read_times"] == ("socket read" if stamped else "reader wake-up")


def test_reads_are_timed_at_the_reader_when_the_protocol_cannot_be_stamped(scripted, monkeypatch):
    from llamatest.load.engine import client

    monkeypatch.setattr(client, "stamp_reads", lambda connector, sink: False)
    retried(lambda: check_single_stream_timing(scripted, stamped=False))


def test_concurrent_streams_are_each_timed_to_1_ms(scripted):
    retried(lambda: check_concurrent_timing(scripted))


def check_concurrent_timing(scripted):
    scripts = [[[0.02 + 0.003 * k, chat({"role": "assistant", "content": None})]]
               + [[0.01 + 0.002 * j, chat({"content": "x"})] for j in range(5)]
               + [[0.01, chat({}, "length")], [0.0, DONE]] for k in range(8)]
    record = run(scripted, scripts)
    for r in record.requests:
        stamps = scripted.stamps(r.request_id)
        assert r.outcome == "finish_length"
        singles = [e for e in r.events if not e.coalesced]
        writes = [t for t, e in zip(stamps["steps"], r.events, strict=True) if not e.coalesced]
        for event, t_write in zip(singles, writes, strict=True):
            assert_close(event.t, record.t0_perf, t_write, f"request {r.index} {event.kind}")


# ----- classification -----

def test_chat_stream_kinds_and_fields(scripted):
    tool = {"tool_calls": [{"index": 0, "id": "c", "type": "function",
                            "function": {"name": "get", "arguments": '{"a":1}'}}]}
    script = [[0, sse({"choices": [{"index": 0, "delta": {}}], "prompt_progress": {"total": 5, "processed": 5}})],
              [0.005, chat({"role": "assistant", "content": None})],
              [0.005, chat({"reasoning_content": "think"})],
              [0.005, chat({"content": ""})],
              [0.005, chat({"content": "Hi!"})],
              [0.005, chat(tool)],
              [0.005, chat({}, "tool_calls")],
              [0.005, usage(3, timings={"prompt_n": 5, "predicted_n": 3, "cache_n": 0})],
              [0.005, DONE]]
    r = one(scripted, script)
    kinds = [e.kind for e in r.events]
    assert kinds == ["progress", "role", "reasoning", "other", "content", "tool_call", "finish", "usage", "done"]
    by_kind = {e.kind: e for e in r.events}
    assert by_kind["reasoning"].n_chars == 5 and by_kind["content"].n_chars == 3
    assert by_kind["tool_call"].n_chars == len("get") + len('{"a":1}')
    assert by_kind["finish"].finish_reason == "tool_calls"
    assert by_kind["usage"].usage["completion_tokens"] == 3 and by_kind["usage"].timings["predicted_n"] == 3
    assert [e.kind for e in r.token_events] == ["reasoning", "content", "tool_call"]
    assert r.outcome == "finish_tool_calls" and r.error is None
    assert r.t_done == r.events[-1].t


def test_text_completion_route(scripted):
    script = [[0, text("Once")], [0.005, text(" upon")], [0.005, text("", "length")], [0.005, usage(2)], [0, DONE]]
    r = one(scripted, script, route="/v1/completions")
    assert [e.kind for e in r.events] == ["content", "content", "finish", "usage", "done"]
    assert [e.n_chars for e in r.events[:2]] == [4, 5]
    assert r.outcome == "finish_length"


def test_native_completion_has_exact_token_counts_and_no_done(scripted):
    timings = {"prompt_n": 4, "prompt_ms": 1.5, "predicted_n": 5, "predicted_ms": 9.0, "cache_n": 0}
    script = [[0, native("He", [10])],
              [0.005, native("llo th", [11, 12, 13])],
              [0.005, native("ere", [14])],
              [0.01, native("", [], stop=True, stop_type="limit", timings=timings, tokens_predicted=5)]]
    r = one(scripted, script, route="/completion")
    assert [e.kind for e in r.events] == ["content", "content", "content", "finish"]
    assert [e.n_tokens for e in r.events] == [1, 3, 1, None]
    assert r.events[-1].timings == timings and r.events[-1].finish_reason == "length"
    assert r.t_done == r.events[-1].t
    assert r.outcome == "finish_length" and r.error is None


def test_native_stop_word_and_eos_map_to_stop(scripted):
    script = [[0, native("a", [1])], [0.005, native("", [], stop=True, stop_type="eos")]]
    r = one(scripted, script, route="/completion")
    assert r.outcome == "finish_stop" and r.events[-1].finish_reason == "stop"


def test_body_is_streamed_with_usage_and_a_request_id(scripted):
    r = one(scripted, chat_stream())
    body = scripted.stamps(r.request_id)["body"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert r.request_id.endswith("-0-0") and r.n_requested == 4 and len(r.prompt_hash) == 0


def test_native_route_gets_no_stream_options(scripted):
    r = one(scripted, [[0, native("", [], stop=True)]], route="/completion")
    body = scripted.stamps(r.request_id)["body"]
    assert body["stream"] is True and "stream_options" not in body


def test_events_of_one_read_are_coalesced_and_share_its_time(scripted):
    script = [[0, chat({"role": "assistant", "content": None}) + chat({"content": "A"})],
              [0.02, chat({"content": "B"}) + PING + chat({"content": "C"})],
              [0.02, chat({}, "stop") + usage(3) + DONE]]
    r = one(scripted, script)
    assert [(e.kind, e.coalesced) for e in r.events] == [
        ("role", False), ("content", True), ("content", False), ("ping", True), ("content", True),
        ("finish", False), ("usage", True), ("done", True)]
    assert r.events[0].t == r.events[1].t and r.events[2].t == r.events[4].t


def test_a_whole_answer_in_one_write_is_read_completely(scripted):
    everything = chat({"role": "assistant", "content": None}) + chat({"content": "A"}) + chat({}, "stop") \
        + usage(1) + DONE
    r = one(scripted, [[0, everything]])
    assert [e.kind for e in r.events] == ["role", "content", "finish", "usage", "done"]
    assert r.outcome == "finish_stop" and r.t_done == r.events[0].t <= r.t_closed


def test_a_long_fast_stream_loses_no_event(scripted):
    many = [[0, chat({"content": "x" * 50})] for _ in range(3000)] + [[0, chat({}, "length")], [0, DONE]]
    r = one(scripted, many)
    assert r.outcome == "finish_length"
    assert sum(1 for e in r.events if e.kind == "content") == 3000


def test_kept_alive_connections_are_reused_and_timed(scripted):
    profile = Profile("synchronous", max_requests=3, duration_s=10)
    record = run(scripted, [chat_stream(gap=0.005)], profile=profile, keep_alive=True)
    assert [r.outcome for r in record.requests] == ["finish_stop"] * 3
    for r in record.requests:
        stamps = scripted.stamps(r.request_id)
        assert_close(r.events[-1].t, record.t0_perf, stamps["steps"][-1], "done on a reused connection")


# ----- errors -----

@pytest.mark.parametrize(("status", "error"), [(429, "http_429"), (503, "http_503"), (400, "http_4xx"),
                                               (500, "http_5xx")])
def test_http_errors_by_class(scripted, status, error):
    r = one(scripted, [{"status": status, "json": {"error": {"code": status, "message": "nope"}}}])
    assert r.status == status and r.error == error and "nope" in r.error_detail
    assert r.t_headers is not None and r.t_closed is not None and r.outcome is None


@pytest.mark.parametrize(("name", "script", "error"), [
    ("sse error event", [[0, chat({"content": "a"})], [0, sse({"error": {"code": 500, "message": "boom"}})]],
     "sse_error_event"),
    ("bad json", [[0, "data: {not json\n\n"], [0, chat({}, "stop")], [0, DONE]], "protocol_error"),
    ("cut mid-stream", [[0, chat({"content": "a"})], {"delay": 0.01, "close": True}], "truncated_stream"),
    ("no finish and no done", [[0, chat({"content": "a"})]], "truncated_stream"),
    ("no token", [[0, chat({"role": "assistant", "content": None})], [0, chat({}, "stop")], [0, DONE]],
     "empty_output"),
    ("absurdly nested json", [[0, chat({"content": "a"})], [0, 'data: {"a": ' + "[" * 100000 + "\n\n"],
                              [0, chat({}, "stop")], [0, DONE]], "protocol_error"),
], ids=lambda x: x if isinstance(x, str) else "")
def test_stream_errors_by_class(scripted, name, script, error):
    r = one(scripted, script)
    assert r.error == error, f"{name}: {r.error} ({r.error_detail})"
    assert r.outcome is None


def test_json_answer_to_a_stream_request_is_a_protocol_error(scripted):
    target = Target(scripted.url)
    record = run_load_sync(target, Profile("synchronous", max_requests=1, duration_s=5),
                           lambda i: {"script": [[0, '{"a": 1}']], "content_type": "application/json"},
                           telemetry=False)
    r = record.requests[0]
    assert r.error == "protocol_error" and "application/json" in r.error_detail


def test_connect_error(closed_port_url):
    record = run_load_sync(Target(closed_port_url), Profile("synchronous", max_requests=1, duration_s=5),
                           lambda i: {}, telemetry=False)
    r = record.requests[0]
    assert r.error == "connect_error" and r.t_headers is None


@pytest.mark.parametrize(("script", "timeouts", "error"), [
    ([{"delay": 5, "headers": True}], {"timeout_ttft_s": 0.2}, "timeout_ttft"),
    ([[0, chat({"role": "assistant", "content": None})], [5, chat({"content": "a"})]], {"timeout_ttft_s": 0.2},
     "timeout_ttft"),
    ([[0, chat({"content": "a"})], [5, chat({"content": "b"})]], {"timeout_stall_s": 0.2}, "timeout_stall"),
    ([[0, chat({"content": "a"})]] + [[0.05, PING]] * 100, {"timeout_stall_s": 0.2}, "timeout_stall"),
    ([[0.05, chat({"content": "a"})] for _ in range(100)], {"timeout_total_s": 0.3, "timeout_stall_s": 0.2},
     "timeout_total"),
], ids=["no headers", "role but no token", "stall", "stall with pings", "total"])
def test_timeouts_end_the_request_with_their_class(scripted, script, timeouts, error):
    started = time.perf_counter()
    r = one(scripted, script, **timeouts)
    assert r.error == error, r.error_detail
    assert time.perf_counter() - started < 2.0
    limit = min(timeouts.values())
    assert r.outcome is None and r.error_detail.startswith(error)
    assert float(r.error_detail.split(" after ")[1].split(" s")[0]) >= limit


def test_connect_timeout():
    """A listener whose accept queue is full never completes the handshake of a new connection."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    fillers = []
    try:
        for _ in range(4):  # fill the accept queue
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(server.getsockname())
            fillers.append(s)
        time.sleep(0.05)
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        record = run_load_sync(Target(url, timeout_connect_s=0.2, timeout_ttft_s=5),
                               Profile("synchronous", max_requests=1, duration_s=5), lambda i: {}, telemetry=False)
    finally:
        for s in fillers:
            s.close()
        server.close()
    assert record.requests[0].error == "timeout_connect"


# ----- profiles -----

def test_requests_due_at_the_in_flight_cap_are_dropped_and_counted(scripted):
    slow = [[0, chat({"content": "a"})], [0.5, chat({}, "stop")], [0, DONE]]
    profile = Profile("rate", rate=50, duration_s=0.2, max_in_flight=2, drain_timeout_s=5)
    record = run(scripted, [slow], profile=profile)
    assert len(record.requests) == 10
    sent = [r for r in record.requests if not r.dropped]
    dropped = [r for r in record.requests if r.dropped]
    assert [r.index for r in sent] == [0, 1] and all(r.ok for r in sent)
    assert len(dropped) == 8 and all(r.t_dispatched is None and r.t_headers is None for r in dropped)
    assert "max_in_flight 2" in dropped[0].error_detail


def test_open_loop_sends_on_its_absolute_schedule(scripted):
    retried(lambda: check_schedule(scripted))


def check_schedule(scripted):
    profile = Profile("rate", rate=100, duration_s=0.3, drain_timeout_s=5)
    record = run(scripted, [chat_stream()], profile=profile)
    offsets = profile.schedule()
    assert [r.t_scheduled - record.requests[0].t_scheduled for r in record.requests] == pytest.approx(offsets)
    lags = [r.t_dispatched - r.t_scheduled for r in record.requests]
    assert all(0 <= lag < 0.005 for lag in lags), lags
    assert all(r.ok for r in record.requests)
    assert record.window[1] - record.window[0] == pytest.approx(0.3)


def test_closed_loop_never_exceeds_users_in_flight(scripted):
    stream = chat_stream(gap=0.01)
    profile = Profile("concurrency", users=3, duration_s=0.5, think_time_s=0.01, drain_timeout_s=5)
    record = run(scripted, [stream], profile=profile)
    spans = [(r.t_dispatched, r.t_closed) for r in record.requests]
    points = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans], key=lambda p: (p[0], p[1]))
    level = peak = 0
    for _, step in points:
        level += step
        peak = max(peak, level)
    assert peak == 3 and record.meta["engine"]["peak_in_flight"] == 3
    assert len(record.requests) >= 9 and all(r.ok for r in record.requests)
    assert all(r.t_dispatched < 0.5 + record.window[0] for r in record.requests)


def test_warmup_requests_go_first_and_are_marked(scripted):
    profile = Profile("synchronous", max_requests=2, warmup_requests=2, duration_s=5)
    record = run(scripted, [chat_stream()], profile=profile)
    assert [(r.index, r.phase) for r in record.requests] == [(0, "warmup"), (1, "warmup"), (2, "measure"),
                                                              (3, "measure")]
    assert record.window[0] >= max(r.t_closed for r in record.requests[:2])
    assert [r.index for r in record.measured] == [2, 3]


def test_drain_timeout_ends_open_requests_and_counts_them(scripted):
    endless = [[0, chat({"content": "a"})]] + [[0.05, chat({"content": "b"})]] * 100
    profile = Profile("rate", rate=10, duration_s=0.1, drain_timeout_s=0.2)
    started = time.perf_counter()
    record = run(scripted, [endless], profile=profile)
    assert time.perf_counter() - started < 2.0
    assert record.in_flight_at_window_end == 1 and record.drain_timed_out == 1
    assert record.requests[0].error == "drain_timeout"


def test_watchers_record_loop_lag_cpu_and_server_telemetry(scripted):
    profile = Profile("rate", rate=10, duration_s=1.1)
    record = run(scripted, [chat_stream()], profile=profile, telemetry=True)
    assert len(record.loop_lag) > 50 and all(lag >= 0 for _, lag in record.loop_lag)
    assert len(record.cpu) >= 1
    first = record.telemetry[0]
    assert first["t"] <= first["t_metrics"] <= 0  # the counters' baseline, answered before the run's start
    assert first["metrics"]["llamacpp:n_decode_total"] == 42
    # n_prompt_tokens (the tokens a slot holds) is kept as sent: this server sends none
    assert first["slots"] == [{"id": 0, "is_processing": True, "id_task": 7, "n_ctx": 512, "n_prompt_tokens": None},
                              {"id": 1, "is_processing": False, "id_task": -1, "n_ctx": 512, "n_prompt_tokens": None}]
    assert len(record.telemetry) >= 3  # start, one second later, after the drain
    assert record.telemetry[-1]["t"] >= record.window[1]


def test_run_record_round_trips(scripted):
    record = run(scripted, [chat_stream()])
    again = RunRecord.from_dict(record.as_dict())
    assert again == record
    assert "headers" not in record.target and record.target["route"] == "/v1/chat/completions"
    assert record.target["keep_alive"] is False


def test_scrape_records_odd_answers_and_stops_asking_a_disabled_endpoint():
    import asyncio

    import aiohttp
    from aiohttp import web

    from llamatest.load.engine.watchers import scrape

    async def metrics_off(request: web.Request) -> web.Response:
        return web.Response(status=501, text="metrics disabled")

    async def slots_null(request: web.Request) -> web.Response:
        return web.json_response(None)

    async def main() -> tuple[dict, dict, dict]:
        app = web.Application()
        app.router.add_get("/metrics", metrics_off)
        app.router.add_get("/slots", slots_null)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        target = Target(f"http://127.0.0.1:{runner.addresses[0][1]}/")
        want: dict = {}
        try:
            async with aiohttp.ClientSession() as session:
                first = await scrape(session, target, 1.0, want)
                second = await scrape(session, target, 2.0, want)
        finally:
            await runner.cleanup()
        return first, second, want

    first, second, want = asyncio.run(main())
    assert first == {"t": 1.0, "metrics": None, "slots": None, "errors": ["/metrics 501", "/slots TypeError"]}
    assert second == {"t": 2.0, "metrics": None, "slots": None, "errors": ["/slots TypeError"]}
    assert want == {"metrics": False}
