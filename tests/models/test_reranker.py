"""The generated tiny reranker: deterministic, a BERT graph with a classification head, pooling rank."""

import string

import gguf
import pytest

from llamatest.models import catalog, reranker


@pytest.fixture(scope="session")
def model(tmp_path_factory):
    """(path, metadata key -> value, tensor name -> gguf shape) of the generated model, made once per session."""
    path = reranker.reranker_model_path(tmp_path_factory.mktemp("reranker"))
    reader = gguf.GGUFReader(str(path))
    meta = {key: value.contents() for key, value in reader.fields.items()}
    return path, meta, {tensor.name: list(tensor.shape) for tensor in reader.tensors}


def test_the_catalog_serves_it_as_tiny_reranker():
    assert catalog.GENERATED["tiny-reranker"] is reranker.reranker_model_path


def test_generation_is_byte_identical(model, tmp_path):
    generated, _, _ = model
    again = tmp_path / "again.gguf"
    reranker.write_reranker(reranker.SPEC, again)
    assert again.read_bytes() == generated.read_bytes()


def test_the_model_is_cached_under_the_generator_hash(model):
    generated, _, _ = model
    assert generated.name == f"tiny-reranker-{reranker.generator_hash()}.gguf"
    mtime = generated.stat().st_mtime_ns
    assert reranker.reranker_model_path(generated.parent).stat().st_mtime_ns == mtime


def test_it_is_a_non_causal_bert_with_rank_pooling(model):
    _, meta, _ = model
    assert meta["general.architecture"] == "bert"
    assert meta["bert.pooling_type"] == gguf.PoolingType.RANK
    assert meta["bert.attention.causal"] is False
    assert (meta["bert.embedding_length"], meta["bert.block_count"]) == (reranker.SPEC.n_embd, reranker.SPEC.n_layer)


def test_the_classification_head_gives_one_score(model):
    _, _, shapes = model  # gguf order: (in, out)
    n_embd = reranker.SPEC.n_embd
    assert shapes["cls.weight"] == [n_embd, n_embd]
    assert shapes["cls.bias"] == [n_embd]
    assert shapes["cls.output.weight"] == [n_embd, 1]
    assert shapes["cls.output.bias"] == [1]


def test_every_tensor_has_a_llama_cpp_bert_name(model):
    _, _, shapes = model
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, reranker.SPEC.n_layer)
    for name in shapes:
        base, _, kind = name.rpartition(".")
        assert kind in ("weight", "bias")
        assert names.get_type_and_name(base) is not None, name


def test_a_pair_is_framed_as_cls_query_sep_document_sep(model):
    _, meta, _ = model
    tokens = meta["tokenizer.ggml.tokens"]
    framing = [tokens[meta[f"tokenizer.ggml.{kind}_token_id"]] for kind in ("bos", "eos", "seperator")]
    assert framing == ["[CLS]", "[SEP]", "[SEP]"]
    adds = [meta[f"tokenizer.ggml.add_{kind}_token"] for kind in ("bos", "eos", "sep")]
    assert adds == [True, True, False]


def test_every_lowercase_word_can_be_spelled():
    tokens, types = reranker.build_vocab()
    assert len(set(tokens)) == len(tokens)
    assert tokens[:5] == reranker.SPECIALS and set(types[:5]) == {gguf.TokenType.CONTROL}
    for char in string.ascii_lowercase + string.digits:
        assert reranker.SPACE + char in tokens  # starts a word
        assert char in tokens  # goes on in a word
    for mark in string.punctuation:
        assert reranker.SPACE + mark in tokens
