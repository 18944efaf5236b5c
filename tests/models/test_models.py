"""Model generation and lookup: determinism, vocabulary contract, clear errors."""

import gguf
import pytest

from llamatest.models import catalog as ModelLibrary
from llamatest.models import tiny as _tinymodel


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))
    return tmp_path


def test_generation_is_byte_identical(tmp_path):
    first, second = tmp_path / "a.gguf", tmp_path / "b.gguf"
    _tinymodel.write_tiny(_tinymodel.FLAVOURS["tiny"], first, "tiny")
    _tinymodel.write_tiny(_tinymodel.FLAVOURS["tiny"], second, "tiny")
    assert first.read_bytes() == second.read_bytes()


def test_model_is_cached_under_the_generator_hash(cache):
    path = ModelLibrary.resolve_model("tiny")
    assert path.parent == cache / "models"
    assert _tinymodel.generator_hash() in path.name
    mtime = path.stat().st_mtime_ns
    assert ModelLibrary.resolve_model("tiny").stat().st_mtime_ns == mtime  # not regenerated


def test_vocabulary_has_byte_fallback_fim_and_specials():
    pieces, _, types = _tinymodel.build_vocab()
    assert pieces[:3] == ["<unk>", "<s>", "</s>"]
    assert [pieces.index(f"<0x{b:02X}>") for b in (0, 255)] == [3, 258]
    assert all(types[3 + b] == _tinymodel.BYTE for b in range(256))
    for token in ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|im_start|>", "<|im_end|>"):
        assert types[pieces.index(token)] == _tinymodel.CONTROL


def test_flavours_differ_only_in_which_tokens_are_allowed():
    pieces, _, types = _tinymodel.build_vocab()
    readable = _tinymodel.token_bias(_tinymodel.FLAVOURS["tiny"], pieces, types)
    raw = _tinymodel.token_bias(_tinymodel.FLAVOURS["tiny-raw"], pieces, types)
    high_bytes = [3 + b for b in range(0x80, 0x100)]
    assert all(readable[i] < 0 for i in high_bytes)
    assert all(raw[i] > 0 for i in high_bytes)
    assert readable[2] < 0 and raw[2] < 0  # EOS never sampled by itself
    changed = [i for i in range(len(pieces)) if readable[i] != raw[i]]
    assert changed == high_bytes


def test_metadata_reports_what_the_file_holds():
    meta = ModelLibrary.read_metadata(ModelLibrary.resolve_model("tiny"))
    spec = _tinymodel.FLAVOURS["tiny"]
    assert meta["architecture"] == "llama"
    assert meta["n_ctx_train"] == spec.n_ctx_train
    assert meta["n_vocab"] == len(_tinymodel.build_vocab()[0])
    assert meta["chat_template"] == _tinymodel.CHAT_TEMPLATE
    reader = gguf.GGUFReader(meta["path"])
    assert meta["n_params"] == sum(int(t.n_elements) for t in reader.tensors)


def test_unknown_model_lists_the_known_names():
    known = ", ".join(ModelLibrary.known_models())
    assert {"smollm2", "tiny", "tiny-raw"} <= set(ModelLibrary.known_models())
    with pytest.raises(AssertionError, match=f"unknown model 'nope': known models are {known}, or give the path"):
        ModelLibrary.resolve_model("nope")


def test_packaged_model_is_found_without_importing_its_package():
    path = ModelLibrary.resolve_model("smollm2")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.is_file()
