"""StreamingLibrary end to end against the scripted fixture server."""

import asyncio
import json
import re
import time

import pytest
from robot.utils import DotDict

import StreamingLibrary as module
from llamatest.textutil import parse_json
from StreamingLibrary import StreamingLibrary

RESULT_KEYS = {"status", "headers", "content_type", "events", "comments", "done_count", "ended_with_done", "text",
               "t_headers", "t_first_event", "t_first_text", "t_end", "gaps", "body", "json_body", "error",
               "truncated_tail"}


@pytest.fixture
def lib():
    return StreamingLibrary()


def stream(lib, server, steps, timeout=5.0, **spec):
    """Stream a scripted answer (see conftest.script)."""
    return asyncio.run(lib.stream_request(server, "/script", {"steps": steps, **spec}, timeout=timeout))


def chat(lib, server, timeout=5.0, **mock):
    return asyncio.run(lib.stream_request(server, "/v1/chat/completions", {"stream": True, **mock}, timeout=timeout))


def ev(obj) -> str:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"


def delta(text) -> str:
    return ev({"choices": [{"index": 0, "delta": {"content": text}}]})


def fails(func, *args) -> str:
    with pytest.raises(AssertionError) as info:
        func(*args)
    return str(info.value)


# ---- a llama-server-like chat stream -------------------------------------------------------------------


def test_chat_stream_result(lib, server):
    r = chat(lib, server, mock_pause=0.05)
    assert isinstance(r, DotDict) and set(r) == RESULT_KEYS
    assert r.status == 200 and r.content_type == "text/event-stream"
    assert r.headers["x-accel-buffering"] == "no"
    assert len(r.events) == 7  # role, 3 tokens, finish, usage, [DONE]
    assert r.events[0].json.choices[0].delta.role == "assistant"
    assert r.events[-1] == {"t": r.events[-1].t, "event": "message", "data": "[DONE]", "json": None}
    assert r.done_count == 1 and r.ended_with_done
    assert r.text == "Hello, world"
    assert r.error is None and r.body is None and r.json_body is None and r.truncated_tail == b""
    assert r.t_headers <= r.t_first_event < r.t_first_text <= r.t_end
    assert r.t_first_text >= 0.04  # the role chunk is not a token
    assert len(r.gaps) == 2 and all(g >= 0.04 for g in r.gaps)


def test_chat_stream_assertions_pass(lib, server):
    r = chat(lib, server, mock_pause=0.01)
    lib.stream_status_should_be(r, 200)
    lib.stream_content_type_should_be(r, "text/event-stream")
    lib.stream_should_end_with_done_marker(r)
    lib.stream_should_have_no_error(r)
    lib.streamed_text_should_be(r, "Hello, world")
    objects = lib.stream_json_events(r)
    assert len(objects) == 6 and objects[-1].usage.completion_tokens == 3


def test_one_log_block_per_stream(lib, server, logged):
    r = chat(lib, server, mock_pause=0.01, mock_tokens=["<b>", "</details>"])
    assert r.text == "<b></details>"
    assert len(logged) == 1
    markup, html = logged[0]
    assert html
    assert re.match(r"<details><summary>POST /v1/chat/completions → 200 \(6 events, \d\.\d{3} s\)</summary>", markup)
    assert markup.count("<details") == markup.count("</details>") == 2  # the block and its raw events
    assert "TTFT" in markup and "[DONE]" in markup and "&lt;/details&gt;" in markup


def test_arrival_times_follow_the_server_pauses(lib, server):
    r = stream(lib, server, [delta("a"), {"sleep": 0.2}, delta("b"), {"sleep": 0.3}, delta("c")])
    times = [e.t for e in r.events]
    assert times[1] - times[0] >= 0.18 and times[2] - times[1] >= 0.28
    assert r.gaps == pytest.approx([times[1] - times[0], times[2] - times[1]])
    assert r.t_first_text == times[0] < 0.15
    assert r.t_end >= times[2]


# ---- framing edge cases, end to end --------------------------------------------------------------------


def test_crlf_and_cr_line_ends(lib, server):
    r = stream(lib, server, ["data: {\"content\": \"a\"}\r\n\r\n", "data: {\"content\": \"b\"}\r\r",
                             "data: [DONE]\r", {"sleep": 0.05}, "\n\r\n"])
    assert [e.data for e in r.events][1:] == ['{"content": "b"}', "[DONE]"]
    assert r.text == "ab" and r.ended_with_done


def test_multiline_data(lib, server):
    r = stream(lib, server, ['data: {"content":\ndata: "x\\ny"}\n\n'])
    assert r.events[0].data == '{"content":\n"x\\ny"}'
    assert r.text == "x\ny"


def test_event_split_byte_by_byte(lib, server):
    r = stream(lib, server, [{"bytewise": 'event: token\ndata: {"content": "é"}\n\n'}])
    assert [(e.event, e.data) for e in r.events] == [("token", '{"content": "é"}')]
    assert r.events[0].t >= 0.05  # ~35 bytes, 2 ms apart: the event completes with the last one
    assert r.text == "é"


