"""HttpApiLibrary's assertions on responses from a real requests session, and on plain JSON data."""

import re

import pytest

from HttpApiLibrary import HttpApiLibrary
from llamatest.http.response import Response, as_response

ERROR = {"error": {"code": 400, "message": "Field 'n_predict': bad value", "type": "invalid_request_error"}}


@pytest.fixture
def lib():
    return HttpApiLibrary()


def respond(http, server, **spec):
    """Make the fixture server answer with the given status/json/text."""
    return http.post(server + "/script", json=spec)


def fails(func, *args, **kwargs) -> str:
    """The failure message without the label of the judged exchange (test_failure_messages.py checks those)."""
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return re.sub(r" \[exchange #\d+\]$", "", str(info.value))


# ---- Error Response Should Be ----------------------------------------------------------------------------


def test_error_response_should_be_passes(lib, http, server):
    resp = respond(http, server, status=400, json=ERROR)
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
def test_error_response_should_be_fails(lib, http, server, status, body, args, expected):
    resp = respond(http, server, status=status, json=body)
    message = fails(lib.error_response_should_be, resp, *args)
    assert message.startswith("POST /script: ") and expected in message


def test_error_response_should_be_on_text_body(lib, http, server):
    resp = respond(http, server, status=500, text="boom")
    assert fails(lib.error_response_should_be, resp, 500, "server_error") == \
        "POST /script: body is not {\"error\": {...}}: 'boom'"


def test_error_message_checks(lib, http, server):
    resp = respond(http, server, status=400, json=ERROR)
    assert fails(lib.error_response_should_be, resp, 400, "invalid_request_error", message="other") == \
        "POST /script: error.message was \"Field 'n_predict': bad value\", expected 'other'"
    assert fails(lib.error_response_should_be, resp, 400, "invalid_request_error", message_contains="top_k") == \
        "POST /script: error.message \"Field 'n_predict': bad value\" does not contain 'top_k'"


# ---- JSON fields -----------------------------------------------------------------------------------------

DOC = {"data": [{"id": "m", "meta": {"n_ctx_train": 512, "ok": True, "ratio": 0.5, "tags": [], "none": None}}],
       "object": "list"}


def test_get_json_field_from_dict_and_response(lib, http, server):
    assert lib.get_json_field(DOC, "data.0.meta.n_ctx_train") == 512
    assert lib.get_json_field(DOC, "") == DOC
    assert lib.get_json_field([10, 20], "1") == 20
    resp = respond(http, server, json=DOC)
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


def test_json_fields_should_exist(lib, http, server):
    lib.json_fields_should_exist(DOC, "", "data", "object")
    lib.json_fields_should_exist(respond(http, server, json=DOC), "data.0.meta", "ok", "none")
    assert fails(lib.json_fields_should_exist, DOC, "data.0", "id", "owned_by", "created") == \
        "JSON object at 'data.0' lacks 'owned_by', 'created'; it has: 'id', 'meta'"
    assert fails(lib.json_fields_should_exist, DOC, "", "x") == \
        "JSON object at the root lacks 'x'; it has: 'data', 'object'"
    assert fails(lib.json_fields_should_exist, DOC, "data", "x") == "JSON value at 'data' is list, not an object"


# ---- headers -------------------------------------------------------------------------------------------


def test_header_assertions(lib, http, server):
    resp = http.get(server + "/echo")
    lib.header_should_be(resp, "X-Test-Header", "hello-world")
    assert fails(lib.header_should_be, resp, "x-test-header", "hello") == \
        "GET /echo: header 'x-test-header' was 'hello-world', expected 'hello'"
    assert fails(lib.header_should_be, resp, "X-Missing", "a").startswith(
        "GET /echo: header 'X-Missing' is missing; headers: connection, content-length, content-type")


def test_media_type_is_compared_exactly_without_parameters(lib, http, server):
    resp = http.get(server + "/echo")  # application/json; charset=utf-8
    lib.media_type_should_be(resp, "application/json")
    lib.media_type_should_be(resp, "Application/JSON")
    assert fails(lib.media_type_should_be, resp, "application/js") == (
        "GET /echo: media type was 'application/json' (Content-Type 'application/json; charset=utf-8'), "
        "expected 'application/js'")


def test_typed_response_from_a_requests_response(http, server):
    resp = as_response(http.post(server + "/echo", json={"a": 1}))
    assert isinstance(resp, Response)
    assert (resp.method, resp.status, resp.where) == ("POST", 200, "POST /echo")
    assert resp.json["method"] == "POST" and resp.headers["x-test-header"] == "hello-world"
    assert as_response(resp) is resp


def test_a_value_that_is_no_response_is_named(lib):
    with pytest.raises(TypeError, match="expected an HTTP response .* got dict"):
        lib.header_should_be({"status": 200}, "Server", "x")


def test_header_token_and_absence(lib, http, server):
    resp = http.get(server + "/echo")  # Content-Type: application/json; charset=utf-8
    lib.header_should_contain_token(resp, "X-Test-Header", "HELLO-WORLD")
    assert fails(lib.header_should_contain_token, resp, "Content-Type", "charset=utf-8") == (
        "GET /echo: header 'Content-Type' is 'application/json; charset=utf-8', which does not list 'charset=utf-8'")
    lib.header_should_be_absent(resp, "Access-Control-Allow-Origin")
    assert fails(lib.header_should_be_absent, resp, "x-test-header") == \
        "GET /echo: header 'x-test-header' should be absent, was 'hello-world'"


def test_header_tokens_are_stripped_and_lower_cased():
    resp = Response("GET", "http://h/x", 200, "", {"connection": "Keep-Alive ,  CLOSE", "x": ""})
    assert resp.header_tokens("Connection") == ["keep-alive", "close"]
    assert resp.header_tokens("x") == [""] and resp.header_tokens("absent") == []
