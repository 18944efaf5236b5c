"""The assertion keywords of StreamingLibrary, each passing and failing, on streams played by the fixture server."""

import asyncio
import json
import re

import pytest
from robot.utils import DotDict

from llamatest.textutil import first_difference
from StreamingLibrary import StreamingLibrary

BASE = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "tiny"}


@pytest.fixture(scope="module")
def lib():
    return StreamingLibrary()


@pytest.fixture
def play(lib, server):
    """Plays ``chunks`` (JSON objects, or raw data strings) as an event stream; returns the result."""
    def run(*chunks, done=True, **spec):
        datas = [c if isinstance(c, str) else json.dumps(c) for c in chunks] + (["[DONE]"] if done else [])
        steps = [f"data: {d}\n\n" for d in datas]
        return asyncio.run(lib.stream_request("/script", {"steps": steps, **spec}, server=server, timeout=5))
    return run


def chat_chunks(tokens=("Hel", "lo"), finish="length", usage=None) -> list[dict]:
    """Like llama-server: role chunk, one chunk per token, finish chunk with an empty delta, usage chunk."""
    def chunk(delta, reason=None):
        return {**BASE, "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

    chunks = [chunk({"role": "assistant", "content": None})]
    chunks += [chunk({"content": token}) for token in tokens]
    chunks.append(chunk({}, finish))
    if usage is not None:
        chunks.append({**BASE, "choices": [], "usage": usage})
    return chunks


def native_chunks(tokens=("a", "b", "c")) -> list[dict]:
    """Like llama-server's /completion: one token per partial chunk, then the final chunk."""
    chunks = [{"content": token, "tokens": [i], "stop": False, "id_slot": 0} for i, token in enumerate(tokens)]
    chunks.append({"content": "", "tokens": [], "stop": True, "stop_type": "limit", "tokens_predicted": len(tokens),
                   "timings": {"predicted_n": len(tokens)}})
    return chunks


def choice(chunk: dict) -> dict:
    return chunk["choices"][0]


def fails(func, *args, **kwargs) -> str:
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return re.sub(r" \[exchange #\d+\]$", "", message)  # the label: test_failure_messages.py


# ---- the exchange --------------------------------------------------------------------------------------


def test_stream_status_should_be(lib, play, server):
    r = play(*chat_chunks())
    lib.stream_status_should_be(r, 200)
    assert fails(lib.stream_status_should_be, r, 201) == "POST /script: status was 200, expected 201; 5 events"
    body = {"json": {"error": {"message": "Loading"}}, "status": 503}
    r = asyncio.run(lib.stream_request("/script", body, server=server, expected_status=503))
    lib.stream_status_should_be(r, 503)
    assert fails(lib.stream_status_should_be, r, 200) == \
        'POST /script: status was 503, expected 200; error (no type): "Loading"'


def test_stream_content_type_should_be_compares_the_media_type_exactly(lib, play):
    lib.stream_content_type_should_be(play(*chat_chunks()), "text/event-stream")
    lib.stream_content_type_should_be(play(content_type="text/event-stream; charset=utf-8"), "text/event-stream")
    lib.stream_content_type_should_be(play(content_type="Text/Event-Stream"), "text/event-stream")
    assert fails(lib.stream_content_type_should_be, play(content_type="text/event-streams"), "text/event-stream") == \
        "POST /script: media type was 'text/event-streams' (Content-Type 'text/event-streams'), " \
        "expected 'text/event-stream'"
    assert fails(lib.stream_content_type_should_be, play(content_type="text/event"), "text/event-stream").startswith(
        "POST /script: media type was 'text/event' ")


def test_stream_should_have_no_error(lib, play):
    lib.stream_should_have_no_error(play(*chat_chunks()))
    r = play({"content": "a"}, {"error": {"code": 500, "message": "Context size has been exceeded."}}, done=False)
    assert fails(lib.stream_should_have_no_error, r).startswith("event 1 is an error: '{\"error\"")


def test_stream_should_have_no_error_on_an_error_body(lib, server):
    body = {"json": {"error": {"code": 400, "type": "exceed_context_size_error"}}, "status": 400}
    r = asyncio.run(lib.stream_request("/script", body, server=server, expected_status=400))
    assert fails(lib.stream_should_have_no_error, r).startswith("POST /script: response is an error (status 400): ")


def test_stream_should_have_no_error_reports_the_recorded_error(lib, server):
    r = asyncio.run(lib.stream_requests_concurrently("/hang", [{}], server=server, timeout=0.2))[0]
    assert fails(lib.stream_should_have_no_error, r) == \
        "POST /hang: no complete answer within 0.2 s (0 events received)"
    assert fails(lib.stream_status_should_be, r, 200) == \
        "POST /hang: no answer, expected 200; no complete answer within 0.2 s (0 events received)"


def test_checks_want_a_stream_result(lib):
    with pytest.raises(TypeError, match="^expected a stream result .* got dict$"):
        lib.stream_should_have_no_error({"error": None})


# ---- framing and text ----------------------------------------------------------------------------------


def test_stream_json_events(lib, play):
    events = lib.stream_json_events(play(*chat_chunks(usage={"completion_tokens": 2})))
    assert len(events) == 5 and isinstance(events[0], DotDict)
    assert events[-1].usage.completion_tokens == 2
    assert lib.stream_json_events(play("[1, 2]", "7")) == [[1, 2], 7]
    assert fails(lib.stream_json_events, play('{"a": 1}', "oops")) == "event 1 is not JSON: 'oops'"


def test_stream_json_objects_passes_over_other_events(lib, play):
    assert lib.stream_json_objects(play("null", {"index": 0}, "[1]", {"index": 1})) == [{"index": 0}, {"index": 1}]


def test_json_of_data_lines_reads_a_whole_event_stream_body(lib):
    body = 'event: x\ndata: {"a": 1}\n\n: comment\ndata: [2]\ndata:{"skipped": true}\n\n'
    assert lib.json_of_data_lines(body) == [{"a": 1}, [2]]
    with pytest.raises(json.JSONDecodeError):
        lib.json_of_data_lines("data: oops\n")


def test_done_marker_keywords(lib, play):
    lib.stream_should_end_with_done_marker(play("{}"))
    lib.stream_should_have_no_done_marker(play("{}", done=False))
    assert fails(lib.stream_should_have_no_done_marker, play("{}")) == "stream has 1 [DONE] marker(s), expected none"
    assert fails(lib.stream_should_end_with_done_marker, play("[DONE]")) == "stream has 2 [DONE] markers, expected 1"
    assert fails(lib.stream_should_end_with_done_marker, play("[DONE]", '{"a": 1}', done=False)) == \
        "[DONE] is not the last event; the last is '{\"a\": 1}'"
    assert fails(lib.stream_should_end_with_done_marker, play(done=False)) == \
        "stream has no [DONE] marker (0 events; last: none)"
    assert fails(lib.stream_should_end_with_done_marker, play('{"a": 1}', done=False)) == \
        "stream has no [DONE] marker (1 events; last: '{\"a\": 1}')"


def test_streamed_text_should_be(lib, play):
    r = play({"content": "Hello world"})
    lib.streamed_text_should_be(r, "Hello world")
    assert fails(lib.streamed_text_should_be, r, "Hello World!") == \
        "streamed text was 'Hello world' (11 chars), expected 'Hello World!' (12 chars); first difference at char 6"
    message = fails(lib.streamed_text_should_be, play({"content": "x" * 1000}), "y")
    assert "'xxx" in message and "…" in message and len(message) < 400
    assert fails(lib.streamed_text_should_be, r, "Hello world!").endswith("first difference at char 11")


@pytest.mark.parametrize(("a", "b", "at"), [("abc", "abd", 2), ("ab", "abc", 2), ("abc", "a", 1), ("", "x", 0),
                                            ("same", "same", 4)])
def test_first_difference(a, b, at):
    assert first_difference(a, b) == at == first_difference(b, a)


# ---- OpenAI chunks -------------------------------------------------------------------------------------


def test_only_the_first_chunk_should_carry_the_role(lib, play):
    chunks = chat_chunks()
    lib.only_the_first_chunk_should_carry_the_role(play(*chunks))
    lib.only_the_first_chunk_should_carry_the_role(play(*chat_chunks(usage={})), role="assistant")
    del choice(chunks[0])["delta"]["content"]  # absent is as good as null
    lib.only_the_first_chunk_should_carry_the_role(play(*chunks))


def test_only_the_first_chunk_should_carry_the_role_fails(lib, play):
    check = lib.only_the_first_chunk_should_carry_the_role
    assert fails(check, play(*chat_chunks()), role="user") == \
        "the first chunk (event 0) has role 'assistant', expected 'user'"
    chunks = chat_chunks()
    choice(chunks[0])["delta"]["content"] = "Hi"
    assert fails(check, play(*chunks)) == \
        "the first chunk (event 0) carries content 'Hi' next to the role, expected none"
    chunks = chat_chunks()
    choice(chunks[2])["delta"]["role"] = "assistant"
    assert fails(check, play(*chunks)) == "event 2 carries role 'assistant'; only the first chunk should"
    assert fails(check, play(*native_chunks())) == \
        "event 0 is not an OpenAI chunk (no choices list): {'content': 'a', 'tokens': [0], 'stop': False, " \
        "'id_slot': 0}"
    assert fails(check, play({**BASE, "choices": [{"index": 0, "text": "a"}]})).startswith(
        "event 0 has no delta object (not a chat chunk): ")
    assert fails(check, play({"choices": []})) == "stream has no chunk with choices (1 JSON chunks)"


def test_no_chunk_before_the_last_should_finish(lib, play):
    lib.no_chunk_before_the_last_should_finish(play(*chat_chunks()))
    lib.no_chunk_before_the_last_should_finish(play(*chat_chunks(usage={"completion_tokens": 2})))
    chunks = chat_chunks()
    choice(chunks[1])["finish_reason"] = "stop"
    assert fails(lib.no_chunk_before_the_last_should_finish, play(*chunks)) == \
        "event 1 has finish_reason 'stop' before the finish chunk (event 3)"
    chunks = chat_chunks(usage={})[:-2] + chat_chunks(usage={})[-1:]  # no finish chunk, usage chunk kept
    assert fails(lib.no_chunk_before_the_last_should_finish, play(*chunks)) == \
        "no chunk finishes: the last chunk with choices (event 2) has finish_reason None"
    chunks = chat_chunks()
    del choice(chunks[-1])["finish_reason"]
    assert fails(lib.no_chunk_before_the_last_should_finish, play(*chunks)).endswith("has finish_reason (missing)")


def test_finish_chunk_should_be(lib, play):
    lib.finish_chunk_should_be(play(*chat_chunks(finish="length", usage={})), "length")
    lib.finish_chunk_should_be(play({**BASE, "choices": [{"index": 0, "text": "", "finish_reason": "stop"}]}), "stop")
    assert fails(lib.finish_chunk_should_be, play(*chat_chunks(finish="stop")), "length") == \
        "the finish chunk (event 3) has finish_reason 'stop', expected 'length'"
    chunks = chat_chunks()
    choice(chunks[-1])["delta"] = {"content": "!"}
    assert fails(lib.finish_chunk_should_be, play(*chunks), "length") == \
        "the finish chunk (event 3) has delta {'content': '!'}, expected {}"


def test_every_chunk_should_share_id_model_and_object(lib, play):
    check = lib.every_chunk_should_share_id_model_and_object
    check(play(*chat_chunks(usage={"completion_tokens": 2})))
    completion = [{**BASE, "object": "text_completion", "choices": [{"index": 0, "text": "a", "finish_reason": None}]}]
    check(play(*completion), object="text_completion")
    assert fails(check, play(*completion)) == \
        "event 0 has object 'text_completion', expected 'chat.completion.chunk'"
    for key, value in (("id", "chatcmpl-2"), ("model", "other")):
        chunks = chat_chunks()
        chunks[2][key] = value
        assert fails(check, play(*chunks)) == f"event 2 has {key} {value!r}, event 0 has {BASE[key]!r}"
    chunks = chat_chunks()
    del chunks[1]["model"], chunks[1]["id"]
    assert fails(check, play(*chunks)).startswith("event 1 lacks id, model: ")
    assert fails(check, play(done=True)) == "stream has no JSON chunks"
    assert fails(check, play("[1]")) == "event 0 is not a JSON object: [1]"


def test_usage_chunk_should_report(lib, play):
    r = play(*chat_chunks(usage={"completion_tokens": 4, "prompt_tokens": 9}))
    lib.usage_chunk_should_report(r)
    lib.usage_chunk_should_report(r, completion_tokens="4", prompt_tokens=9)
    assert fails(lib.usage_chunk_should_report, r, completion_tokens="5") == \
        "the usage of event 4 has completion_tokens 4, expected '5'"
    assert fails(lib.usage_chunk_should_report, r, total_tokens=13) == \
        "the usage of event 4 lacks 'total_tokens'; it has: completion_tokens, prompt_tokens"
    assert fails(lib.usage_chunk_should_report, play(*chat_chunks())).startswith(
        "the last chunk (event 3) is not a usage chunk: ")
    chunks = chat_chunks()
    chunks[-1]["usage"] = {"completion_tokens": 2}  # usage on the finish chunk, as older builds sent it
    assert fails(lib.usage_chunk_should_report, play(*chunks)).startswith(
        "the usage chunk (event 3) has choices [{'index': 0, 'delta': {}, ")
    assert fails(lib.usage_chunk_should_report, play()) == "stream has no JSON chunks, so no usage chunk"


def test_stream_should_have_no_usage_chunk(lib, play):
    lib.stream_should_have_no_usage_chunk(play(*chat_chunks()))
    chunks = [{**chunk, "usage": None} for chunk in chat_chunks()]  # OpenAI's "usage": null on other chunks
    lib.stream_should_have_no_usage_chunk(play(*chunks))
    assert fails(lib.stream_should_have_no_usage_chunk, play(*chat_chunks(usage={"completion_tokens": 2}))) == \
        "event 4 carries usage {'completion_tokens': 2}, expected no usage chunk"


# ---- native /completion chunks -------------------------------------------------------------------------


def test_every_partial_chunk_should_carry_one_token(lib, play):
    check = lib.every_partial_chunk_should_carry_one_token
    check(play(*native_chunks(), done=False))
    chunks = native_chunks()
    chunks[1]["tokens"] = [1, 2]
    assert fails(check, play(*chunks)) == "partial chunk (event 1) has tokens [1, 2], expected exactly one"
    chunks = native_chunks()
    del chunks[2]["tokens"]
    assert fails(check, play(*chunks)) == "partial chunk (event 2) has tokens (missing), expected exactly one"
    chunks = native_chunks()
    chunks[0]["stop"] = True
    assert fails(check, play(*chunks)) == "partial chunk (event 0) has stop True, expected false"
    assert fails(check, play(*native_chunks(tokens=()))) == \
        "stream has 1 JSON chunk(s): no partial chunk before the final one"
    chunks = native_chunks()
    chunks[-1]["tokens_predicted"] = 4
    assert fails(check, play(*chunks)) == \
        "stream has 3 partial chunks, but its final chunk reports tokens_predicted 4"


def test_final_chunk_should_report(lib, play):
    r = play(*native_chunks(), done=False)
    lib.final_chunk_should_report(r)
    lib.final_chunk_should_report(r, stop_type="limit", tokens_predicted="3", stop="true", content="")
    lib.final_chunk_should_report(r, tokens_predicted=3, stop=True, timings={"predicted_n": 3})
    assert fails(lib.final_chunk_should_report, r, stop_type="eos") == \
        "the final chunk (event 3) has stop_type 'limit', expected 'eos'"
    assert fails(lib.final_chunk_should_report, r, tokens_predicted="8") == \
        "the final chunk (event 3) has tokens_predicted 3, expected '8'"
    assert fails(lib.final_chunk_should_report, r, stop=1) == "the final chunk (event 3) has stop True, expected 1"
    assert fails(lib.final_chunk_should_report, r, stop_word="x").startswith(
        "the final chunk (event 3) lacks 'stop_word'; it has: content, stop, stop_type, timings, tokens")
    chunks = native_chunks()[:-1]
    assert fails(lib.final_chunk_should_report, play(*chunks)) == \
        "the final chunk (event 2) has stop False, expected true"
    assert fails(lib.final_chunk_should_report, play()) == "stream has no JSON chunks, so no final chunk"


# ---- OpenAI chunks of one choice -----------------------------------------------------------------------


def two_choice_chunks() -> list[dict]:
    """Chunks of a stream with ``n: 2``, the choices interleaved, then a usage chunk."""
    def chunk(index, delta, reason=None):
        return {**BASE, "choices": [{"index": index, "delta": delta, "finish_reason": reason}]}

    return [chunk(0, {"role": "assistant", "content": None}), chunk(1, {"role": "assistant", "content": None}),
            chunk(1, {"content": "b"}), chunk(0, {"content": "a", "reasoning_content": "r"}),
            chunk(0, {}, "length"), chunk(1, {}, "length"), {**BASE, "choices": [], "usage": {}}]


def test_chunks_of_choice_takes_the_choice_out_of_every_chunk(lib, play):
    r = play(*two_choice_chunks())
    first = lib.chunks_of_choice(r, "0")
    assert [c["delta"] for c in first] == [{"role": "assistant", "content": None},
                                           {"content": "a", "reasoning_content": "r"}, {}]
    assert len(lib.chunks_of_choice(r, 1)) == 3 and lib.chunks_of_choice(r, 2) == []
    assert fails(lib.chunks_of_choice, play({"a": 1}), 0) == \
        "event 0 is not an OpenAI chunk (no choices list): {'a': 1}"
    assert fails(lib.chunks_of_choice, play({"choices": [{"delta": {}}]}), 0) == \
        "event 0 has a choice without an index: {'delta': {}}"


def test_delta_fields_of_the_chunks_of_a_choice(lib, play):
    first = lib.chunks_of_choice(play(*two_choice_chunks()), 0)
    assert lib.delta_field_of_each(first, "role") == ["assistant", None, None]
    assert lib.joined_delta_text(first) == "a"
    assert lib.joined_delta_text(first, "reasoning_content") == "r"
    assert fails(lib.delta_field_of_each, [{"index": 0, "delta": None}], "role") == \
        "chunk 0 of the choice has no delta object: {'index': 0, 'delta': None}"
    assert fails(lib.joined_delta_text, [{"delta": {"content": 7}}]) == "delta.content is not a string: 7"


def test_tool_calls_are_added_up_from_their_deltas(lib):
    choices = [{"delta": {"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "f", "arguments": "{\"a"}}]}},
               {"delta": {"tool_calls": [{"index": 1, "id": "c1", "function": {"name": "g"}}]}},
               {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\": 1}"}}]}}, {"delta": {}}]
    deltas = lib.delta_list_entries(choices)
    assert [delta["index"] for delta in deltas] == [0, 1, 0]
    assert lib.tool_calls_of_deltas(deltas) == [{"id": "c0", "name": "f", "arguments": "{\"a\": 1}"},
                                                {"id": "c1", "name": "g", "arguments": ""}]
    assert fails(lib.tool_calls_of_deltas, deltas[2:]) == ("the deltas of tool call 0 do not add up to a call "
                                                          "(KeyError: 'id'): [{'index': 0, 'function': "
                                                          "{'arguments': '\": 1}'}}]")
    assert fails(lib.tool_calls_of_deltas, [{"id": "x"}]).startswith("a tool-call delta has no index (KeyError")
