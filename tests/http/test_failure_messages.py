"""Failures that explain themselves: the status check of RequestsLibrary on our sessions, the domain checks,
streams, JSON fields, each naming the exchange it judged (``[exchange #12]``), and the numbered log blocks."""

import asyncio
import html
import json
import re

import pytest
import requests
from RequestsLibrary import RequestsLibrary

from HttpApiLibrary import HttpApiLibrary
from llamatest.http import exchanges
from llamatest.http.explain import answer_summary
from llamatest.http.logblock import RECORD_ATTRIBUTE
from llamatest.http.session import ExchangeFailed, StatusMismatch, mount
from robot_glue import explain_status_failures, log_html
from StreamingLibrary import StreamingLibrary

LLAMA_ERROR = {"error": {"code": 500, "message": "'tokens' is required", "type": "server_error"}}
LABEL = re.compile(r" \[exchange #(\d+)\]$")


def failure(func, *args, **kwargs) -> str:
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)


def records(markup: str) -> list[dict]:
    return [json.loads(html.unescape(found)) for found in re.findall(RECORD_ATTRIBUTE + r'="([^"]*)"', markup)]


@pytest.fixture
def requests_library(server):
    """RequestsLibrary's own keywords on a session with our adapter, its status check explained, as in a suite."""
    library = RequestsLibrary()
    mount(library.create_session("fixture", server, max_retries=0), log=log_html)
    explain_status_failures(library)
    return library


# ---- what the server said ------------------------------------------------------------------------------


@pytest.mark.parametrize("body, expected", [
    (json.dumps(LLAMA_ERROR), 'error server_error: "\'tokens\' is required"'),
    ('{"error": {"message": "Incorrect API key", "type": "invalid_request_error", "code": "invalid_api_key"}}',
     'error invalid_request_error: "Incorrect API key"'),  # OpenAI
    ('{"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: required"}}',
     'error invalid_request_error: "max_tokens: required"'),  # Anthropic
    ('{"code": 400, "message": "key \'tool\' not found", "type": "invalid_request_error"}',
     'error invalid_request_error: "key \'tool\' not found"'),  # the bare object of one llama-server route
    ('{"error": "Loading model"}', 'error (no type): "Loading model"'),
    ('{"error": {"code": 503}}', 'error (no type), no message: \'{"code": 503}\''),
    ("File Not Found", "body: 'File Not Found'"),
    ("", "empty body"),
    (None, "no body"),
])
def test_answer_summary_quotes_the_servers_error(body, expected):
    assert answer_summary(body) == expected


def test_a_long_body_is_cut_at_300_characters():
    summary = answer_summary("x" * 1000)
    assert summary == f"body: {'x' * 300!r}… (1,000 chars)"


# ---- RequestsLibrary's expected_status on our sessions --------------------------------------------------


def test_requests_library_status_mismatch_names_the_exchange_and_the_error(requests_library):
    message = failure(requests_library.post_on_session, "fixture", "/script",
                      json={"status": 500, "json": LLAMA_ERROR}, expected_status="200")
    assert LABEL.sub("", message) == \
        "POST /script: status was 500, expected 200; error server_error: \"'tokens' is required\""
    assert LABEL.search(message)


def test_requests_library_status_mismatch_is_one_robot_failure_without_a_class_name(requests_library):
    with pytest.raises(StatusMismatch) as info:
        requests_library.get_on_session("fixture", "/echo", expected_status="201")
    assert isinstance(info.value, AssertionError) and info.value.ROBOT_SUPPRESS_NAME
    assert str(info.value).startswith("GET /echo: status was 200, expected 201; body: '{\"method\": \"GET\"")


def test_requests_library_msg_comes_first(requests_library):
    message = failure(requests_library.get_on_session, "fixture", "/echo", expected_status="404", msg="health")
    assert message.startswith("health: GET /echo: status was 200, expected 404; ")


def test_requests_library_default_status_check_is_explained_too(requests_library):
    message = failure(requests_library.post_on_session, "fixture", "/script", json={"status": 503, "text": "busy"})
    assert LABEL.sub("", message) == "POST /script: status was 503, expected a status below 400; body: 'busy'"


def test_requests_library_passes_what_it_passed(requests_library):
    assert requests_library.get_on_session("fixture", "/echo", expected_status="200").status_code == 200
    assert requests_library.get_on_session("fixture", "/echo", expected_status="any").status_code == 200


