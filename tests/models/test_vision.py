"""The generated tiny-vision projector: a clip.cpp `mlp` projector for tiny, deterministic, cached by its generator."""

import gguf
import numpy as np
import pytest

from llamatest.models import catalog, tiny, vision


@pytest.fixture(scope="session")
def projector(tmp_path_factory):
    """(path, metadata key -> value, tensor name -> ggml shape) of the generated projector, made once per session."""
    path = vision.vision_projector_path(tmp_path_factory.mktemp("vision"))
    reader = gguf.GGUFReader(str(path))
    meta = {key: value.contents() for key, value in reader.fields.items()}
    return path, meta, {tensor.name: [int(n) for n in tensor.shape] for tensor in reader.tensors}


def test_the_catalog_serves_it_as_tiny_vision():
    assert catalog.GENERATED["tiny-vision"] is vision.vision_projector_path


def test_generation_is_byte_identical(projector, tmp_path):
    generated, _, _ = projector
    again = tmp_path / "again.gguf"
    vision.write_vision(vision.SPEC, again)
    assert again.read_bytes() == generated.read_bytes()


def test_another_seed_gives_other_weights():
    other = vision.build_tensors(vision.VisionSpec(seed=vision.SPEC.seed + 1))
    assert not np.array_equal(other["mm.0.weight"], vision.build_tensors(vision.SPEC)["mm.0.weight"])


def test_it_is_cached_under_the_generator_hash(projector):
    generated, _, _ = projector
    assert generated.name == f"tiny-vision-{vision.generator_hash()}.gguf"
    mtime = generated.stat().st_mtime_ns
    assert vision.vision_projector_path(generated.parent).stat().st_mtime_ns == mtime


def test_it_has_the_keys_clip_cpp_requires(projector):
    _, meta, _ = projector
    assert meta["general.architecture"] == "clip"
    assert meta["clip.projector_type"] == "mlp"
    assert (meta["clip.has_vision_encoder"], meta["clip.has_audio_encoder"]) == (True, False)
    for key in ("embedding_length", "feed_forward_length", "block_count", "projection_dim",
                "attention.head_count", "attention.layer_norm_epsilon", "image_size", "patch_size"):
        assert f"clip.vision.{key}" in meta, key
    assert len(meta["clip.vision.image_mean"]) == len(meta["clip.vision.image_std"]) == 3
    assert "clip.vision.image_grid_pinpoints" not in meta  # the fixed-size preprocessor: one square per image


def test_its_output_width_is_tinys_embedding_width(projector):
    _, meta, shapes = projector
    n_embd = tiny.FLAVOURS["tiny"].n_embd
    assert meta["clip.vision.projection_dim"] == n_embd
    assert shapes["mm.2.weight"] == [vision.SPEC.mm_hidden, n_embd]  # clip_n_mmproj_embd: mm_2_w->ne[1]


def test_the_vit_has_the_shapes_of_its_metadata(projector):
    _, meta, shapes = projector
    n_embd, patch = meta["clip.vision.embedding_length"], meta["clip.vision.patch_size"]
    assert shapes["v.patch_embd.weight"] == [patch, patch, 3, n_embd]
    assert shapes["v.position_embd.weight"] == [n_embd, vision.SPEC.tokens_per_image]
    assert "v.class_embd" not in shapes  # no class token: one output token per patch
    for layer in range(meta["clip.vision.block_count"]):
        assert shapes[f"v.blk.{layer}.attn_q.weight"] == [n_embd, n_embd]
        assert shapes[f"v.blk.{layer}.ffn_down.weight"][0] != n_embd  # else clip.cpp swaps up and down


def test_tokens_per_image_come_from_image_and_patch_size(projector):
    path, meta, _ = projector
    side = meta["clip.vision.image_size"] // meta["clip.vision.patch_size"]
    assert vision.tokens_per_image(path) == side * side == vision.SPEC.tokens_per_image


def test_image_embeddings_carry_tinys_constant_dimension():
    tensors = vision.build_tensors(vision.SPEC)
    assert not tensors["mm.2.weight"][0].any()
    assert tensors["mm.2.bias"][0] == tiny.BIAS_DIM_VALUE
