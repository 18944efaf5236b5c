"""llamatest.clients.views and log: typed objects as JSON, streamed text, errors, base64, the log block."""

import base64
import struct

import httpx2
import openai
import pytest
from anthropic.types import RawContentBlockDeltaEvent, RawMessageStopEvent, TextDelta
from openai.types.chat import ChatCompletionChunk

from llamatest.clients import log, views
from llamatest.clients.calls import Call


def chunk(text, index=0, finish=None, **fields):
    return ChatCompletionChunk.construct(id="c1", object="chat.completion.chunk", created=1, model="m", choices=[
        {"index": index, "delta": {"content": text}, "finish_reason": finish}], **fields)


def test_as_json_keeps_the_fields_the_answer_set_and_extras():
    value = ChatCompletionChunk.model_validate({"id": "c1", "object": "chat.completion.chunk", "created": 1,
                                                "model": "m", "choices": [], "timings": {"n": 2}})
    assert views.as_json([value]) == [{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                                       "choices": [], "timings": {"n": 2}}]


def test_jsonable_names_classes():
    assert views.jsonable({"response_format": Call, "n": 1}) == {"response_format": "<Call>", "n": 1}


def test_streamed_text_of_one_choice():
    record = Call("openai", "chat.completions.create", {}, streamed=True,
                  events=[chunk("a"), chunk("z", index=1), chunk(None), chunk("b", finish="length")])
    assert views.streamed_text(record) == "ab"
    assert views.streamed_text(record, index=1) == "z"
    assert views.field_values(record, "id") == ["c1"] * 4


def test_streamed_text_of_anthropic_deltas():
    delta = RawContentBlockDeltaEvent(type="content_block_delta", index=0,
                                      delta=TextDelta(type="text_delta", text="hi"))
    stop = RawMessageStopEvent(type="message_stop")
    record = Call("anthropic", "messages.create", {}, streamed=True, events=[delta, stop])
    assert views.streamed_text(record) == "hi"
    assert views.event_types(record) == ["content_block_delta", "message_stop"]


def test_runs_collapse_repeats_only():
    assert views.runs(["a", "b", "b", "c", "b"]) == ["a", "b", "c", "b"]
    assert views.runs([]) == []


def test_base64_embedding_is_little_endian_float32():
    values = [0.5, -1.25, 3.0]
    assert views.decode_base64_embedding(base64.b64encode(struct.pack("<3f", *values)).decode()) == values
    with pytest.raises(ValueError, match="5 bytes"):
        views.decode_base64_embedding(base64.b64encode(b"12345").decode())


def status_error(cls, status, body):
    request = httpx2.Request("POST", "http://h/v1/chat/completions")
    return cls("Error code", response=httpx2.Response(status, request=request, json=body), body=body)


def test_error_view_reads_the_server_error_object():
    # The SDK types `code` as a string (OpenAI's codes are names); llama-server sends the status number.
    body = {"code": 400, "message": "bad n", "type": "invalid_request_error"}
    error = status_error(openai.BadRequestError, 400, body)
    view = views.error_view(error)
    assert {k: view[k] for k in ("class", "status", "type", "code", "message")} == {
        "class": "BadRequestError", "status": 400, "type": "invalid_request_error", "code": "400", "message": "bad n"}


def test_error_view_of_an_exception_without_a_status():
    view = views.error_view(RuntimeError("boom"))
    assert (view["class"], view["status"], view["message"]) == ("RuntimeError", None, "boom")


def test_error_text_adds_the_cause():
    try:
        try:
            raise ValueError("created: Input should be a valid integer")
        except ValueError as cause:
            raise openai.OpenAIError("Data returned by API invalid for expected schema.") from cause
    except openai.OpenAIError as error:
        assert views.error_text(error).endswith("created: Input should be a valid integer")


