"""The generated tiny-audio projector: a clip.cpp `ultravox` projector (whisper encoder) for tiny."""

import gguf
import pytest

from llamatest.models import audio, catalog, tiny, vision


@pytest.fixture(scope="session")
def projector(tmp_path_factory):
    """(path, metadata key -> value, tensor name -> ggml shape) of the generated projector, made once per session."""
    path = audio.audio_projector_path(tmp_path_factory.mktemp("audio"))
    reader = gguf.GGUFReader(str(path))
    meta = {key: value.contents() for key, value in reader.fields.items()}
    return path, meta, {tensor.name: [int(n) for n in tensor.shape] for tensor in reader.tensors}


def test_the_catalog_serves_it_as_tiny_audio():
    assert catalog.GENERATED["tiny-audio"] is audio.audio_projector_path


def test_generation_is_byte_identical(projector, tmp_path):
    generated, _, _ = projector
    again = tmp_path / "again.gguf"
    audio.write_audio(audio.SPEC, again)
    assert again.read_bytes() == generated.read_bytes()
    assert generated.name == f"tiny-audio-{audio.generator_hash()}.gguf"


def test_it_has_the_keys_clip_cpp_requires(projector):
    _, meta, _ = projector
    assert meta["clip.projector_type"] == "ultravox"
    assert (meta["clip.has_vision_encoder"], meta["clip.has_audio_encoder"]) == (False, True)
    for key in ("embedding_length", "feed_forward_length", "block_count", "projection_dim",
                "attention.head_count", "attention.layer_norm_epsilon", "num_mel_bins", "projector.stack_factor"):
        assert f"clip.audio.{key}" in meta, key


def test_the_whisper_encoder_has_the_shapes_clip_cpp_asserts(projector):
    _, meta, shapes = projector
    n_embd, n_mel = meta["clip.audio.embedding_length"], meta["clip.audio.num_mel_bins"]
    assert shapes["a.conv1d.1.weight"] == [3, n_mel, n_embd]
    assert shapes["a.conv1d.1.bias"] == [1, n_embd]  # added along the frames
    assert shapes["a.position_embd.weight"] == [n_embd, audio.FRAMES_PER_CHUNK // 2]
    assert "a.blk.0.attn_k.bias" not in shapes  # whisper-enc.cpp: GGML_ASSERT(!k_b)
    assert {"a.blk.0.attn_q.bias", "a.blk.0.attn_v.bias", "a.blk.0.ln1.bias", "a.blk.0.ln2.bias"} <= set(shapes)


def test_its_output_width_is_tinys_embedding_width(projector):
    _, meta, shapes = projector
    stacked = meta["clip.audio.embedding_length"] * meta["clip.audio.projector.stack_factor"]
    assert shapes["mm.a.mlp.1.weight"] == [stacked, 2 * audio.SPEC.mm_hidden]  # SwiGLU halves
    assert shapes["mm.a.mlp.2.weight"] == [audio.SPEC.mm_hidden, tiny.FLAVOURS["tiny"].n_embd]


def test_a_chunk_costs_3000_frames_stacked_and_halved(projector):
    path, meta, _ = projector
    assert audio.tokens_per_chunk(path) == 3000 // meta["clip.audio.projector.stack_factor"] // 2 == 60


@pytest.mark.parametrize(("seconds", "chunks"), [(1, 1), (29, 1), (31, 2), (61, 3)])
def test_clips_are_cut_into_30_second_chunks(seconds, chunks):
    assert audio.audio_chunks(seconds) == chunks


def test_media_tokens_dispatch_on_the_projector_type(projector, tmp_path):
    path, _, _ = projector
    image_projector = tmp_path / "vision.gguf"
    vision.write_vision(vision.SPEC, image_projector)
    assert audio.media_tokens(path, seconds=31) == 2 * audio.tokens_per_chunk(path)
    assert audio.media_tokens(image_projector) == vision.SPEC.tokens_per_image
