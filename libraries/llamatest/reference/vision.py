"""The image embeddings of `tiny-vision` (a LLaVA-style ``mlp`` projector), in numpy, read from its GGUF file.

What clip.cpp computes for it (``clip_graph_llava``): the image, already at the projector's ``image_size`` (mtmd
copies an image of that size as it is; resizing is the server's own algorithm and not re-implemented here),
scaled to [0, 1] and normalised with the file's mean and std per channel; a convolution with stride
``patch_size`` cuts it into patches (row by row); plus the position embeddings; the pre-layer-norm; every
block but the last (pre-norm: attention with biases over all patches, GELU feed-forward), then ``mm.0``, GELU,
``mm.2``: one `tiny` input embedding per patch. Keys and values go through f16 as in llama.cpp's flash
attention, GELU through ggml's f16 table (see `bert`).
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
from PIL import Image

from llamatest.models.vision import read_fields
from llamatest.reference.bert import full_attention, gelu, layer_norm
from llamatest.reference.weights import Weights


class Projector:
    """The forward pass of one ``mlp`` vision projector file."""

    def __init__(self, weights: Weights, kv_dtype=np.float16):
        if weights.fields.get("clip.projector_type") != "mlp":
            raise ValueError(f"{weights.path}: not an 'mlp' vision projector")
        field = weights.fields.get
        self.w, self.kv_dtype = weights, kv_dtype
        self.size, self.patch = field("clip.vision.image_size"), field("clip.vision.patch_size")
        self.n_head, self.n_layer = field("clip.vision.attention.head_count"), field("clip.vision.block_count")
        self.eps = field("clip.vision.attention.layer_norm_epsilon")
        arrays = read_fields(Path(weights.path))  # the fast header reader steps over arrays: read them here
        self.mean, self.std = np.asarray(arrays["clip.vision.image_mean"]), np.asarray(arrays["clip.vision.image_std"])

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        return layer_norm(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"], self.eps)

    def _attention(self, x: np.ndarray, block: str) -> np.ndarray:
        n, head_dim = len(x), x.shape[1] // self.n_head

        def heads(name: str) -> np.ndarray:
            return self._linear(x, f"{block}.{name}").reshape(n, self.n_head, head_dim).transpose(1, 0, 2)

        out = full_attention(heads("attn_q"), heads("attn_k"), heads("attn_v"), self.kv_dtype)
        return self._linear(out, f"{block}.attn_out")

    def patches(self, pixels: np.ndarray) -> np.ndarray:
        """The normalised image (height, width, RGB bytes) cut into patches: (n_patches, 3 * patch * patch),
        row by row, each patch channel-major as the convolution's kernel."""
        if pixels.shape[:2] != (self.size, self.size):
            raise ValueError(f"the reference takes {self.size}x{self.size} images (the server resizes others its "
                             f"own way); got {pixels.shape[1]}x{pixels.shape[0]}")
        image = (pixels[..., :3] / 255.0 - self.mean) / self.std  # (h, w, c)
        side, p = self.size // self.patch, self.patch
        grid = image.reshape(side, p, side, p, 3).transpose(0, 2, 4, 1, 3)  # (row, col, c, py, px)
        return grid.reshape(side * side, 3 * p * p)

    def embed(self, pixels: np.ndarray) -> np.ndarray:
        """The `tiny` input embeddings of one image: one row per patch."""
        kernel = self.w["v.patch_embd.weight"].reshape(len(self.w["v.patch_embd.bias"]), -1)
        x = self.patches(pixels) @ kernel.T + self.w["v.patch_embd.bias"] + self.w["v.position_embd.weight"]
        x = self._norm(x, "v.pre_ln")
        for layer in range(self.n_layer - 1):  # LLaVA reads the features before the last block
            block = f"v.blk.{layer}"
            x = x + self._attention(self._norm(x, f"{block}.ln1"), block)
            x = x + self._linear(gelu(self._linear(self._norm(x, f"{block}.ln2"), f"{block}.ffn_up")),
                                 f"{block}.ffn_down")
        return self._linear(gelu(self._linear(x, "mm.0")), "mm.2")


def decode_image(data: str) -> np.ndarray:
    """The RGB bytes (height, width, 3) of an encoded image given as base64 (as a request sends it)."""
    with Image.open(io.BytesIO(base64.b64decode(data))) as image:
        return np.asarray(image.convert("RGB"), dtype=np.float64)
