"""Exchange records as curl commands: quoting, methods, headers, keys, bodies inline or in a file; the commands
are run against the fixture server's /echo to prove they send what the record says."""

import json
import shutil
import subprocess

import pytest

from llamatest.http import exchanges
from llamatest.http.curl import curl_command

needs_curl = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


def record(method="POST", url="http://127.0.0.1:8080/completion", headers=None, body=None, **more) -> dict:
    rec = {"id": 1, "method": method, "url": url, "headers": headers or {}, "status": 200, **more}
    if body is not None:
        rec.update(exchanges.body_fields(body))
    return rec


def echo(command: str, cwd=None) -> dict:
    """Runs the command in bash and returns what /echo saw (the JSON after the response headers)."""
    out = subprocess.run(["bash", "-c", command], capture_output=True, timeout=10, cwd=cwd, check=True)
    return json.loads(out.stdout.split(b"\r\n\r\n", 1)[1])


def test_a_json_post_is_one_option_per_line():
    rec = record(headers={"Content-Type": "application/json"}, body=b'{"prompt": "x", "n_predict": 1}')
    assert curl_command(rec) == (
        "curl -sS -i http://127.0.0.1:8080/completion \\\n"
        "  -H 'Content-Type: application/json' \\\n"
        "  --data-binary '{\"prompt\": \"x\", \"n_predict\": 1}'")


@pytest.mark.parametrize("method, body, options", [
    ("GET", None, "curl -sS -i http://h/x"),
    ("POST", b"{}", "curl -sS -i http://h/x"),
    ("POST", None, "curl -sS -i -X POST http://h/x"),
    ("DELETE", None, "curl -sS -i -X DELETE http://h/x"),
    ("GET", b"{}", "curl -sS -i -X GET http://h/x"),
    ("HEAD", None, "curl -sS -i --head http://h/x"),
    ("OPTIONS", None, "curl -sS -i -X OPTIONS http://h/x"),
])
def test_the_method_is_named_only_when_curl_would_not_infer_it(method, body, options):
    assert curl_command(record(method, "http://h/x", body=body)).split(" \\\n")[0] == options


def test_a_stream_is_read_as_it_arrives():
    assert curl_command(record(stream=True)).startswith("curl -sS -i -N ")


def test_a_url_with_a_query_is_quoted():
    assert "'http://h/slots/0?action=erase'" in curl_command(record(url="http://h/slots/0?action=erase"))


def test_a_redacted_key_comes_from_the_environment():
    rec = record(headers={"Authorization": "Bearer <redacted>", "X-Api-Key": "<redacted>"})
    command = curl_command(rec)
    assert '-H "Authorization: Bearer $LLAMA_API_KEY"' in command and '-H "X-Api-Key: $LLAMA_API_KEY"' in command


def test_a_body_without_content_type_is_sent_without_one():
    assert "-H 'Content-Type:'" in curl_command(record(body=b"x"))


def test_a_binary_or_long_body_goes_to_a_file():
    assert curl_command(record(body=b"\xff\xfe"), "bug.body").endswith("--data-binary @bug.body")
    assert curl_command(record(body=b"a\x00b"), "bug.body").endswith("--data-binary @bug.body")
    assert curl_command(record(body=b"a" * 5000), "bug.body").endswith("--data-binary @bug.body")
    assert curl_command(record(body=b"a" * 5000)).endswith("--data-binary @BODY")  # no file given: a placeholder


def test_a_body_too_large_to_record_is_a_placeholder():
    rec = record(body=b"a" * (exchanges.MAX_RECORDED_BODY + 1))
    assert rec == {**rec, "body_bytes": exchanges.MAX_RECORDED_BODY + 1} and "body" not in rec
    assert curl_command(rec).endswith("--data-binary @BODY")


@needs_curl
def test_the_command_sends_the_recorded_request(server, monkeypatch):
    body = '{"prompt": "it\'s \\"quoted\\" $HOME `x` \\\\ é\\n", "n": 1}'.encode()
    rec = record(url=server + "/echo?a=1&b=2", headers={"Content-Type": "application/json", "Origin": "http://o",
                                                        "Authorization": "Bearer <redacted>"}, body=body)
    monkeypatch.setenv("LLAMA_API_KEY", "k-1")
    seen = echo(curl_command(rec))
    assert seen["method"] == "POST" and seen["path"] == "/echo" and seen["query"] == "a=1&b=2"
    assert seen["body"].encode() == body
    assert seen["headers"]["Content-Type"] == "application/json" and seen["headers"]["Origin"] == "http://o"
    assert seen["headers"]["Authorization"] == "Bearer k-1"


@needs_curl
def test_the_command_sends_a_body_file_byte_for_byte(server, tmp_path):
    body = b'{"prompt": "\x00\xff"}'
    (tmp_path / "bug.body").write_bytes(body)
    seen = echo(curl_command(record(url=server + "/echo", body=body), "bug.body"), cwd=tmp_path)
    assert seen["body"] == body.decode("utf-8", errors="replace") and "Content-Type" not in seen["headers"]


def test_a_request_sent_on_the_same_connection_follows_with_next():
    first = record(headers={"Content-Type": "application/json"}, body=b"{}", stream=True)
    then = record("GET", "http://127.0.0.1:8080/health", follows=1)
    assert curl_command(first, then=then) == (
        "curl -v -sS -i -N http://127.0.0.1:8080/completion \\\n"
        "  -H 'Content-Type: application/json' \\\n"
        "  --data-binary '{}' \\\n"
        "  --next -sS -i http://127.0.0.1:8080/health")


@needs_curl
def test_next_reuses_the_connection(server):
    first, then = record(url=server + "/echo", body=b"{}"), record("GET", server + "/echo?second=1")
    out = subprocess.run(["bash", "-c", curl_command(first, then=then)], capture_output=True, timeout=10, check=True)
    assert out.stdout.count(b"HTTP/1.1 200") == 2 and b"second=1" in out.stdout
    assert b"Re-using existing connection" in out.stderr or b"Reusing existing" in out.stderr
