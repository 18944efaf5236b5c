"""The streamed-request client and the request keywords, end to end against the scripted fixture server."""

import asyncio
import json
import re
import time

import pytest

import StreamingLibrary as facade
from llamatest.server import running
from llamatest.streaming import checks
from llamatest.streaming.client import client_session, stream_one
from llamatest.streaming.result import StreamEvent, StreamResult
from StreamingLibrary import StreamingLibrary

LABEL = r" \[exchange #\d+\]"  # the number of the stream's exchange, in its block and in a failure


@pytest.fixture
def lib():
    return StreamingLibrary()


def stream(lib, server, steps, timeout=5.0, **spec):
    """Stream a scripted answer (see tests/fixtures/http_server.py, script)."""
    return asyncio.run(lib.stream_request("/script", {"steps": steps, **spec}, server=server, timeout=timeout))


def chat(lib, server, timeout=5.0, **mock):
    body = {"stream": True, **mock}
    return asyncio.run(lib.stream_request("/v1/chat/completions", body, server=server, timeout=timeout))


def one(server, path, body, deadline_s):
    """`stream_one` on its own session: the result, whatever happened."""
    async def run():
        async with client_session() as session:
            return await stream_one(session, server + path, body, None, deadline_s)
    return asyncio.run(run())


def ev(obj) -> str:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"


def delta(text) -> str:
    return ev({"choices": [{"index": 0, "delta": {"content": text}}]})


# ---- a llama-server-like chat stream -------------------------------------------------------------------


def test_chat_stream_result(lib, server):
    r = chat(lib, server, mock_pause=0.05)
    assert isinstance(r, StreamResult)
    assert r.url == server + "/v1/chat/completions" and r.method == "POST" and r.where == "POST /v1/chat/completions"
    assert r.request_body == {"stream": True, "mock_pause": 0.05}
    assert r.status == 200 and r.content_type == "text/event-stream" and r.media_type == "text/event-stream"
    assert r.headers["x-accel-buffering"] == "no"
    assert len(r.events) == 7  # role, 3 tokens, finish, usage, [DONE]
    assert all(isinstance(e, StreamEvent) for e in r.events)
    assert r.events[0].json["choices"][0]["delta"]["role"] == "assistant"
    assert r.events[-1] == StreamEvent(t=r.events[-1].t, event="message", data="[DONE]", json=None)
    assert r.done_count == 1 and r.ended_with_done
    assert r.text == "Hello, world"
    assert len(checks.json_events(r)) == 6 and checks.json_events(r)[-1]["usage"] == {"completion_tokens": 3}
    assert r.error is None and r.body is None and r.json_body is None and r.truncated_tail == b""
    assert r.t_headers <= r.t_first_event < r.t_first_text <= r.t_end
    assert r.t_first_text >= 0.04  # the role chunk is not a token
    assert len(r.gaps) == 2 and all(g >= 0.04 for g in r.gaps)
    assert [t for t, _ in r.text_events()] == [r.t_first_text, *(e.t for e in r.events[2:4])]


def test_events_are_frozen(lib, server):
    r = chat(lib, server, mock_pause=0.0)
    with pytest.raises(AttributeError):
        r.events[0].data = "x"


def test_result_times_share_one_clock(server):
    before = time.perf_counter()
    r = one(server, "/v1/chat/completions", {"mock_pause": 0.0}, 5)
    assert before <= r.t0 <= time.perf_counter() - r.t_end


def test_one_log_block_per_stream(lib, server, logged):
    r = chat(lib, server, mock_pause=0.01, mock_tokens=["<b>", "</details>"])
    assert r.text == "<b></details>"
    assert len(logged) == 1
    markup, html = logged[0]
    assert html
    summary = r"<details><summary>POST /v1/chat/completions → 200 \(6 events, \d\.\d{3} s\)" + LABEL + "</summary>"
    assert re.match(summary, markup)
    assert markup.count("<details") == markup.count("</details>") == 2  # the block and its raw events
    assert "TTFT" in markup and "[DONE]" in markup and "&lt;/details&gt;" in markup
    assert server + "/v1/chat/completions" in markup and "mock_tokens" in markup  # url and request


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
    assert len(r.gaps) == 2 and r.done_count == 0


def test_event_stream_is_told_by_its_exact_media_type(lib, server):
    r = stream(lib, server, [delta("a")], content_type="text/event-stream; charset=utf-8")
    assert r.text == "a" and r.body is None
    r = stream(lib, server, [delta("a")], content_type="text/event-streams")
    assert r.events == [] and r.body == delta("a") and r.text == ""


