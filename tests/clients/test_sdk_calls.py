"""llamatest.clients.calls against the fake llama-server of the fixture server (``/fake/KEY/v1/chat/completions``)."""

import asyncio

import openai
import pytest

import ClientsLibrary
from llamatest.clients import calls, views
from llamatest.clients.connect import Endpoint
from TimingVerdictListener import TIMING_FAILURE

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def endpoint(server, request):
    return Endpoint(f"{server}/fake/{request.node.name}", timeout=5)


def test_call_returns_the_typed_answer(endpoint):
    record = calls.call(endpoint, "openai", "chat.completions.create", {"messages": MESSAGES, "max_tokens": 3},
                        model=lambda: "m")
    assert record.error is None
    assert isinstance(record.result, openai.types.chat.ChatCompletion)
    assert record.result.choices[0].message.content == "xxx"
    assert record.arguments["model"] == "m"
    assert record.elapsed > 0


def test_given_model_is_kept_and_methods_without_one_get_none(endpoint):
    def create(*, model, messages):
        return None

    def list_models():
        return None

    assert calls.with_model(create, {"model": "a"}, lambda: "b") == {"model": "a"}
    assert calls.with_model(create, {}, lambda: "b") == {"model": "b"}
    assert calls.with_model(list_models, {}, lambda: "b") == {}


def test_stream_reads_every_typed_chunk(endpoint):
    record = calls.call(endpoint, "openai", "chat.completions.create",
                        {"model": "m", "messages": MESSAGES, "max_tokens": 4}, stream=True)
    assert record.error is None and record.streamed and not record.helper
    assert all(isinstance(event, openai.types.chat.ChatCompletionChunk) for event in record.events)
    assert views.streamed_text(record) == "xxxx"
    assert record.events[-1].choices[0].finish_reason == "length"


def test_stream_helper_gives_its_final_object(endpoint):
    record = calls.call(endpoint, "openai", "chat.completions.stream",
                        {"model": "m", "messages": MESSAGES, "max_tokens": 2})
    # The fake stops at the limit, so the helper refuses to parse it: recorded, not raised.
    assert isinstance(record.error, openai.LengthFinishReasonError)
    assert record.helper and views.streamed_text(record) == "xx"
    assert "content.delta" in views.event_types(record)


def test_unknown_method_raises_at_once(endpoint):
    with pytest.raises(ValueError, match="no method 'chat.nope.create'"):
        calls.call(endpoint, "openai", "chat.nope.create", {})


def test_no_server_is_recorded_as_a_connection_error(closed_port_url):
    record = calls.call(Endpoint(closed_port_url), "openai", "chat.completions.create",
                        {"model": "m", "messages": MESSAGES})
    assert isinstance(record.error, openai.APIConnectionError)
    assert record.result is None


def test_strict_validation_fails_on_a_missing_field_with_the_sdk_message(endpoint):
    # The fake's chat answer has no id, created, model or object: the SDK keeps it as is, unless strict.
    lenient = calls.call(endpoint, "openai", "chat.completions.create", {"model": "m", "messages": MESSAGES})
    assert lenient.error is None and lenient.result.created is None
    strict = Endpoint(endpoint.base_url, strict=True)
    record = calls.call(strict, "openai", "chat.completions.create", {"model": "m", "messages": MESSAGES})
    assert isinstance(record.error, openai.APIResponseValidationError)
    assert "created" in views.error_text(record.error) and "Field required" in views.error_text(record.error)


def test_async_call_and_stream(endpoint):
    arguments = {"model": "m", "messages": MESSAGES, "max_tokens": 3}
    answer = asyncio.run(calls.call_async(endpoint, "openai", "chat.completions.create", arguments))
    streamed = asyncio.run(calls.call_async(endpoint, "openai", "chat.completions.create", arguments, stream=True))
    assert answer.asynchronous and answer.result.choices[0].message.content == "xxx"
    assert views.streamed_text(streamed) == "xxx"


def test_async_call_is_stopped_at_its_deadline(server):
    endpoint = Endpoint(f"{server}/fake/deadline", timeout=0.3)
    arguments = {"model": "m", "messages": MESSAGES, "max_tokens": 50, "extra_body": {"mock_pause": 0.05}}
    record = asyncio.run(calls.call_async(endpoint, "openai", "chat.completions.create", arguments, stream=True))
    assert isinstance(record.error, calls.CallTimeout)
    assert "no complete answer within 0.3 s" in str(record.error)
    assert 0 < len(record.events) < 50
    assert record.elapsed < 2


def test_concurrent_calls_keep_their_order(server):
    endpoint = Endpoint(f"{server}/fake/concurrent", timeout=5)
    argument_list = [{"messages": MESSAGES, "max_tokens": n} for n in (3, 1, 2)]
    records = asyncio.run(calls.concurrent_calls(endpoint, "openai", "chat.completions.create", argument_list,
                                                 model=lambda: "m"))
    assert [views.streamed_text(record) for record in records] == ["xxx", "x", "xx"]
    assert all(record.arguments["model"] == "m" for record in records)


def test_an_answer_within_a_timeout_meant_to_fail_is_a_timing_failure(endpoint):
    """`OpenAI Call Should Fail` with a short timeout that the answer beat: the message uses the words of a missed
    deadline, so that TimingVerdictListener does not judge it on a busy machine; without a timeout it does not."""
    record = calls.call(endpoint, "openai", "chat.completions.create", {"messages": MESSAGES, "max_tokens": 3},
                        model=lambda: "m")
    with pytest.raises(AssertionError) as timed:
        ClientsLibrary._judged(record, True, 0.005)
    with pytest.raises(AssertionError) as untimed:
        ClientsLibrary._judged(record, True)
    assert str(timed.value).endswith("returned ChatCompletion within 0.005 s, the timeout it was given")
    assert TIMING_FAILURE.search(str(timed.value))
    assert not TIMING_FAILURE.search(str(untimed.value))
