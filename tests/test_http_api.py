"""HttpApiLibrary against the local fixture server: requests, response shape, assertions, logging."""

import re
import time

import pytest
from robot.utils import DotDict

import HttpApiLibrary as module
from HttpApiLibrary import HttpApiLibrary
from llamatest.textutil import join_url

ERROR = {"error": {"code": 400, "message": "Field 'n_predict': bad value", "type": "invalid_request_error"}}


@pytest.fixture
def lib():
    return HttpApiLibrary()


def respond(lib, server, **spec):
    """Make the fixture server answer with the given status/json/text."""
    return lib.post_json_to_server(server, "/script", spec)


def fails(func, *args, **kwargs) -> str:
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)


# ---- requests and the response shape ------------------------------------------------------------------


def test_get_returns_the_documented_shape(lib, server):
    resp = lib.get_from_server(server, "/echo")
    assert isinstance(resp, DotDict)
    assert set(resp) == {"status", "headers", "text", "json", "elapsed", "method", "url"}
    assert resp.status == 200 and resp.method == "GET" and resp.url == server + "/echo"
    assert resp.headers["x-test-header"] == "hello-world"
    assert all(name == name.lower() for name in resp.headers)
    assert resp.json.path == "/echo" and resp.json.method == "GET"
    assert isinstance(resp.elapsed, float) and 0 < resp.elapsed < 5
    assert '"method": "GET"' in resp.text


@pytest.mark.parametrize("base_suffix, path", [("/", "/echo"), ("", "echo"), ("//", "//echo?x=1")])
def test_path_is_joined_with_one_slash(lib, server, base_suffix, path):
    assert lib.get_from_server(server + base_suffix, path).json.path == "/echo"


def test_join_url():
    assert join_url("http://h:1/v1/", "/models") == "http://h:1/v1/models"
    assert join_url("http://h:1", "") == "http://h:1"


def test_get_sends_headers(lib, server):
    resp = lib.get_from_server(server, "/echo", headers={"Authorization": "Bearer k"})
    assert resp.json.headers["Authorization"] == "Bearer k"


def test_post_json(lib, server):
    body = {"prompt": "<é>", "n_predict": 2, "stream": False}
    resp = lib.post_json_to_server(server, "/echo", body, headers={"X-Extra": "1"})
    assert resp.json.method == "POST"
    assert resp.json.headers["Content-Type"] == "application/json"
    assert resp.json.headers["X-Extra"] == "1"
    assert module.json.loads(resp.json.body) == body


def test_post_raw_body_is_sent_as_is(lib, server):
    resp = lib.post_raw_body_to_server(server, "/echo", '{"prompt": "x",')
    assert resp.json.body == '{"prompt": "x",'
    assert resp.json.headers["Content-Type"] == "application/json"


def test_post_raw_bytes_with_content_type(lib, server):
    resp = lib.post_raw_body_to_server(server, "/echo", b"a=1", content_type="application/x-www-form-urlencoded")
    assert resp.json.body == "a=1"
    assert resp.json.headers["Content-Type"] == "application/x-www-form-urlencoded"


@pytest.mark.parametrize("method", ["OPTIONS", "DELETE", "put", "PATCH"])
def test_send_request_with_any_method(lib, server, method):
    resp = lib.send_request_to_server(method, server, "/echo")
    assert resp.method == method.upper() and resp.json.method == method.upper()
    assert resp.json.body == ""


def test_send_request_with_json_body(lib, server):
    resp = lib.send_request_to_server("DELETE", server, "/echo", {"id": 1})
    assert resp.json.body == '{"id": 1}'
    assert resp.json.headers["Content-Type"] == "application/json"


def test_non_json_body_gives_json_none(lib, server):
    resp = respond(lib, server, status=503, text="Loading model")
    assert resp.status == 503 and resp.text == "Loading model" and resp.json is None


def test_each_exchange_is_logged_as_one_collapsed_block(lib, server, logged):
    lib.post_json_to_server(server, "/script", {"json": {"content": "<b>hi</b>"}})
    assert len(logged) == 1
    markup, html = logged[0]
    assert html
    assert re.match(r"<details><summary>POST /script → 200 \(2\d chars, \d\.\d{3} s\)</summary>", markup)
    assert "&lt;b&gt;hi&lt;/b&gt;" in markup and "<b>hi</b>" not in markup
    assert "request" in markup and "response" in markup


def test_timeout_while_waiting_for_headers(lib, server, logged):
    start = time.perf_counter()
    message = fails(lib.get_from_server, server, "/hang", timeout=0.5)
    assert message == "GET /hang: no answer within 0.5 s"
    assert time.perf_counter() - start < 2
    assert "GET /hang → failed" in logged[0][0]