def test_a_session_without_our_adapter_keeps_requests_library_message(server):
    library = RequestsLibrary()
    library.create_session("plain", server)
    explain_status_failures(library)
    assert failure(library.get_on_session, "plain", "/echo", expected_status="201").startswith("Url: ")


def test_the_wrapper_is_installed_once(requests_library):
    wrapped = requests_library._check_status
    explain_status_failures(requests_library)
    assert requests_library._check_status is wrapped


# ---- the exchange block and its number --------------------------------------------------------------------


def test_the_block_and_the_failure_carry_the_same_number(requests_library, logged):
    message = failure(requests_library.get_on_session, "fixture", "/echo", expected_status="201")
    number = int(LABEL.search(message).group(1))
    (markup,) = [markup for markup, _ in logged if RECORD_ATTRIBUTE in markup]
    assert f"[exchange #{number}]</summary>" in markup
    assert records(markup)[0]["id"] == number


def test_the_record_is_what_a_replay_needs_and_no_key(http, server, logged):
    headers = {"Authorization": "Bearer sk-secret", "X-Api-Key": "sk-other", "Origin": "o"}
    http.post(server + "/script?x=1", json={"json": {"ok": 1}}, headers=headers)
    (record,) = records(logged[-1][0])
    assert record["method"] == "POST" and record["url"] == server + "/script?x=1" and record["status"] == 200
    assert record["headers"] == {"Authorization": "Bearer <redacted>", "X-Api-Key": "<redacted>", "Origin": "o",
                                 "Content-Type": "application/json"}  # no User-Agent, Connection, Content-Length…
    assert exchanges.record_body(record) == b'{"json": {"ok": 1}}'
    assert json.loads(record["answer"]) == {"ok": 1}
    assert "sk-secret" not in logged[-1][0] and "sk-other" not in logged[-1][0]


def test_a_body_that_is_not_utf8_is_recorded_byte_for_byte(http, server, logged):
    http.post(server + "/echo", data=b'{"prompt": "\xff"}', headers={"Content-Type": "application/json"})
    (record,) = records(logged[-1][0])
    assert "body_base64" in record and exchanges.record_body(record) == b'{"prompt": "\xff"}'


def test_numbers_grow_and_are_never_reused(http, server, logged):
    http.get(server + "/echo")
    http.get(server + "/echo")
    first, second = (records(markup)[0]["id"] for markup, _ in logged)
    assert second == first + 1


def test_a_failed_exchange_is_numbered_but_its_message_stays_as_tests_match_it(http, server, logged):
    with pytest.raises(ExchangeFailed) as info:
        http.get(server + "/hang", timeout=0.3)
    assert str(info.value) == "GET /hang: no answer within 0.3 s"
    (record,) = records(logged[-1][0])
    assert record["status"] is None and record["error"] == "GET /hang: no answer within 0.3 s"
    assert f"→ failed [exchange #{record['id']}]" in logged[-1][0]


# ---- domain checks and JSON fields ---------------------------------------------------------------------------


def test_error_response_should_be_names_the_error_and_the_exchange(http, server):
    resp = http.post(server + "/script", json={"status": 500, "json": LLAMA_ERROR})
    message = failure(HttpApiLibrary().error_response_should_be, resp, 400, "invalid_request_error")
    assert message == f"POST /script: status was 500, expected 400; error server_error: \"'tokens' is required\" " \
                      f"[exchange #{resp.exchange_id}]"


def test_json_field_of_a_json_body_names_the_exchange_it_came_from(http, server):
    resp = http.post(server + "/script", json={"json": {"tokens_predicted": 1, "settings": {"n_predict": 0}}})
    out = resp.json()  # what a domain keyword returns: a new dict, equal to the body
    lib = HttpApiLibrary()
    label = f"[exchange #{resp.exchange_id}]"
    assert failure(lib.json_field_should_be, out, "tokens_predicted", 16) == \
        f"JSON field 'tokens_predicted' was 1 (int), expected 16 (int) {label}"
    assert failure(lib.json_field_should_be, out["settings"], "n_predict", 2).endswith(label)  # ${out}[settings]
    assert failure(lib.json_fields_should_exist, resp, "", "content").endswith(label)


def test_json_data_from_no_exchange_names_none():
    message = failure(HttpApiLibrary().json_field_should_be, {"made": "up", "here": [1, 2, 3]}, "made", "down")
    assert message == "JSON field 'made' was 'up' (str), expected 'down' (str); first difference at char 0"


def test_json_field_values_are_cut_and_strings_show_where_they_differ():
    long = "a" * 500
    message = failure(HttpApiLibrary().json_field_should_be, {"content": long + "b"}, "content", long + "c")
    assert message.endswith("(str); first difference at char 500") and len(message) < 800


