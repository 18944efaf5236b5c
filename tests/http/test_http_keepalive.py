"""Two requests on one raw connection (llamatest.http.keepalive) against the aiohttp fixture server, which keeps
connections alive, and against answers that end with the connection cut."""

from __future__ import annotations

import json
import re

import pytest

from llamatest.http.keepalive import reuse_html, second_request_should_be_answered, two_requests

STREAM = {"content_type": "text/event-stream", "steps": ["data: {\"a\": 1}\n\n", "data: [DONE]\n\n"]}


def test_a_keep_alive_server_answers_the_second_request_after_a_stream(server):
    reuse = two_requests(server, ("POST", "/script", STREAM), ("GET", "/echo?n=2", None), timeout=5)
    assert reuse.first.status == 200 and reuse.first.text == 'data: {"a": 1}\n\ndata: [DONE]\n\n'
    assert reuse.first.headers["transfer-encoding"] == "chunked" and not reuse.announced_close
    assert reuse.second is not None and reuse.second.status == 200 and reuse.error == ""
    assert json.loads(reuse.second.text)["query"] == "n=2"
    second_request_should_be_answered(reuse, 200)


def test_a_keep_alive_server_answers_the_second_request_after_a_json_answer(server):
    reuse = two_requests(server, ("POST", "/script", {"json": {"x": [1, 2]}}), ("GET", "/echo", None), timeout=5)
    assert reuse.first.json == {"x": [1, 2]} and "content-length" in reuse.first.headers
    assert reuse.second is not None and json.loads(reuse.second.text)["method"] == "GET"
    second_request_should_be_answered(reuse, 200)
    with pytest.raises(AssertionError, match=r"^GET /echo on the reused connection answered 200, expected 404$"):
        second_request_should_be_answered(reuse, 404)


def test_the_given_headers_go_with_both_requests(server):
    key = {"Authorization": "Bearer k-1"}
    reuse = two_requests(server, ("POST", "/echo", {"a": 1}), ("GET", "/echo", None), timeout=5, headers=key)
    assert json.loads(reuse.first.text)["headers"]["Authorization"] == "Bearer k-1"
    assert reuse.second is not None and json.loads(reuse.second.text)["headers"]["Authorization"] == "Bearer k-1"


def test_a_server_that_closes_after_a_whole_answer_fails_with_a_clear_message(server):
    body = "data: x\n\n"
    headers = {"Content-Length": str(len(body)), "Keep-Alive": "timeout=5"}
    spec = {"content_type": "text/event-stream", "headers": headers, "steps": [body, {"sleep": 0.2}, {"cut": True}]}
    reuse = two_requests(server, ("POST", "/script", spec), timeout=5)
    assert reuse.first.text == body and reuse.second is None and not reuse.announced_close
    assert reuse.error == "the server closed the connection without answering it"
    assert reuse.closed_after_s is not None and 0 < reuse.closed_after_s < 5
    with pytest.raises(AssertionError) as info:
        second_request_should_be_answered(reuse)
    assert str(info.value).startswith(
        "POST /script answered 200 and its headers did not say Connection: close (Keep-Alive: timeout=5), but the "
        "next request on the same connection got no answer: the server closed the connection without answering "
        "it; the connection closed ")
    assert "no answer to the second request" in reuse_html(reuse)


def test_a_close_the_first_answer_announced_passes_only_when_allowed(server):
    body = "data: x\n\n"
    headers = {"Content-Length": str(len(body)), "Connection": "close"}
    spec = {"content_type": "text/event-stream", "headers": headers, "steps": [body, {"sleep": 0.2}, {"cut": True}]}
    reuse = two_requests(server, ("POST", "/script", spec), timeout=5)
    assert reuse.second is None and reuse.announced_close
    second_request_should_be_answered(reuse, 200, unless_announced=True)
    with pytest.raises(AssertionError, match="it said Connection: close, but the next request"):
        second_request_should_be_answered(reuse, 200)


def test_a_first_answer_cut_short_fails_at_once(server):
    spec = {"steps": ["data: x\n\n", {"cut": True}]}
    with pytest.raises(AssertionError, match=r"^POST /script: the server closed the connection before its answer "
                                             r"was complete \(\d+ bytes received\)$"):
        two_requests(server, ("POST", "/script", spec), timeout=5)


def test_the_bytes_of_a_chunked_answer_cut_short_are_all_counted(server):
    spec = {"steps": ["data: x\n\n", {"sleep": 0.1}, {"cut": True}]}
    with pytest.raises(AssertionError) as info:
        two_requests(server, ("POST", "/script", spec), timeout=5)
    received = int(re.search(r"\((\d+) bytes received\)$", str(info.value)).group(1))
    head = len("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert received >= head + len("9\r\ndata: x\n\n\r\n")  # the chunk read, not only the head


def test_a_first_answer_past_the_deadline_fails_with_one_clear_message(server):
    with pytest.raises(AssertionError, match=r"^GET /hang: no complete answer before the deadline$"):
        two_requests(server, ("GET", "/hang", None), timeout=0.3)


def test_the_log_block_shows_each_answer_as_an_exchange(server):
    reuse = two_requests(server, ("POST", "/script", {"json": {"x": 1}}), ("GET", "/echo", None), timeout=5)
    block = reuse_html(reuse)
    assert block.count("response headers") == 2 and "POST /script → 200 (" in block and "GET /echo → 200 (" in block
    assert "then on the same connection: GET /echo → 200" in block


def test_one_deadline_covers_both_requests(server):
    reuse = two_requests(server, ("GET", "/echo", None), ("GET", "/hang", None), timeout=0.5)
    assert reuse.first.status == 200 and reuse.second is None
    assert reuse.error == "GET /hang (on the same connection): no complete answer before the deadline"
    assert reuse.closed_after_s is None


def test_a_closed_port_is_a_clear_error(closed_port_url):
    with pytest.raises(AssertionError, match=r"^GET /health: cannot connect to 127\.0\.0\.1:\d+: "):
        two_requests(closed_port_url, ("GET", "/health", None), timeout=2)