# ---- status expectations -------------------------------------------------------------------------------


ERROR_400 = {"json": {"error": {"code": 400, "message": "too long", "type": "exceed_context_size_error"}},
             "status": 400}


def test_json_error_before_any_chunk(lib, server):
    r = asyncio.run(lib.stream_request("/script", ERROR_400, server=server, expected_status=400, timeout=5))
    assert r.status == 400 and r.media_type == "application/json"
    assert r.events == [] and r.error is None
    assert r.json_body["error"]["type"] == "exceed_context_size_error" and '"too long"' in r.body


def test_unexpected_status_fails_with_the_error_body(lib, server, logged):
    with pytest.raises(AssertionError) as info:
        asyncio.run(lib.stream_request("/script", ERROR_400, server=server, timeout=5))
    assert re.fullmatch(r'POST /script: status was 400, expected 200; error exceed_context_size_error: "too long" '
                        r"\[exchange #\d+\]", str(info.value))
    assert "\n" not in str(info.value)
    assert len(logged) == 1  # logged before failing


def test_expected_status_any_skips_the_check(lib, server):
    r = asyncio.run(lib.stream_request("/script", ERROR_400, server=server, expected_status="any", timeout=5))
    assert r.status == 400
    r = asyncio.run(lib.stream_request("/script", {"text": "busy", "status": 503}, server=server,
                                       expected_status="any", timeout=5))
    assert r.status == 503 and r.body == "busy"


def test_expected_status_does_not_excuse_a_cut_stream(lib, server):
    with pytest.raises(AssertionError, match=r"^POST /script: connection closed before the response was complete"):
        asyncio.run(lib.stream_request("/script", {"steps": [delta("y"), {"cut": True}]}, server=server,
                                       expected_status="any", timeout=5))


# ---- errors, deadlines, cut streams --------------------------------------------------------------------


def test_deadline_without_any_answer(lib, server, logged):
    start = time.perf_counter()
    expected = r"^POST /hang: no complete answer within 0\.3 s \(0 events received\)" + LABEL + "$"
    with pytest.raises(AssertionError, match=expected):
        asyncio.run(lib.stream_request("/hang", {}, server=server, timeout=0.3))
    assert time.perf_counter() - start < 2
    assert "no answer" in logged[0][0]


def test_deadline_after_some_events(lib, server):
    start = time.perf_counter()
    with pytest.raises(AssertionError, match=r": no complete answer within 0\.3 s \(1 events received\)" + LABEL + "$"):
        stream(lib, server, [delta("a"), 'data: {"content', {"hang": True}], timeout=0.3)
    assert time.perf_counter() - start < 2


def test_deadline_result_keeps_what_arrived(server):
    r = one(server, "/script", {"steps": [delta("a"), 'data: {"content', {"hang": True}]}, 0.3)
    assert r.text == "a" and r.truncated_tail == b'data: {"content'
    assert r.error == "no complete answer within 0.3 s (1 events received)"
    assert 0.3 <= r.t_end < 1.3


def test_stream_cut_mid_event(lib, server):
    with pytest.raises(AssertionError, match=r": connection closed before the response was complete \(1 events"):
        stream(lib, server, [delta("a"), {"sleep": 0.05}, 'data: {"choices": [{"del', {"cut": True}])


def test_stream_ending_inside_an_event(lib, server, logged):
    steps = [delta("a"), 'data: {"choices": [{"del']
    expected = r"^POST /script: stream ended inside an event \(24 bytes unterminated\)" + LABEL + "$"
    with pytest.raises(AssertionError, match=expected):
        stream(lib, server, steps)
    assert "unterminated tail" in logged[0][0]


def test_refused_connection(lib, closed_port_url):
    with pytest.raises(AssertionError, match=r"^POST /v1/chat/completions: transport error: ClientConnectorError: "):
        asyncio.run(lib.stream_request("/v1/chat/completions", {}, server=closed_port_url, timeout=2))


def test_stream_one_never_raises(closed_port_url):
    r = one(closed_port_url, "/x", {}, 2)
    assert r.status is None and r.events == [] and r.error.startswith("transport error: ")
    assert r.t_first_text is None and r.gaps == [] and r.text == ""


# ---- server aliases ------------------------------------------------------------------------------------