def test_json_keywords_on_a_body_that_is_not_json_quote_it(http, server):
    resp = http.post(server + "/script", json={"status": 404, "text": "File Not Found"})
    assert failure(HttpApiLibrary().get_json_field, resp, "error.message") == \
        f"POST /script: the body is not JSON: 'File Not Found' [exchange #{resp.exchange_id}]"


def test_header_checks_name_the_exchange(http, server):
    resp = http.get(server + "/echo")
    assert failure(HttpApiLibrary().header_should_be, resp, "X-Test-Header", "x").endswith(
        f"[exchange #{resp.exchange_id}]")


# ---- streams ---------------------------------------------------------------------------------------------------


def test_stream_status_mismatch_quotes_the_error_and_names_the_stream(server, logged):
    body = {"status": 500, "json": LLAMA_ERROR}
    message = failure(asyncio.run, StreamingLibrary().stream_request("/script", body, server=server, timeout=5))
    number = LABEL.search(message).group(1)
    assert LABEL.sub("", message) == \
        "POST /script: status was 500, expected 200; error server_error: \"'tokens' is required\""
    (record,) = records(logged[-1][0])
    assert record["id"] == int(number) and record["stream"] is True
    assert exchanges.record_body(record) == json.dumps(body).encode()  # the bytes aiohttp sent


def test_stream_checks_name_the_stream_they_judged(server):
    lib = StreamingLibrary()
    r = asyncio.run(lib.stream_request("/v1/chat/completions", {"mock_pause": 0, "mock_tokens": ["a"]}, server=server))
    assert failure(lib.finish_chunk_should_be, r, "length").endswith(f"[exchange #{r.exchange_id}]")
    events = lib.stream_json_events(r)  # DotDict copies of the events, traced back by content
    assert failure(HttpApiLibrary().json_field_should_be, events[1], "id", "x").endswith(
        f"[exchange #{r.exchange_id}]")


def test_a_concurrent_batch_numbers_each_stream(server, logged):
    lib = StreamingLibrary()
    bodies = [{"mock_pause": 0, "mock_tokens": ["a"]}] * 2
    results = asyncio.run(lib.stream_requests_concurrently("/v1/chat/completions", bodies, server=server))
    ids = [r.exchange_id for r in results]
    assert ids[1] == ids[0] + 1
    assert [rec["id"] for rec in records(logged[-1][0])] == ids
    assert f"[exchanges #{ids[0]}–#{ids[1]}]" in logged[-1][0] and f"exchange #{ids[1]}" in logged[-1][0]
    assert failure(lib.stream_status_should_be, results[1], 201).endswith(f"[exchange #{ids[1]}]")


def test_requests_keep_working_on_a_plain_session(server):
    with requests.Session() as plain:  # no adapter: no number, nothing breaks
        assert getattr(plain.get(server + "/echo"), "exchange_id", None) is None


# ---- two requests on one connection ---------------------------------------------------------------------------


def test_two_requests_on_one_connection_are_numbered_and_linked(server, logged):
    lib = HttpApiLibrary()
    reuse = lib.send_two_requests_on_one_connection("/echo", {"a": 1}, then="/echo", server=server)
    first, second = records(logged[-1][0])
    assert (first["id"], second["id"]) == (reuse.first.exchange_id, reuse.second.exchange_id)
    assert second["follows"] == first["id"] and exchanges.record_body(first) == b'{"a": 1}'
    message = failure(lib.send_two_requests_on_one_connection, "/script", {"status": 503, "text": "busy"},
                      server=server)
    assert re.fullmatch(r"POST /script: status was 503, expected 200; body: 'busy' \[exchange #\d+\]", message)


def test_an_unanswered_second_request_is_recorded_as_following_the_first(server):
    from llamatest.http.keepalive import Reuse, numbered, reuse_html
    from llamatest.http.response import Response

    reuse = numbered(Reuse(Response("POST", server + "/completion", 200, "{}"), None, "closed without answering"),
                     {"stream": True}, server + "/health")
    unanswered = exchanges.recent(reuse.unanswered_id)
    assert unanswered.record() == {"id": reuse.first.exchange_id + 1, "method": "GET", "url": server + "/health",
                                   "headers": {}, "status": None, "error": "closed without answering",
                                   "follows": reuse.first.exchange_id}
    assert [r["id"] for r in records(reuse_html(reuse))] == [reuse.first.exchange_id, reuse.unanswered_id]