def test_utf8_character_split_across_chunks(lib, server):
    raw = delta("日本").encode()
    cut = raw.index("本".encode()) + 1
    r = stream(lib, server, [{"hex": raw[:cut].hex()}, {"sleep": 0.05}, {"hex": raw[cut:].hex()}])
    assert r.text == "日本" and "\ufffd" not in r.events[0].data


def test_several_events_in_one_chunk(lib, server):
    r = stream(lib, server, [delta("a") + delta("b") + delta("c") + "data: [DONE]\n\n"])
    assert r.text == "abc" and len(r.events) == 4
    assert len({e.t for e in r.events}) == 1
    lib.stream_should_end_with_done_marker(r)


def test_bom_and_event_names(lib, server):
    r = stream(lib, server, ["\ufeffevent: message_start\ndata: {}\n\n", "event: error\ndata: {\"x\": 1}\n\n"])
    assert [e.event for e in r.events] == ["message_start", "error"]


def test_comments_are_recorded_but_never_tokens(lib, server):
    steps = [ev({"prompt_progress": {"processed": 1}}), ":\n\n", {"sleep": 0.1}, ": ping\n\n", delta("a"),
             "data: [DONE]\n\n"]
    r = stream(lib, server, steps)
    assert len(r.comments) == 2 and r.comments[1] >= 0.09
    assert len(r.events) == 3
    assert r.t_first_event <= r.comments[0] <= r.t_first_text  # a ping is not the first token
    assert r.text == "a"


def test_text_of_the_three_chunk_formats(lib, server):
    steps = [ev({"choices": [{"delta": {"role": "assistant", "content": None}}]}),
             ev({"choices": [{"delta": {"content": "chat "}}]}),
             ev({"choices": [{"text": "completion ", "index": 0}]}),
             ev({"content": "native", "stop": False}),
             ev({"content": "", "stop": True}),
             ev({"choices": [], "usage": {}})]
    r = stream(lib, server, steps)
    assert r.text == "chat completion native"
    assert len(r.gaps) == 2
    lib.stream_should_have_no_done_marker(r)


# ---- errors, deadlines, cut streams --------------------------------------------------------------------


def test_json_error_before_any_chunk(lib, server):
    body = {"json": {"error": {"code": 400, "message": "too long", "type": "exceed_context_size_error"}},
            "status": 400}
    r = asyncio.run(lib.stream_request(server, "/script", body, timeout=5))
    assert r.status == 400 and r.content_type.startswith("application/json")
    assert r.events == [] and r.error is None
    assert r.json_body.error.type == "exceed_context_size_error" and '"too long"' in r.body
    lib.stream_status_should_be(r, 400)
    assert fails(lib.stream_status_should_be, r, 200).startswith(
        "stream status was 400, expected 200; body: '{\"error\": {\"code\": 400")
    assert fails(lib.stream_should_have_no_error, r).startswith("response is an error (status 400): ")
    assert fails(lib.stream_content_type_should_be, r, "text/event-stream") == \
        "content type was 'application/json; charset=utf-8', expected it to start with 'text/event-stream'"


def test_mid_stream_error_event(lib, server):
    r = stream(lib, server, [delta("a"), ev({"error": {"code": 500, "message": "Context size has been exceeded."}})])
    assert r.error is None and r.done_count == 0
    assert fails(lib.stream_should_have_no_error, r).startswith("event 1 is an error: '{\"error\"")
    assert fails(lib.stream_should_end_with_done_marker, r).startswith("stream has no [DONE] marker (2 events; last: ")


def test_deadline_without_any_answer(lib, server, logged):
    start = time.perf_counter()
    with pytest.raises(AssertionError, match=r"^no complete answer within 0\.5 s \(0 events received\)$"):
        asyncio.run(lib.stream_request(server, "/hang", {}, timeout=0.5))
    assert time.perf_counter() - start < 2
    assert "no answer" in logged[0][0]


def test_deadline_after_some_events(lib, server):
    start = time.perf_counter()
    with pytest.raises(AssertionError, match=r"^no complete answer within 0\.5 s \(1 events received\)$"):
        stream(lib, server, [delta("a"), 'data: {"content', {"hang": True}], timeout=0.5)
    assert time.perf_counter() - start < 2


def test_deadline_result_keeps_what_arrived(lib, server):
    async def run():
        async with module._client_session() as session:
            spec = {"steps": [delta("a"), 'data: {"content', {"hang": True}]}
            return await module.stream_one(session, server + "/script", spec, None, 0.5)

    r = asyncio.run(run())
    assert r.text == "a" and r.truncated_tail == b'data: {"content'
    assert r.error == "no complete answer within 0.5 s (1 events received)"
    assert 0.5 <= r.t_end < 1.5


