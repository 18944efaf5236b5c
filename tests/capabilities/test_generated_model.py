"""needs:generated-model: the numpy reference applies to a managed server on one of our generated models, and to
any server whose model file has the same bytes as one of them."""

from __future__ import annotations

import shutil

import pytest

from llamatest import capabilities
from llamatest.capabilities import Target
from llamatest.models import catalog


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path / "cache"))


def external(model_path: str) -> Target:
    target = Target("http://127.0.0.1:9")
    target.__dict__["props"] = {"model_path": model_path}  # what GET /props would have said
    return target


def check(target: Target) -> str | None:
    return capabilities.VOCABULARY["generated-model"].check(target)


def test_a_managed_server_on_a_generated_model_has_it_and_one_on_smollm2_does_not():
    assert check(Target("http://x", managed=True, model="tiny-reranker")) is None
    assert check(Target("http://x", managed=True, model="smollm2")) == "this server runs smollm2"


def test_an_external_server_with_a_copy_of_our_file_has_it(tmp_path):
    copy = tmp_path / "renamed.gguf"
    shutil.copy(catalog.resolve_model("tiny"), copy)
    assert check(external(str(copy))) is None


def test_an_external_server_with_another_file_or_none_here_lacks_it(tmp_path):
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF" + bytes(64))
    assert "is not one the project generates" in check(external(str(other)))
    missing = tmp_path / "missing.gguf"
    assert check(external(str(missing))) == f"its model_path {missing} is not a file here"
