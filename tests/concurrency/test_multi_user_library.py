"""MultiUserLibrary, the keyword facade, against the fake multi-slot llama-server."""

import asyncio
import re

import pytest

from llamatest.concurrency.batch import Batch, Options
from MultiUserLibrary import MultiUserLibrary, _options


@pytest.fixture
def lib():
    return MultiUserLibrary()


def test_send_concurrent_completions_returns_a_batch_and_logs_its_chart(lib, fake, logged):
    batch = asyncio.run(lib.send_concurrent_completions("a", "b", times=2, server=fake, n_predict=20, interval=0.002,
                                                         metrics=True, dispatch="in_order"))
    assert isinstance(batch, Batch) and len(batch) == 4
    assert [r.request_body["prompt"] for r in batch.results] == ["a", "b", "a", "b"]
    (message, is_html), = logged
    assert is_html and message.startswith("<div><svg")
    assert re.search(r"POST /fake/\w+/completion × 4 concurrently: 0 errors", message)
    lib.every_request_should_succeed(batch)
    lib.every_request_should_predict(batch, 20)
    lib.requests_should_have_been_served_in_order(batch)
    lib.requests_should_have_been_deferred(batch)
    lib.metrics_should_count_every_predicted_token(batch)
    lib.slots_should_have_gone_back_to_idle(batch)
    assert lib.request_texts(batch) == ["x" * 20] * 4


def test_the_chat_route_and_embedding_options(lib, fake, logged):
    batch = asyncio.run(lib.send_concurrent_completions("a", route="chat", server=fake, stream=False, max_tokens=3,
                                                        watch=False))
    assert batch.timeline is None and batch.results[0].request_body["messages"][0]["content"] == "a"
    lib.every_request_should_give_the_text(batch, "xxx")
    with pytest.raises(ValueError, match="dispatch must be one of"):
        asyncio.run(lib.send_concurrent_completions("a", server=fake, dispatch="random"))


def test_slots_should_become_idle(lib, fake, logged):
    asyncio.run(lib.slots_should_be_idle(fake))
    assert logged and logged[-1][0].startswith("<svg")


def test_slots_that_stay_busy_fail_with_the_busy_slots(lib, fake, logged):
    async def busy_then_check():
        send = asyncio.create_task(lib.send_concurrent_completions("a", server=fake, n_predict=300, mock_pause=0.01,
                                                                   watch=False))
        await asyncio.sleep(0.2)
        try:
            await lib.slots_should_become_idle(fake, timeout=0.2)
        finally:
            send.cancel()
            await asyncio.gather(send, return_exceptions=True)

    with pytest.raises(AssertionError, match=r"slot \d \(task \d+\) still busy after 0.2 s"):
        asyncio.run(busy_then_check())


def test_a_dead_server_fails_at_once(lib, closed_port_url):
    with pytest.raises(AssertionError, match="GET /slots never answered: GET /slots: ConnectionRefusedError"):
        asyncio.run(lib.slots_should_become_idle(closed_port_url, timeout=0.1))


def test_the_assertions_want_a_batch(lib):
    with pytest.raises(TypeError, match="expected a batch from 'Send Concurrent Completions', got list"):
        lib.every_request_should_succeed([])


def test_options_a_keyword_does_not_take_keep_their_defaults():
    assert _options({"self": None, "timeout": 5.0, "cancel": None, "fields": {"headers": 1}}) == Options(timeout=5.0)
    assert _options({"cancel": [2, 0], "cancel_after_chunks": 3}) == Options(cancel=(2, 0), cancel_after_chunks=3)
    assert _options({}) == Options()
