"""Datasets for load runs: ShareGPT sampling and its cache, fixed-length prompts (against the real tiny
llama-server, and a scripted tokenizer for the failure paths), request bodies per route, dataset hashes."""

from __future__ import annotations

import json
import pickle

import pytest
import requests

from llamatest import media
from llamatest.load.workloads import datasets
from llamatest.load.workloads.datasets import body_maker, dataset_hash, fixed_length_prompts, nonce, sharegpt_prompts


# ----- ShareGPT -----
@pytest.fixture
def fake_sharegpt_cache(tmp_path, monkeypatch):
    """$LLAMATEST_CACHE with a cached first-turn list of known lengths (10..59 characters)."""
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))
    monkeypatch.setattr(datasets, "_FIRST_TURNS", {})
    version = datasets.metadata.version(datasets.SHAREGPT_PACKAGE)
    turns = [f"prompt {i:02d} " + "x" * i for i in range(50)]  # len = 10 + i
    cached = tmp_path / "sharegpt" / f"first-turns-{version}.json"
    cached.parent.mkdir()
    cached.write_text(json.dumps(turns))
    return turns


def test_sharegpt_sampling_is_reproducible_and_distinct(fake_sharegpt_cache):
    first = sharegpt_prompts(20, seed=7, min_chars=0, max_chars=100)
    assert first == sharegpt_prompts(20, seed=7, min_chars=0, max_chars=100)
    assert first != sharegpt_prompts(20, seed=8, min_chars=0, max_chars=100)
    assert len(set(first)) == 20
    assert set(first) <= set(fake_sharegpt_cache)


def test_sharegpt_length_filters_are_inclusive(fake_sharegpt_cache):
    prompts = sharegpt_prompts(11, min_chars=20, max_chars=30)
    assert sorted(map(len, prompts)) == list(range(20, 31))


def test_sharegpt_asking_for_more_than_the_filters_leave_is_an_error(fake_sharegpt_cache):
    with pytest.raises(ValueError, match="only 11 distinct first turns of 20 to 30 characters; asked for 12"):
        sharegpt_prompts(12, min_chars=20, max_chars=30)


@pytest.mark.parametrize("kwargs, message", [
    ({"n": 0}, "n must be >= 1; got 0"),
    ({"n": 1.5}, "n must be an integer; got 1.5"),
    ({"n": 1, "min_chars": 50, "max_chars": 10}, r"min_chars \(50\) must not be greater than max_chars \(10\)"),
    ({"n": 1, "max_chars": 0}, "max_chars must be >= 1; got 0"),
])
def test_sharegpt_bad_arguments(fake_sharegpt_cache, kwargs, message):
    with pytest.raises(ValueError, match=message):
        sharegpt_prompts(**kwargs)


def test_sharegpt_reads_the_package_once_then_its_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))
    monkeypatch.setattr(datasets, "_FIRST_TURNS", {})
    prompts = sharegpt_prompts(50, seed=1)
    assert all(datasets.SHAREGPT_MIN_CHARS <= len(p) <= datasets.SHAREGPT_MAX_CHARS for p in prompts)
    [cached] = (tmp_path / "sharegpt").glob("first-turns-*.json")
    turns = json.loads(cached.read_text())
    assert len(turns) > 5000 and len(turns) == len(set(turns))
    assert set(prompts) <= set(turns)
    monkeypatch.setattr(datasets, "_FIRST_TURNS", {})
    monkeypatch.setattr(datasets, "_read_sharegpt_first_turns", lambda: pytest.fail("the cache was not used"))
    assert sharegpt_prompts(50, seed=1) == prompts


def test_a_truncated_json_list_yields_its_complete_items():
    text = '[\n {"a": 1},\n {"b": [2, 3]} , {"c": "cut in the mid'
    assert list(datasets._json_list_items(text)) == [{"a": 1}, {"b": [2, 3]}]
    assert list(datasets._json_list_items('[{"a": 1}]')) == [{"a": 1}]


# ----- fixed-length prompts against a scripted tokenizer -----
class ScriptedTokenizer:
    """A requests-like session: one token per character, except that with ``odd`` a text counted right after
    a cut has one token more (even length) or two more (odd length), so that no cut is ever exact."""

    def __init__(self, odd: bool = False, status: int = 200):
        self.odd, self.status, self.calls = odd, status, []

    def post(self, url, json, headers, timeout):
        after_cut = bool(self.calls) and self.calls[-1][0] == "detokenize"
        self.calls.append((url.rsplit("/", 1)[1], headers))
        if url.endswith("/tokenize"):
            tokens = [ord(c) for c in json["content"]]
            if self.odd and after_cut:
                tokens += [0] if len(tokens) % 2 == 0 else [0, 0]
            body = {"tokens": tokens}
        else:
            body = {"content": "".join(chr(t) for t in json["tokens"])}
        return _Response(self.status, body)


