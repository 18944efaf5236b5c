"""Request bodies of a batch, and how the answers of every route are read."""

import pytest

from llamatest.concurrency import answers
from llamatest.concurrency.bodies import build_bodies, route_path
from llamatest.streaming.result import StreamEvent, StreamResult


def test_prompts_times_and_per_request_values():
    bodies = build_bodies("native", ["a", "b"], times=2, id_slots=[0, 1, 0, 1], seeds=[7], n_predicts=[1, 2, 3, 4],
                          fields={"temperature": 1})
    assert [b["prompt"] for b in bodies] == ["a", "b", "a", "b"]
    assert bodies[3] == {"temperature": 1, "stream": True, "prompt": "b", "id_slot": 1, "seed": 7, "n_predict": 4}


def test_chat_and_embedding_bodies():
    (chat,) = build_bodies("chat", ["hi"], stream=False, fields={"max_tokens": 3})
    assert chat == {"temperature": 0, "max_tokens": 3, "stream": False, "messages": [{"role": "user", "content": "hi"}]}
    assert build_bodies("embeddings", ["x"], fields={"model": "m"}) == [{"input": "x", "model": "m"}]


def test_wrong_arguments_are_refused():
    with pytest.raises(ValueError, match="unknown route 'nope': use one of native, openai, chat, embeddings"):
        build_bodies("nope", ["a"])
    with pytest.raises(ValueError, match="no prompt"):
        build_bodies("native", [])
    with pytest.raises(ValueError, match="times must be at least 1"):
        build_bodies("native", ["a"], times=0)
    with pytest.raises(ValueError, match="seeds has 2 values for 3 requests"):
        build_bodies("native", ["a", "b", "c"], seeds=[1, 2])
    assert route_path("openai") == "/v1/completions"


def stream(*objects, status=200):
    events = [StreamEvent(0.01 * k, "message", "x", obj) for k, obj in enumerate(objects)]
    return StreamResult(url="http://h/completion", status=status, headers={"content-type": "text/event-stream"},
                        events=events)


def plain(obj, status=200):
    return StreamResult(url="http://h/completion", status=status, headers={"content-type": "application/json"},
                        json_body=obj)


def test_native_stream():
    r = stream({"content": "ab", "stop": False, "id_slot": -1}, {"content": "", "stop": True, "id_slot": 1,
                                                                   "tokens_predicted": 2, "stop_type": "limit"})
    assert (answers.text(r), answers.predicted(r), answers.finish_reason(r), answers.slot(r)) == ("ab", 2, "limit", 1)
    assert answers.finals(r) == 1 and answers.error(r) is None


def test_openai_chat_stream_with_and_without_usage():
    role = {"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}
    token = {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]}
    finish = {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}], "timings": {"predicted_n": 1}}
    usage = {"choices": [], "usage": {"completion_tokens": 1}}
    r = stream(role, token, finish, usage, None)
    assert (answers.text(r), answers.predicted(r), answers.finish_reason(r), answers.slot(r)) == ("hi", 1, "length",
                                                                                                  None)
    assert answers.predicted(stream(role, token, finish)) == 1


def test_plain_answers():
    chat = plain({"choices": [{"message": {"content": "yo"}, "finish_reason": "stop"}],
                  "usage": {"completion_tokens": 2}})
    text = plain({"choices": [{"text": "t", "finish_reason": "length"}], "usage": {"completion_tokens": 1}})
    native = plain({"content": "n", "stop": True, "tokens_predicted": 1, "stop_type": "eos", "id_slot": 0})
    assert (answers.text(chat), answers.predicted(chat), answers.finish_reason(chat)) == ("yo", 2, "stop")
    assert (answers.text(text), answers.finish_reason(text)) == ("t", "length")
    assert (answers.text(native), answers.finish_reason(native), answers.slot(native)) == ("n", "eos", 0)


def test_errors_and_their_shape():
    err = {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}
    assert answers.error(plain({"error": err}, status=500)) == err
    assert answers.text(plain({"error": err}, status=500)) is None
    assert answers.error(stream({"content": "a", "stop": False}, {"error": err})) == err
    assert answers.is_clean_error(err)
    assert not answers.is_clean_error({"code": True, "message": "x", "type": "t"})
    assert not answers.is_clean_error({"code": 500, "message": "", "type": "t"})
    assert answers.final(StreamResult(url="http://h/x")) is None and answers.predicted(StreamResult(url="u")) is None


def test_a_mix_cycles_routes_and_marks_invalid_and_cancelled_requests():
    from llamatest.concurrency.bodies import build_mixed

    paths, bodies, cancel = build_mixed(12, 8, invalid_every=5, cancel_every=2)
    assert paths[:6] == ["/completion", "/completion", "/v1/completions", "/v1/chat/completions",
                         "/v1/chat/completions", "/v1/completions"]
    assert [b["stream"] for b in bodies[:6]] == [True, False, True, False, True, False]
    assert [i for i, b in enumerate(bodies) if b["n_predict"] == -5] == [4, 9]
    assert cancel == [2, 8]  # the 2nd and 4th valid streams (request 4 is invalid)
    assert all(bodies[i]["stream"] for i in cancel)
