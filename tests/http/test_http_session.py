"""The deadline adapter that every RequestsLibrary session of a server gets: deadline, failures, one log block."""

import re
import time

import pytest
import requests

from llamatest.http import session as module
from llamatest.http.session import ExchangeFailed, total_timeout

LABEL = r" \[exchange #\d+\]"  # the number of the exchange, in its block and in a failure


def fails(func, *args, **kwargs) -> str:
    with pytest.raises(ExchangeFailed) as info:
        func(*args, **kwargs)
    assert isinstance(info.value, AssertionError)  # Robot shows it as a plain failure
    return str(info.value)


def test_json_request_and_response(http, server):
    resp = http.post(server + "/echo", json={"prompt": "<é>"}, timeout=5)
    assert resp.status_code == 200
    assert resp.json()["body"] == '{"prompt": "<\\u00e9>"}'
    assert 0 < resp.elapsed.total_seconds() < 5


def test_body_without_charset_is_read_as_utf8(http, server):
    spec = {"content_type": "text/plain", "steps": ["héllo ✓"]}
    assert http.post(server + "/script", json=spec).text == "héllo ✓"


def test_each_exchange_is_logged_as_one_collapsed_block(http, server, logged):
    http.post(server + "/script", json={"json": {"content": "<b>hi</b>"}})
    assert len(logged) == 1
    markup, html = logged[0]
    assert html
    assert re.match(r"<details><summary>POST /script → 200 \(2\d chars, \d\.\d{3} s\)" + LABEL + "</summary>", markup)
    assert "&lt;b&gt;hi&lt;/b&gt;" in markup and "<b>hi</b>" not in markup
    assert "<b>request</b>" in markup and "<b>response</b>" in markup


def test_raw_body_is_logged_as_sent(http, server, logged):
    http.post(server + "/echo", data=b'{"prompt": "x",', headers={"Content-Type": "application/json"})
    assert '{&quot;prompt&quot;: &quot;x&quot;,' in logged[0][0]


def test_timeout_while_waiting_for_headers(http, server, logged):
    start = time.perf_counter()
    assert fails(http.get, server + "/hang", timeout=0.5) == "GET /hang: no answer within 0.5 s"
    assert time.perf_counter() - start < 2
    assert "GET /hang → failed" in logged[0][0]


def test_timeout_while_reading_the_body(http, server):
    start = time.perf_counter()
    spec = {"content_type": "application/json", "steps": ['{"a":', {"sleep": 3}, "1}"]}
    assert fails(http.post, server + "/script", json=spec, timeout=0.5) == "POST /script: no answer within 0.5 s"
    assert time.perf_counter() - start < 2


def test_trickling_body_is_bounded_by_the_whole_deadline(http, server):
    # Each read arrives well within the timeout, but the whole body does not.
    start = time.perf_counter()
    steps = [step for _ in range(8) for step in ("x", {"sleep": 0.15})]
    spec = {"content_type": "text/plain", "steps": steps}
    assert fails(http.post, server + "/script", json=spec, timeout=0.5) == "POST /script: no answer within 0.5 s"
    assert time.perf_counter() - start < 1.5


def test_default_deadline_applies_without_a_timeout(server):
    with module.mount(requests.Session(), timeout=0.3) as http:
        assert fails(http.get, server + "/hang") == "GET /hang: no answer within 0.3 s"


def test_refused_connection_fails_at_once_and_is_not_retried(http, closed_port_url):
    start = time.perf_counter()
    assert fails(http.get, closed_port_url + "/health", timeout=5) == \
        f"GET /health: connection refused ({closed_port_url}/health): is the server running?"
    assert time.perf_counter() - start < 0.5


def test_streamed_body_is_left_to_the_caller(http, server, logged):
    spec = {"steps": ["data: 1\n\n", {"sleep": 0.1}, "data: 2\n\n"]}
    with http.post(server + "/script", json=spec, stream=True) as resp:
        assert b"".join(resp.iter_content(None)) == b"data: 1\n\ndata: 2\n\n"
    assert logged == []


@pytest.mark.parametrize("timeout, expected", [(None, 30.0), (2, 2.0), ((1, 4), 4.0), ((None, None), 30.0)])
def test_total_timeout(timeout, expected):
    assert total_timeout(timeout, 30.0) == expected


def test_no_connection_is_reused(http, server):
    # llama-server may close a connection it offered to keep alive; a request sent on it would be reset.
    assert http.get(server + "/echo").json()["headers"]["Connection"] == "close"
    pools = http.get_adapter(server).poolmanager.pools
    idle = [conn for key in pools.keys() for conn in list(pools[key].pool.queue) if conn is not None]
    assert idle and all(conn.sock is None for conn in idle)  # closed: the next request opens a new socket