class FakeServers:
    """Stands in for the servers LlamaServerLibrary registers (llamatest.server.running): knows the aliases in
    `urls`."""

    def __init__(self, urls):
        self.urls = urls
        self.asked = []

    def url(self, alias="suite"):
        self.asked.append(alias)
        if alias not in self.urls:
            raise AssertionError(f"no llama-server with alias '{alias}'")
        return self.urls[alias]

    def headers(self, alias="suite"):
        return {}


@pytest.fixture
def servers(monkeypatch, server, closed_port_url):
    fake = FakeServers({"suite": server, "down": closed_port_url})
    monkeypatch.setattr(running, "url", fake.url)
    monkeypatch.setattr(running, "headers", fake.headers)
    return fake


def test_default_server_is_the_suite_alias(lib, servers):
    r = asyncio.run(lib.stream_request("/v1/chat/completions", {"mock_pause": 0}))
    assert servers.asked == ["suite"] and r.text == "Hello, world"


def test_server_alias_is_resolved(lib, servers, closed_port_url):
    with pytest.raises(AssertionError, match="transport error"):
        asyncio.run(lib.stream_request("/v1/chat/completions", {}, server="down", timeout=2))
    results = asyncio.run(lib.stream_requests_concurrently("/v1/chat/completions", [{"mock_pause": 0}]))
    assert servers.asked == ["down", "suite"] and results[0].text == "Hello, world"


def test_unknown_alias_fails(lib, servers):
    with pytest.raises(AssertionError, match="^no llama-server with alias 'other'$"):
        asyncio.run(lib.stream_request("/completion", {}, server="other"))


def test_urls_are_used_as_is(monkeypatch):
    monkeypatch.setattr(running, "url", None)  # would fail if asked
    assert facade._base_url("http://127.0.0.1:1") == "http://127.0.0.1:1"
    assert facade._base_url("https://example.org/base/") == "https://example.org/base/"


def test_alias_without_llama_server_library_says_why(monkeypatch):
    monkeypatch.setattr(running, "_current", [])  # no library instance in this process
    with pytest.raises(RuntimeError, match="^cannot resolve server alias 'suite': no LlamaServerLibrary in this "):
        facade._base_url("suite")


# ---- concurrency ---------------------------------------------------------------------------------------


def test_two_concurrent_streams_overlap_and_keep_order(lib, server, logged):
    bodies = [{"mock_tokens": ["slow", "er"], "mock_pause": 0.25}, {"mock_tokens": ["fast"], "mock_pause": 0.05}]
    start = time.perf_counter()
    results = asyncio.run(lib.stream_requests_concurrently("/v1/chat/completions", bodies, server=server, timeout=5))
    wall = time.perf_counter() - start
    assert [r.text for r in results] == ["slower", "fast"]
    assert [r.request_body for r in results] == bodies
    assert results[1].t_end < results[0].t_end
    assert abs(results[0].t0 - results[1].t0) < 0.1  # started together
    assert wall < 0.5 + 0.25  # one after the other would take >= 0.55 s
    assert len(logged) == 1 and logged[0][0].count("<tr>") == 3
    assert logged[0][0].startswith("<details><summary>POST /v1/chat/completions × 2 concurrently (0 errors, ")


def test_concurrent_errors_do_not_fail_the_batch(lib, server, logged):
    bodies = [{"steps": [delta("ok"), "data: [DONE]\n\n"]}, {"steps": [delta("x"), {"hang": True}]},
              {"steps": [delta("y"), {"cut": True}]}, {"json": {"error": {"code": 503}}, "status": 503}]
    start = time.perf_counter()
    results = asyncio.run(lib.stream_requests_concurrently("/script", bodies, server=server, timeout=0.3))
    assert time.perf_counter() - start < 2
    assert results[0].error is None and results[0].text == "ok"
    assert results[1].error == "no complete answer within 0.3 s (1 events received)"
    assert results[2].error.startswith("connection closed before the response was complete")
    assert results[3].status == 503 and results[3].error is None
    assert "(2 errors, " in logged[0][0]


def test_empty_batch(lib, server, logged):
    assert asyncio.run(lib.stream_requests_concurrently("/completion", [], server=server)) == []
    assert "POST /completion × 0 concurrently" in logged[0][0]


def test_nothing_left_pending(lib, server):
    async def run():
        await lib.stream_requests_concurrently("/script", [{"steps": [{"hang": True}]}] * 3, server=server,
                                               timeout=0.3)
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    assert asyncio.run(run()) == []