class _Response:
    def __init__(self, status, body):
        self.status_code, self._body, self.text = status, body, "scripted error" if status != 200 else ""

    def json(self):
        return self._body


def test_fixed_length_prompts_with_a_scripted_tokenizer_send_the_headers():
    session = ScriptedTokenizer()
    prompts = fixed_length_prompts("http://x", 3, 40, seed=2, headers={"Authorization": "Bearer k"},
                                   session=session)
    assert [len(p) for p in prompts] == [40, 40, 40]
    assert [p[:len(nonce(i, 2))] for i, p in enumerate(prompts)] == [nonce(i, 2) for i in range(3)]
    assert {h["Authorization"] for _, h in session.calls} == {"Bearer k"}


def test_fixed_length_prompts_fail_clearly_when_no_cut_is_exact():
    with pytest.raises(RuntimeError, match="could not build a prompt of exactly 40 tokens starting"):
        fixed_length_prompts("http://x", 1, 40, session=ScriptedTokenizer(odd=True))


def test_fixed_length_prompts_report_a_server_error():
    with pytest.raises(RuntimeError, match="POST http://x/tokenize answered 500: scripted error"):
        fixed_length_prompts("http://x", 1, 40, session=ScriptedTokenizer(status=500))


@pytest.mark.parametrize("kwargs, message", [
    ({"n": 0}, "n must be >= 1"),
    ({"n_tokens": 0}, "n_tokens must be >= 1"),
    ({"route": "/v1/embeddings"}, "route must be None or one of"),
    ({"base_url": "127.0.0.1:8080"}, "base_url must be an http"),
    ({"n_tokens": 5}, r"n_tokens must be at least 8 here \(the nonce '\[s0 r0\]'"),
])
def test_fixed_length_prompts_bad_arguments(kwargs, message):
    args = {"base_url": "http://x", "n": 1, "n_tokens": 40, **kwargs}
    with pytest.raises(ValueError, match=message):
        fixed_length_prompts(args.pop("base_url"), args.pop("n"), args.pop("n_tokens"), **args,
                             session=ScriptedTokenizer())


# ----- fixed-length prompts against the real tiny server -----
@pytest.fixture(scope="module")
def tiny_url(tmp_path_factory):
    from llamatest.models.catalog import resolve_model
    from llamatest.server.binary import server_binary
    from llamatest.server.presets import preset
    from llamatest.server.process import ServerPool

    try:
        server_binary()
    except AssertionError as exc:
        pytest.skip(f"no llama-server binary: {exc}")
    chosen = preset("tiny-1-slot")
    pool = ServerPool()
    server = pool.start(resolve_model(chosen.model), list(chosen.args()), alias="datasets",
                        output_dir=tmp_path_factory.mktemp("tiny-server"))
    yield server.url
    pool.stop_all(grace=5)


def count_tokens(url: str, text: str) -> int:
    resp = requests.post(f"{url}/tokenize", json={"content": text, "add_special": False}, timeout=10)
    assert resp.status_code == 200
    return len(resp.json()["tokens"])


def test_fixed_length_prompts_have_exactly_n_text_tokens_and_a_unique_nonce_first(tiny_url):
    prompts = fixed_length_prompts(tiny_url, 8, 64, seed=5)
    assert [count_tokens(tiny_url, p) for p in prompts] == [64] * 8
    assert [p.startswith(nonce(i, 5)) for i, p in enumerate(prompts)] == [True] * 8
    assert len({p[:12] for p in prompts}) == 8
    assert prompts == fixed_length_prompts(tiny_url, 8, 64, seed=5)
    assert prompts != fixed_length_prompts(tiny_url, 8, 64, seed=6)


@pytest.mark.parametrize("route", ["/completion", "/v1/completions", "/v1/chat/completions"])
def test_fixed_length_prompts_match_what_the_route_counts(tiny_url, route):
    prompts = fixed_length_prompts(tiny_url, 2, 48, route=route)
    bodies = body_maker(prompts, route=route, max_tokens=1)
    counted = []
    for i in range(2):
        resp = requests.post(tiny_url + route, json=bodies(i), timeout=30)
        assert resp.status_code == 200
        out = resp.json()
        counted.append(out["timings"]["prompt_n"] if route == "/completion" else out["usage"]["prompt_tokens"])
    assert counted == [48, 48]


# ----- bodies -----
def test_chat_body():
    body = body_maker(["a", "b"], route="/v1/chat/completions", max_tokens=16)(1)
    assert body == {"messages": [{"role": "user", "content": "b"}], "max_tokens": 16, "temperature": 0.0,
                    "ignore_eos": True, "seed": 0, "cache_prompt": False}


