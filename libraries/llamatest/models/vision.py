"""Generator of `tiny-vision`: a multimodal projector (mmproj GGUF) for `tiny`, LLaVA-1.5 style.

llama.cpp's ``tools/mtmd`` (clip.cpp) loads it as projector type ``mlp``, the simplest vision projector it
has: a ViT (a convolution cuts the image into patches, position embeddings, pre-norm transformer blocks)
whose patch vectors pass through a two-layer MLP (``mm.0``, GELU, ``mm.2``) into the text model's
embedding space. Without ``clip.vision.image_grid_pinpoints`` the image is resized to one square of
``image_size`` pixels (mtmd's fixed-size preprocessor), so every image becomes the same number of tokens:
``(image_size / patch_size) ** 2`` (clip.cpp ``clip_n_output_tokens``: projector ``mlp`` keeps every
patch; without ``v.class_embd`` no class token is added). The LLaVA graph runs all blocks but the last
(its ``max_feature_layer`` is ``n_layer - 1``).

The weights are random (fixed seed), so what the model "sees" means nothing, but the same image always
gives the same embeddings and different images give different ones. Like `tiny`'s token embeddings, every
image embedding carries `tiny`'s constant in dimension 0 (row 0 of ``mm.2`` is zero, its bias the
constant), so the text that follows an image is `tiny`'s printable gibberish that never stops by itself.

Names, keys and shapes follow clip.cpp (``load_hparams``, ``load_tensors``) and clip-impl.h (``KEY_*``,
``TN_*``); numpy shapes are gguf's reversed (``v.patch_embd.weight`` is (n_embd, 3, patch, patch) in numpy,
``ne = [patch, patch, 3, n_embd]`` in ggml).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import gguf
import numpy as np

from llamatest.models.modelfile import cached_model, code_hash, write_out
from llamatest.models.tiny import BIAS_DIM_VALUE, FLAVOURS
from llamatest.models.tiny import generator_hash as tiny_hash

NAME = "tiny-vision"
PROJECTOR_TYPE = "mlp"  # clip-impl.h PROJ_TYPE_NAMES: PROJECTOR_TYPE_MLP
IMAGE_MEAN = (0.5, 0.5, 0.5)
IMAGE_STD = (0.5, 0.5, 0.5)


@dataclass(frozen=True)
class VisionSpec:
    """Shape of the generated projector; ``projection_dim`` is the text model's embedding width."""

    seed: int = 2468
    image_size: int = 32
    patch_size: int = 8
    n_embd: int = 32
    n_head: int = 2
    n_ff: int = 48  # not n_embd: clip.cpp swaps ffn up/down of `mlp` projectors whose down weight is n_embd wide
    n_layer: int = 2
    mm_hidden: int = 64
    projection_dim: int = FLAVOURS["tiny"].n_embd
    eps: float = 1e-6

    @property
    def patches_per_side(self) -> int:
        return self.image_size // self.patch_size

    @property
    def tokens_per_image(self) -> int:
        """The number of embeddings (prompt tokens) one image becomes: one per patch."""
        return self.patches_per_side ** 2


SPEC = VisionSpec()


Rand = Callable[..., np.ndarray]  # rand(*shape, s=scale): seeded normal values


def seeded(seed: int) -> Rand:
    """rand(*shape, s=scale): float32 normal values from one generator seeded with `seed`."""
    rng = np.random.default_rng(seed)
    return lambda *shape, s: (rng.standard_normal(shape) * s).astype(np.float32)


def layer_norm(width: int) -> dict[str, np.ndarray]:
    """The ``weight`` and ``bias`` of an identity layer norm of `width`."""
    return {"weight": np.ones(width, dtype=np.float32), "bias": np.zeros(width, dtype=np.float32)}


def encoder_blocks(rand: Rand, prefix: str, n_layer: int, n_embd: int, n_ff: int,
                   key_bias: bool = True) -> dict[str, np.ndarray]:
    """Pre-norm transformer blocks as clip.cpp names them (``PREFIX.blk.N.attn_q``, ``ln1``, ``ffn_up``…);
    `key_bias` False leaves ``attn_k`` without bias (whisper's encoder has none)."""
    scale = 1.0 / np.sqrt(n_embd)
    tensors = {}
    for layer in range(n_layer):
        block = f"{prefix}.blk.{layer}"
        for proj in ("attn_q", "attn_k", "attn_v", "attn_out"):
            tensors[f"{block}.{proj}.weight"] = rand(n_embd, n_embd, s=scale)
            if key_bias or proj != "attn_k":
                tensors[f"{block}.{proj}.bias"] = rand(n_embd, s=0.1)
        for ln in ("ln1", "ln2"):
            tensors.update({f"{block}.{ln}.{kind}": value for kind, value in layer_norm(n_embd).items()})
        tensors.update({
            f"{block}.ffn_up.weight": rand(n_ff, n_embd, s=scale),
            f"{block}.ffn_up.bias": rand(n_ff, s=0.1),
            f"{block}.ffn_down.weight": rand(n_embd, n_ff, s=1.0 / np.sqrt(n_ff)),
            f"{block}.ffn_down.bias": rand(n_embd, s=0.1),
        })
    return tensors


