"""llamatest.http.background: a POST sent from a thread of its own, its answer taken later, then stopped."""

import time

import pytest

from llamatest.http import background


def test_the_post_returns_at_once_and_its_answer_comes_later(server):
    began = time.monotonic()
    background.post_in_background("slow", f"{server}/v1/chat/completions", {"mock_pause": 0.3})
    assert time.monotonic() - began < 0.3
    assert background.background_post_was_begun("slow")
    resp = background.background_answer("slow")
    assert resp.status_code == 200
    assert "[DONE]" in resp.text
    assert time.monotonic() - began >= 0.9  # three tokens 0.3 s apart
    background.stop_background_post("slow")
    assert not background.background_post_was_begun("slow")


def test_a_request_that_fails_fails_its_answer_and_stops_cleanly():
    background.post_in_background("refused", "http://127.0.0.1:9/x", {})
    with pytest.raises(AssertionError, match="POST http://127.0.0.1:9/x failed"):
        background.background_answer("refused")
    background.stop_background_post("refused")
    background.stop_background_post("refused")  # stopping twice does nothing


def test_one_request_at_a_time_per_name(server):
    background.post_in_background("once", f"{server}/v1/chat/completions", {"mock_pause": 0})
    try:
        with pytest.raises(AssertionError, match="already begun"):
            background.post_in_background("once", f"{server}/v1/chat/completions", {})
    finally:
        background.background_answer("once")
        background.stop_background_post("once")


def test_an_answer_of_a_request_never_begun_fails():
    with pytest.raises(AssertionError, match="no background request 'absent'"):
        background.background_answer("absent")


def test_the_post_carries_its_headers(server):
    background.post_in_background("headed", f"{server}/echo", {"a": 1}, headers={"x-tool-cwd": "/some/folder"})
    try:
        seen = background.background_answer("headed").json()
    finally:
        background.stop_background_post("headed")
    assert seen["headers"]["x-tool-cwd"] == "/some/folder"
    assert seen["method"] == "POST"