def test_stream_cut_mid_event(lib, server):
    with pytest.raises(AssertionError, match=r"^connection closed before the response was complete \(1 events"):
        stream(lib, server, [delta("a"), {"sleep": 0.05}, 'data: {"choices": [{"del', {"cut": True}])


def test_stream_ending_inside_an_event(lib, server):
    steps = [delta("a"), 'data: {"choices": [{"del']
    with pytest.raises(AssertionError, match=r"^stream ended inside an event \(24 bytes unterminated\)$"):
        stream(lib, server, steps)


def test_refused_connection(lib, closed_port_url):
    with pytest.raises(AssertionError, match=r"^transport error: ClientConnectorError: Cannot connect to host"):
        asyncio.run(lib.stream_request(closed_port_url, "/v1/chat/completions", {}, timeout=2))


# ---- concurrency ---------------------------------------------------------------------------------------


def test_two_concurrent_streams_overlap_and_keep_order(lib, server, logged):
    bodies = [{"mock_tokens": ["slow", "er"], "mock_pause": 0.25}, {"mock_tokens": ["fast"], "mock_pause": 0.05}]
    start = time.perf_counter()
    results = asyncio.run(lib.stream_requests_concurrently(server, "/v1/chat/completions", bodies, timeout=5))
    wall = time.perf_counter() - start
    assert [r.text for r in results] == ["slower", "fast"]
    assert results[1].t_end < results[0].t_end
    assert wall < 0.5 + 0.25  # one after the other would take >= 0.55 s
    assert len(logged) == 1 and logged[0][0].count("<tr>") == 3


def test_concurrent_errors_do_not_fail_the_batch(lib, server):
    bodies = [{"steps": [delta("ok"), "data: [DONE]\n\n"]}, {"steps": [delta("x"), {"hang": True}]},
              {"steps": [delta("y"), {"cut": True}]}]
    start = time.perf_counter()
    results = asyncio.run(lib.stream_requests_concurrently(server, "/script", bodies, timeout=0.5))
    assert time.perf_counter() - start < 2
    assert results[0].error is None and results[0].text == "ok"
    assert results[1].error == "no complete answer within 0.5 s (1 events received)"
    assert results[2].error.startswith("connection closed before the response was complete")


def test_nothing_left_pending(lib, server):
    async def run():
        await lib.stream_requests_concurrently(server, "/script", [{"steps": [{"hang": True}]}] * 3, timeout=0.3)
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    assert asyncio.run(run()) == []


# ---- assertion keywords --------------------------------------------------------------------------------


def result(*datas, **fields) -> DotDict:
    events = [DotDict(t=0.0, event="message", data=d, json=parse_json(d) if d != "[DONE]" else None)
              for d in datas]
    r = DotDict(status=200, content_type="text/event-stream", events=events, comments=[], body=None,
                json_body=None, error=None, text="", **fields)
    module._summarise(r)
    return r


def test_done_marker_assertions():
    lib = StreamingLibrary()
    lib.stream_should_have_no_done_marker(result("{}"))
    assert fails(lib.stream_should_have_no_done_marker, result("{}", "[DONE]")) == \
        "stream has 1 [DONE] marker(s), expected none"
    assert fails(lib.stream_should_end_with_done_marker, result("[DONE]", "[DONE]")) == \
        "stream has 2 [DONE] markers, expected 1"
    assert fails(lib.stream_should_end_with_done_marker, result("[DONE]", '{"a": 1}')) == \
        "[DONE] is not the last event; the last is '{\"a\": 1}'"
    assert fails(lib.stream_should_end_with_done_marker, result()) == \
        "stream has no [DONE] marker (0 events; last: none)"


def test_stream_json_events_rejects_non_json():
    lib = StreamingLibrary()
    assert lib.stream_json_events(result('{"a": 1}', "[DONE]")) == [{"a": 1}]
    assert fails(lib.stream_json_events, result('{"a": 1}', "oops")) == "event 1 is not JSON: 'oops'"


def test_streamed_text_should_be():
    lib = StreamingLibrary()
    r = result('{"content": "Hello world"}')
    lib.streamed_text_should_be(r, "Hello world")
    assert fails(lib.streamed_text_should_be, r, "Hello World!") == \
        "streamed text was 'Hello world' (11 chars), expected 'Hello World!' (12 chars); first difference at char 6"
    long = result(json.dumps({"content": "x" * 1000}))
    message = fails(lib.streamed_text_should_be, long, "y")
    assert "'xxx" in message and "…" in message and len(message) < 400


def test_stream_should_have_no_error_reports_the_recorded_error():
    lib = StreamingLibrary()
    r = result('{"content": "a"}')
    r.error = "no complete answer within 5.0 s (1 events received)"
    assert fails(lib.stream_should_have_no_error, r) == r.error
    assert fails(lib.stream_status_should_be, r, 500) == \
        "stream status was 200, expected 500; no complete answer within 5.0 s (1 events received)"