def test_timeout_while_reading_the_body(lib, server):
    start = time.perf_counter()
    spec = {"content_type": "application/json", "steps": ['{"a":', {"sleep": 3}, "1}"]}
    message = fails(lib.post_json_to_server, server, "/script", spec, timeout=0.5)
    assert message == "POST /script: no answer within 0.5 s"
    assert time.perf_counter() - start < 2


def test_trickling_body_is_bounded_by_the_whole_deadline(lib, server):
    # Each read arrives well within the timeout, but the whole body does not.
    start = time.perf_counter()
    steps = [step for _ in range(8) for step in ("x", {"sleep": 0.15})]
    message = fails(lib.post_json_to_server, server, "/script", {"content_type": "text/plain", "steps": steps},
                    timeout=0.5)
    assert message == "POST /script: no answer within 0.5 s"
    assert time.perf_counter() - start < 1.5


def test_refused_connection(lib, closed_port_url):
    message = fails(lib.get_from_server, closed_port_url, "health", timeout=2)
    assert message == f"GET {closed_port_url}/health: connection refused"


# ---- Status Should Be / Error Response Should Be -------------------------------------------------------


def test_status_should_be(lib, server):
    resp = respond(lib, server, status=503, text="Loading model " * 40)
    lib.status_should_be(resp, 503)
    message = fails(lib.status_should_be, resp, 200)
    assert message.startswith("POST /script: status was 503, expected 200; body: 'Loading model Loading")
    assert len(message) < 400


def test_error_response_should_be_passes(lib, server):
    resp = respond(lib, server, status=400, json=ERROR)
    lib.error_response_should_be(resp, 400, "invalid_request_error")
    lib.error_response_should_be(resp, 400, "invalid_request_error", message="Field 'n_predict': bad value")
    lib.error_response_should_be(resp, 400, "invalid_request_error", message_contains="n_predict")


@pytest.mark.parametrize("status, body, args, expected", [
    (400, ERROR, (404, "invalid_request_error"), "status was 400, expected 404"),
    (400, {"message": "x"}, (400, "invalid_request_error"), 'body is not {"error": {...}}'),
    (403, {"error": {"message": "this feature is disabled", "type": "feature_disabled"}},
     (403, "feature_disabled"), "error.code is missing; error has: 'message', 'type'"),
    (400, {"error": {**ERROR["error"], "code": 500}}, (400, "invalid_request_error"),
     "error.code was 500, expected 400"),
    (400, ERROR, (400, "server_error"), "error.type was 'invalid_request_error', expected 'server_error'"),
    (400, {"error": {"code": 400, "type": "t", "message": ""}}, (400, "t"),
     "error.message should be a non-empty string, was ''"),
    (400, {"error": {"code": 400, "type": "t", "message": None}}, (400, "t"),
     "error.message should be a non-empty string, was None"),
])
def test_error_response_should_be_fails(lib, server, status, body, args, expected):
    resp = respond(lib, server, status=status, json=body)
    message = fails(lib.error_response_should_be, resp, *args)
    assert message.startswith("POST /script: ") and expected in message


def test_error_response_should_be_on_text_body(lib, server):
    resp = respond(lib, server, status=500, text="boom")
    assert fails(lib.error_response_should_be, resp, 500, "server_error") == \
        "POST /script: body is not {\"error\": {...}}: 'boom'"


def test_error_message_checks(lib, server):
    resp = respond(lib, server, status=400, json=ERROR)
    assert fails(lib.error_response_should_be, resp, 400, "invalid_request_error", message="other") == \
        "POST /script: error.message was \"Field 'n_predict': bad value\", expected 'other'"
    assert fails(lib.error_response_should_be, resp, 400, "invalid_request_error", message_contains="top_k") == \
        "POST /script: error.message \"Field 'n_predict': bad value\" does not contain 'top_k'"


# ---- JSON fields -----------------------------------------------------------------------------------------

DOC = {"data": [{"id": "m", "meta": {"n_ctx_train": 512, "ok": True, "ratio": 0.5, "tags": [], "none": None}}],
       "object": "list"}


def test_get_json_field_from_dict_and_response(lib, server):
    assert lib.get_json_field(DOC, "data.0.meta.n_ctx_train") == 512
    assert lib.get_json_field(DOC, "") == DOC
    assert lib.get_json_field([10, 20], "1") == 20
    resp = respond(lib, server, json=DOC)
    assert lib.get_json_field(resp, "data.0.id") == "m"
    assert lib.get_json_field(resp, "object") == "list"