def test_log_block_shows_the_call_its_arguments_and_the_result():
    record = Call("openai", "chat.completions.create", {"messages": [{"role": "user", "content": "<b>hi</b>"}]},
                  streamed=True, asynchronous=True, events=[chunk("<i>")], elapsed=0.25)
    html = log.call_html(record)
    assert html.startswith("<details><summary>openai async chat.completions.create → 1 events (0.250 s)</summary>")
    assert "await client.chat.completions.create(messages=" in html and "stream=True" in html
    assert "<b>hi</b>" not in html and "&lt;b&gt;hi&lt;/b&gt;" in html
    assert "&lt;i&gt;" in html


def test_log_block_of_an_error_names_its_class_and_status():
    error = status_error(openai.NotFoundError, 404, {"message": "File Not Found", "type": "not_found_error"})
    record = Call("openai", "files.list", {}, error=error)
    assert log.outcome(record) == "raised NotFoundError 404"
    assert "File Not Found" in log.call_html(record)


def test_long_arguments_are_cut_in_the_call_line():
    text = log.call_text(Call("anthropic", "messages.create", {"system": "x" * 500}))
    assert len(text) < 120 and text.endswith("…)")


def test_batch_block_counts_failures():
    records = [Call("openai", "m", {}, elapsed=0.5), Call("openai", "m", {}, error=RuntimeError("x"))]
    assert "2 concurrent SDK calls, 1 failed (slowest 0.500 s)" in log.batch_html(records)


def test_error_mismatches_name_every_difference():
    error = status_error(openai.NotFoundError, 404, {"message": "File Not Found", "type": "not_found_error"})
    assert views.error_mismatches(error, "NotFoundError", 404, "not_found_error", message="File Not Found") == []
    wrong = views.error_mismatches(error, "BadRequestError", 400, "invalid_request_error", message_contains="x")
    assert [line.split(",")[0].split(" ")[0] for line in wrong] == ["raised", "status", "error", "message"]


def test_schema_deviations_in_strict_mode():
    good = ChatCompletionChunk.model_validate({"id": "c1", "object": "chat.completion.chunk", "created": 1,
                                               "model": "m", "choices": []})
    assert views.schema_deviations(good) == []
    coerced = ChatCompletionChunk.model_validate({"id": "c1", "object": "chat.completion.chunk", "created": "7",
                                                  "model": "m", "choices": []})  # lax: "7" becomes 7
    assert coerced.created == 7
    loose = ChatCompletionChunk.construct(id="c1", object="chat.completion.chunk", created="7", choices=[])
    assert views.schema_deviations(loose) == ["created: Input should be a valid integer (got '7')",
                                              "model: Field required"]


def test_unknown_fields_are_found_at_every_level():
    value = ChatCompletionChunk.model_validate({"id": "c1", "object": "chat.completion.chunk", "created": 1,
                                                "model": "m", "timings": {}, "choices": [
                                                    {"index": 0, "delta": {"x": 1}, "finish_reason": None}]})
    assert views.unknown_fields(value) == ["timings", "choices.0.delta.x"]


def test_error_body_deviations_use_the_sdk_error_schemas():
    error = status_error(openai.BadRequestError, 400, {"code": 400, "message": "m", "type": "invalid_request_error"})
    assert views.error_body_deviations(error) == ["code: Input should be a valid string (got 400)"]
    with pytest.raises(ValueError, match="no error body"):
        views.error_body_deviations(RuntimeError("x"))


def test_class_names_name_a_generic_class_alone_and_count_each_once():
    chunk = ChatCompletionChunk(id="c", choices=[], created=1, model="m", object="chat.completion.chunk")
    assert views.class_name(chunk) == "ChatCompletionChunk"
    assert views.class_name(openai.types.chat.ParsedChatCompletion[dict](
        id="c", choices=[], created=1, model="m", object="chat.completion")) == "ParsedChatCompletion"
    assert views.class_names([chunk, chunk, {}]) == ["ChatCompletionChunk", "dict"]
