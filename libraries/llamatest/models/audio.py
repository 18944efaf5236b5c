"""Generator of `tiny-audio`: an audio projector (mmproj GGUF) for `tiny`, Ultravox style.

llama.cpp's ``tools/mtmd`` loads it as projector type ``ultravox``, the simplest audio projector it has: a
whisper encoder (two 1-D convolutions over the log-mel spectrogram, the second with stride 2, position
embeddings, pre-norm transformer blocks whose key projection has no bias), frames stacked by
``clip.audio.projector.stack_factor``, then RMS norm, a SwiGLU MLP (``mm.a.mlp.1``), RMS norm and
``mm.a.mlp.2`` into `tiny`'s embedding width. mtmd computes the mel filter bank itself (16 kHz, 400-sample
FFT, hop 160) and cuts the spectrogram into 30-second chunks of 3000 frames (the audio is padded with
silence; a last incomplete chunk is dropped), so a clip of up to 30 s is one chunk of
``3000 / stack_factor / 2`` tokens (clip.cpp ``clip_n_output_tokens``, `tokens_per_chunk`).

Random weights from a fixed seed: the same audio always gives the same embeddings, which carry `tiny`'s
constant in dimension 0 like the vision projector's (see `llamatest.models.vision`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from llamatest.models.modelfile import cached_model, code_hash, write_out
from llamatest.models.tiny import FLAVOURS
from llamatest.models.vision import PROJECTOR_TYPE as VISION_TYPE
from llamatest.models.vision import (
    encoder_blocks,
    layer_norm,
    projector_writer,
    read_fields,
    seeded,
    tiny_output,
    tokens_per_image,
)
from llamatest.models.vision import generator_hash as vision_hash

NAME = "tiny-audio"
PROJECTOR_TYPE = "ultravox"  # clip-impl.h PROJ_TYPE_NAMES: PROJECTOR_TYPE_ULTRAVOX
FRAMES_PER_CHUNK = 3000  # mtmd-audio.cpp: the whisper graph takes 30 s of 10 ms mel frames
FRAMES_PER_SECOND = 100  # 16 kHz audio, hop 160


@dataclass(frozen=True)
class AudioSpec:
    """Shape of the generated audio projector."""

    seed: int = 1357
    n_mel: int = 80
    n_embd: int = 16
    n_head: int = 2
    n_ff: int = 32
    n_layer: int = 1
    stack_factor: int = 25  # divides the 1500 encoder positions of a chunk: no padding
    mm_hidden: int = 32
    projection_dim: int = FLAVOURS["tiny"].n_embd
    eps: float = 1e-5

    @property
    def n_positions(self) -> int:
        """Encoder positions of one chunk (after the stride-2 convolution)."""
        return FRAMES_PER_CHUNK // 2


SPEC = AudioSpec()


def build_tensors(spec: AudioSpec) -> dict[str, np.ndarray]:
    """Random whisper encoder and Ultravox projector weights; numpy shapes are (out, in[, kernel])."""
    rand = seeded(spec.seed)
    stacked = spec.n_embd * spec.stack_factor
    tensors = {
        "a.conv1d.1.weight": rand(spec.n_embd, spec.n_mel, 3, s=1.0 / np.sqrt(3 * spec.n_mel)),
        "a.conv1d.1.bias": rand(spec.n_embd, 1, s=0.1),  # (out, 1): added along the frames
        "a.conv1d.2.weight": rand(spec.n_embd, spec.n_embd, 3, s=1.0 / np.sqrt(3 * spec.n_embd)),
        "a.conv1d.2.bias": rand(spec.n_embd, 1, s=0.1),
        "a.position_embd.weight": rand(spec.n_positions, spec.n_embd, s=0.1),
        **encoder_blocks(rand, "a", spec.n_layer, spec.n_embd, spec.n_ff, key_bias=False),
        **{f"a.post_ln.{kind}": value for kind, value in layer_norm(spec.n_embd).items()},
        "mm.a.norm_pre.weight": np.ones(stacked, dtype=np.float32),
        "mm.a.mlp.1.weight": rand(2 * spec.mm_hidden, stacked, s=1.0 / np.sqrt(stacked)),  # SwiGLU: two halves
        "mm.a.norm_mid.weight": np.ones(spec.mm_hidden, dtype=np.float32),
    }
    weight, _ = tiny_output(rand, spec.mm_hidden, spec.projection_dim)
    tensors["mm.a.mlp.2.weight"] = weight  # no bias in Ultravox: dimension 0 stays 0 here
    return tensors


def write_audio(spec: AudioSpec, path: Path) -> None:
    """Write the audio mmproj GGUF file for `spec` to `path`."""
    writer = projector_writer(path, NAME, "audio", PROJECTOR_TYPE, {
        "embedding_length": spec.n_embd, "feed_forward_length": spec.n_ff, "block_count": spec.n_layer,
        "projection_dim": spec.projection_dim, "attention.head_count": spec.n_head,
        "attention.layer_norm_epsilon": spec.eps, "num_mel_bins": spec.n_mel,
        "projector.stack_factor": spec.stack_factor})
    write_out(writer, build_tensors(spec))


def tokens_per_chunk(path: Path) -> int:
    """Prompt tokens of one 30-second chunk with the projector file at `path`, from its own metadata: the
    chunk's 3000 frames, aligned up to and divided by the stack factor, halved by the stride-2 convolution
    (clip.cpp ``clip_n_output_tokens`` for ``ultravox``)."""
    fields = read_fields(path)
    if fields.get("clip.projector_type") != PROJECTOR_TYPE:
        raise ValueError(f"{path}: not an '{PROJECTOR_TYPE}' projector")
    stack = fields["clip.audio.projector.stack_factor"]
    return -(-FRAMES_PER_CHUNK // stack) // 2


def generator_hash() -> str:
    """Hash of this generator and of the vision generator it shares code with."""
    return hashlib.sha256(f"{code_hash(Path(__file__))} {vision_hash()}".encode()).hexdigest()[:16]


def audio_projector_path(cache_dir: Path) -> Path:
    """Path of the ``tiny-audio`` projector, generating it on first use."""
    return cached_model(cache_dir, NAME, generator_hash(), partial(write_audio, SPEC))


def audio_chunks(seconds: float) -> int:
    """How many 30-second chunks mtmd makes of a clip of `seconds`: the spectrogram (100 frames a second)
    plus the 3000 silent frames mtmd appends, in whole chunks of 3000 frames (the incomplete last one is
    dropped). Exact away from multiples of 30 s, where one frame of FFT padding could tip it."""
    return int((float(seconds) * FRAMES_PER_SECOND + FRAMES_PER_CHUNK) // FRAMES_PER_CHUNK)


def media_tokens(path: Path, seconds: float | None = None) -> int:
    """Prompt tokens of one image (a vision projector), or of one audio clip of `seconds` (an audio projector;
    None: one 30-second chunk), with the projector file at `path`, from its own metadata."""
    projector_type = read_fields(path).get("clip.projector_type")
    if projector_type == VISION_TYPE:
        return tokens_per_image(path)
    if projector_type == PROJECTOR_TYPE:
        return tokens_per_chunk(path) * (1 if seconds is None else audio_chunks(seconds))
    raise ValueError(f"{path}: projector type {projector_type!r} is not one llamatest generates")