def test_get_json_field_on_a_dict_that_merely_has_a_json_key(lib):
    assert lib.get_json_field({"json": {"a": 1}}, "json.a") == 1


@pytest.mark.parametrize("path, expected", [
    ("data.0.meta.n_ctx", "JSON path 'data.0.meta.n_ctx': no key 'n_ctx' at data.0.meta; "
                          "keys there: 'n_ctx_train', 'ok', 'ratio', 'tags', 'none'"),
    ("model", "JSON path 'model': no key 'model' at the root; keys there: 'data', 'object'"),
    ("data.3.id", "JSON path 'data.3.id': no index 3 at data (list of 1 items)"),
    ("data.id", "JSON path 'data.id': data is a list, 'id' is not an index"),
    ("object.x", "JSON path 'object.x': no 'x' at object, which is str ('list')"),
])
def test_get_json_field_missing(lib, path, expected):
    assert fails(lib.get_json_field, DOC, path) == expected


def test_json_field_should_be(lib):
    lib.json_field_should_be(DOC, "data.0.meta.n_ctx_train", 512)
    lib.json_field_should_be(DOC, "data.0.meta.ok", True)
    lib.json_field_should_be(DOC, "data.0.meta.none", None)
    lib.json_field_should_be([1, [2, 3]], "1.0", 2)
    assert fails(lib.json_field_should_be, DOC, "data.0.meta.n_ctx_train", "512") == \
        "JSON field 'data.0.meta.n_ctx_train' was 512 (int), expected '512' (str)"
    assert fails(lib.json_field_should_be, DOC, "data.0.meta.ok", 1) == \
        "JSON field 'data.0.meta.ok' was True (bool), expected 1 (int)"


@pytest.mark.parametrize("path, type_name", [
    ("object", "str"), ("data.0.meta.n_ctx_train", "int"), ("data.0.meta.n_ctx_train", "number"),
    ("data.0.meta.ratio", "float"), ("data.0.meta.ratio", "number"), ("data.0.meta.ok", "bool"),
    ("data", "list"), ("data.0", "dict"), ("data.0.meta.none", "null"),
])
def test_json_field_should_be_of_type(lib, path, type_name):
    lib.json_field_should_be_of_type(DOC, path, type_name)


@pytest.mark.parametrize("path, type_name, expected", [
    ("data.0.meta.ok", "int", "JSON field 'data.0.meta.ok' is bool (True), expected int"),
    ("data.0.meta.ok", "number", "JSON field 'data.0.meta.ok' is bool (True), expected number"),
    ("data.0.meta.n_ctx_train", "float", "JSON field 'data.0.meta.n_ctx_train' is int (512), expected float"),
    ("data.0.meta.none", "dict", "JSON field 'data.0.meta.none' is null (None), expected dict"),
])
def test_json_field_should_be_of_type_fails(lib, path, type_name, expected):
    assert fails(lib.json_field_should_be_of_type, DOC, path, type_name) == expected


def test_json_field_of_unknown_type_name(lib):
    with pytest.raises(ValueError, match="unknown type name 'string'; use one of: str, int"):
        lib.json_field_should_be_of_type(DOC, "object", "string")


def test_json_fields_should_exist(lib, server):
    lib.json_fields_should_exist(DOC, "", "data", "object")
    lib.json_fields_should_exist(respond(lib, server, json=DOC), "data.0.meta", "ok", "none")
    assert fails(lib.json_fields_should_exist, DOC, "data.0", "id", "owned_by", "created") == \
        "JSON object at 'data.0' lacks 'owned_by', 'created'; it has: 'id', 'meta'"
    assert fails(lib.json_fields_should_exist, DOC, "", "x") == \
        "JSON object at the root lacks 'x'; it has: 'data', 'object'"
    assert fails(lib.json_fields_should_exist, DOC, "data", "x") == "JSON value at 'data' is list, not an object"


# ---- headers -------------------------------------------------------------------------------------------


def test_header_assertions(lib, server):
    resp = lib.get_from_server(server, "/echo")
    lib.header_should_be(resp, "X-Test-Header", "hello-world")
    lib.header_should_start_with(resp, "content-type", "application/json")
    assert fails(lib.header_should_be, resp, "x-test-header", "hello") == \
        "header 'x-test-header' was 'hello-world', expected 'hello'"
    assert fails(lib.header_should_start_with, resp, "Content-Type", "text/") == \
        "header 'Content-Type' was 'application/json; charset=utf-8', expected it to start with 'text/'"
    assert fails(lib.header_should_be, resp, "X-Missing", "a").startswith(
        "header 'X-Missing' is missing; headers: content-length, content-type")
