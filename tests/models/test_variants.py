"""The models derived from tiny: the draft shares tiny's vocabulary, the LoRA adapter fits tiny's tensors."""

import gguf
import numpy as np
import pytest

from llamatest.models import catalog, variants
from llamatest.models import tiny as _tinymodel


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))
    return tmp_path


def field(reader: gguf.GGUFReader, key: str):
    return reader.fields[key].contents()


def tensors(reader: gguf.GGUFReader) -> dict[str, gguf.ReaderTensor]:
    return {t.name: t for t in reader.tensors}


def test_variants_are_generated_byte_identically(tmp_path):
    first, second = tmp_path / "a.gguf", tmp_path / "b.gguf"
    variants.write_lora(first, "tiny-lora")
    variants.write_lora(second, "tiny-lora")
    assert first.read_bytes() == second.read_bytes()


def test_variants_are_cached_under_a_hash_of_both_generators(cache):
    draft, lora = catalog.resolve_model("tiny-draft"), catalog.resolve_model("tiny-lora")
    assert draft.parent == lora.parent == cache / "models"
    assert variants.variants_hash() in draft.name and variants.variants_hash() in lora.name
    assert variants.variants_hash() != _tinymodel.generator_hash()
    mtime = lora.stat().st_mtime_ns
    assert catalog.resolve_model("tiny-lora").stat().st_mtime_ns == mtime  # not regenerated


def test_draft_has_tinys_vocabulary_and_one_layer_less():
    tiny = gguf.GGUFReader(catalog.resolve_model("tiny"))
    draft = gguf.GGUFReader(catalog.resolve_model("tiny-draft"))
    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type",
                "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.model"):
        assert field(draft, key) == field(tiny, key), key
    assert field(draft, "llama.block_count") == field(tiny, "llama.block_count") - 1
    assert field(draft, "general.name") == "tiny-draft"


def test_draft_shares_tinys_embeddings_output_and_first_layer():
    tiny = tensors(gguf.GGUFReader(catalog.resolve_model("tiny")))
    draft = tensors(gguf.GGUFReader(catalog.resolve_model("tiny-draft")))
    assert set(draft) < set(tiny)
    assert not any(name.startswith(f"blk.{variants.DRAFT_SPEC.n_layer}.") for name in draft)
    for name, tensor in draft.items():
        assert np.array_equal(tensor.data, tiny[name].data), name


def test_lora_declares_an_adapter_for_llama():
    reader = gguf.GGUFReader(catalog.resolve_model("tiny-lora"))
    assert field(reader, "general.type") == "adapter"
    assert field(reader, "general.architecture") == "llama"
    assert field(reader, "adapter.type") == "lora"
    assert field(reader, "adapter.lora.alpha") == pytest.approx(variants.LORA_ALPHA)


def test_lora_pairs_have_the_shapes_llama_cpp_checks():
    base = tensors(gguf.GGUFReader(catalog.resolve_model("tiny")))
    lora = tensors(gguf.GGUFReader(catalog.resolve_model("tiny-lora")))
    names = {name.rsplit(".", 1)[0] for name in lora}
    assert {f"{name}.lora_a" for name in names} | {f"{name}.lora_b" for name in names} == set(lora)
    assert len(names) == len(variants.LORA_TARGETS) * _tinymodel.FLAVOURS["tiny"].n_layer
    for name in names:
        weight, a, b = base[name].shape, lora[f"{name}.lora_a"].shape, lora[f"{name}.lora_b"].shape
        # gguf's reader gives ggml's ne order: ne[0] is the input size of a weight.
        assert a[0] == weight[0], name  # lora_a takes the weight's input
        assert b[1] == weight[1], name  # lora_b gives the weight's output
        assert a[1] == b[0] == variants.LORA_RANK, name


def test_lora_never_touches_what_writes_the_bias_dimension():
    lora = tensors(gguf.GGUFReader(catalog.resolve_model("tiny-lora")))
    adapted = {name.split(".")[2] for name in lora}
    assert adapted == set(variants.LORA_TARGETS)
    assert not adapted & {"attn_output", "ffn_down", "output", "token_embd"}