def tiny_output(rand: Rand, n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray]:
    """The last projection into `tiny`'s embeddings (weight (n_out, n_in), bias): dimension 0 is `tiny`'s
    constant, as in its token embeddings."""
    weight = rand(n_out, n_in, s=1.0 / np.sqrt(n_in))
    bias = rand(n_out, s=0.1)
    weight[0, :], bias[0] = 0.0, BIAS_DIM_VALUE
    return weight, bias


def build_tensors(spec: VisionSpec) -> dict[str, np.ndarray]:
    """Random ViT and projector weights; numpy shapes are (out, in), as gguf expects."""
    rand = seeded(spec.seed)
    fan_in = 3 * spec.patch_size ** 2
    tensors = {
        "v.patch_embd.weight": rand(spec.n_embd, 3, spec.patch_size, spec.patch_size, s=1.0 / np.sqrt(fan_in)),
        "v.patch_embd.bias": rand(spec.n_embd, s=0.1),
        "v.position_embd.weight": rand(spec.tokens_per_image, spec.n_embd, s=0.1),
        **{f"v.pre_ln.{kind}": value for kind, value in layer_norm(spec.n_embd).items()},
        **encoder_blocks(rand, "v", spec.n_layer, spec.n_embd, spec.n_ff),
        "mm.0.weight": rand(spec.mm_hidden, spec.n_embd, s=1.0 / np.sqrt(spec.n_embd)),
        "mm.0.bias": rand(spec.mm_hidden, s=0.1),
    }
    tensors["mm.2.weight"], tensors["mm.2.bias"] = tiny_output(rand, spec.mm_hidden, spec.projection_dim)
    return tensors


def projector_writer(path: Path, name: str, modality: str, projector_type: str,
                     fields: dict[str, int | float | list[float]]) -> gguf.GGUFWriter:
    """A writer for a clip.cpp projector of `modality` ("vision" or "audio") with its metadata added;
    `fields` are the ``clip.MODALITY.*`` keys: ints as uint32, floats as float32, lists as arrays."""
    writer = gguf.GGUFWriter(str(path), "clip")
    writer.add_name(name)
    writer.add_description(f"generated by llamatest: a random {projector_type} projector for tiny")
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_string("clip.projector_type", projector_type)
    writer.add_bool("clip.has_vision_encoder", modality == "vision")
    writer.add_bool("clip.has_audio_encoder", modality == "audio")
    add = {int: writer.add_uint32, float: writer.add_float32, list: writer.add_array}
    for key, value in fields.items():
        add[type(value)](f"clip.{modality}.{key}", value)
    return writer


def write_vision(spec: VisionSpec, path: Path) -> None:
    """Write the mmproj GGUF file for `spec` to `path`."""
    writer = projector_writer(path, NAME, "vision", PROJECTOR_TYPE, {
        "embedding_length": spec.n_embd, "feed_forward_length": spec.n_ff, "block_count": spec.n_layer,
        "projection_dim": spec.projection_dim, "attention.head_count": spec.n_head,
        "attention.layer_norm_epsilon": spec.eps, "image_size": spec.image_size, "patch_size": spec.patch_size,
        "image_mean": list(IMAGE_MEAN), "image_std": list(IMAGE_STD)})
    writer.add_bool("clip.use_gelu", True)
    write_out(writer, build_tensors(spec))


def tokens_per_image(path: Path) -> int:
    """How many prompt tokens one image becomes with the projector file at `path`, from its own metadata:
    ``(image_size / patch_size) ** 2`` for an ``mlp`` projector without pinpoints (clip.cpp
    ``clip_n_output_tokens``; a class embedding, when present, is dropped before the projector)."""
    fields = read_fields(path)
    if fields.get("clip.projector_type") != PROJECTOR_TYPE or "clip.vision.image_grid_pinpoints" in fields:
        raise ValueError(f"{path}: not a fixed-size '{PROJECTOR_TYPE}' projector")
    return (fields["clip.vision.image_size"] // fields["clip.vision.patch_size"]) ** 2


def read_fields(path: Path) -> dict:
    """The metadata of a GGUF file, key -> value."""
    return {key: field.contents() for key, field in gguf.GGUFReader(str(path)).fields.items()}


def generator_hash() -> str:
    """Hash of this generator, the tiny generator and the gguf version: a change regenerates the cache."""
    return hashlib.sha256(f"{code_hash(Path(__file__))} {tiny_hash()}".encode()).hexdigest()[:16]


def vision_projector_path(cache_dir: Path) -> Path:
    """Path of the ``tiny-vision`` projector, generating it on first use."""
    return cached_model(cache_dir, NAME, generator_hash(), partial(write_vision, SPEC))