def test_openai_completions_body_without_the_cold_and_eos_guards():
    make = body_maker(["a"], route="/v1/completions", max_tokens=8, ignore_eos=False, cold=False, seed=None,
                      temperature=0.7)
    assert make(0) == {"prompt": "a", "max_tokens": 8, "temperature": 0.7}


@pytest.mark.parametrize("route", ["/completion", "/completions"])
def test_native_completion_body_uses_n_predict_and_extra_wins(route):
    make = body_maker(["a"], route=route, max_tokens=8, seed=3, extra={"n_predict": 9, "top_k": 1})
    assert make(0) == {"prompt": "a", "n_predict": 9, "temperature": 0.0, "ignore_eos": True, "seed": 3,
                       "cache_prompt": False, "top_k": 1}


def test_bodies_cycle_through_the_prompts_and_share_no_nested_object():
    make = body_maker(["a", "b", "c"], route="/completion", max_tokens=4, extra={"stop": ["x"]})
    assert [make(i)["prompt"] for i in range(7)] == ["a", "b", "c", "a", "b", "c", "a"]
    assert make(0)["stop"] is not make(1)["stop"]


@pytest.mark.parametrize("route, extra", [("/v1/chat/completions", None), ("/completion", None),
                                          ("/completion", {"messages": [{"role": "user", "content": "z"}]})])
def test_a_body_maker_knows_the_prompt_hash_of_its_bodies(route, extra):
    make = body_maker(["a", "b", "c"], route=route, max_tokens=4, extra=extra)
    hashes = [make.prompt_hash(i) for i in range(7)]
    assert hashes == [datasets.prompt_hash(make(i)) for i in range(7)]
    assert len(set(hashes)) == (1 if extra else 3)
    again = pickle.loads(pickle.dumps(make))  # with its memo of hashes
    assert again == make and again.prompt_hash(5) == hashes[5]


def test_a_body_maker_survives_pickling():
    make = body_maker(["a", "b"], route="/v1/chat/completions", max_tokens=4)
    assert pickle.loads(pickle.dumps(make))(1) == make(1)
    assert make.as_dict()["dataset_hash"] == dataset_hash(["a", "b"])


def test_image_chats_pair_each_question_with_its_own_seeded_image():
    prompts, images = datasets.image_chats(3, seed=4)
    assert prompts == [datasets.IMAGE_QUESTION] * 3
    assert images == [media.image_data_uri("png", seed) for seed in (4, 5, 6)]
    body = body_maker(prompts, route="/v1/chat/completions", max_tokens=4, images=images)(4)
    assert body["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": datasets.IMAGE_QUESTION}, {"type": "image_url", "image_url": {"url": images[1]}}]}]


def test_image_bodies_have_one_hash_per_image():
    prompts, images = datasets.image_chats(3)
    make = body_maker(prompts, route="/v1/chat/completions", max_tokens=4, images=images)
    assert len({make.prompt_hash(i) for i in range(6)}) == 3
    assert make.as_dict()["images"] == 3


@pytest.mark.parametrize("prompts, kwargs, message", [
    (["a"], {"images": ["data:image/png;base64,AA=="]}, "images go with the chat route, one per prompt"),
    (["a", "b"], {"route": "/v1/chat/completions", "images": ["x"]}, "1 images for 2 prompts"),
    ("abc", {}, "prompts must be a list of strings; got str"),
    ([], {}, "prompts must not be empty"),
    (["a", ""], {}, r"items \[1\] are not"),
    (["a"], {"route": "/v1/embeddings"}, "route must be one of"),
    (["a"], {"max_tokens": 0}, "max_tokens must be >= 1; got 0"),
    (["a"], {"temperature": -1}, "temperature must be a number >= 0"),
    (["a"], {"seed": -1}, "seed must be >= 0"),
    (["a"], {"extra": {"x": object()}}, "extra must be JSON-serializable"),
    (["a"], {"extra": ["x"]}, "extra must be a dict"),
])
def test_body_maker_bad_arguments(prompts, kwargs, message):
    with pytest.raises(ValueError, match=message):
        body_maker(prompts, **{"route": "/completion", "max_tokens": 4, **kwargs})


# ----- hashes -----
def test_dataset_hash_is_stable_and_sees_order_and_boundaries():
    h = dataset_hash(["ab", "c"])
    assert h == dataset_hash(("ab", "c")) and h.startswith("sha256:") and len(h) == 23
    assert h != dataset_hash(["c", "ab"])
    assert h != dataset_hash(["a", "bc"])
    with pytest.raises(ValueError, match="prompts must be a list of strings"):
        dataset_hash("abc")

