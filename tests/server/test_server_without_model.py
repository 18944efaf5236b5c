"""A server started without a model (router mode): no ``--model`` on its command line, and it says so."""

from __future__ import annotations

import shlex

import pytest
import requests

import LlamaServerLibrary as facade
from llamatest.server.process import ServerPool
from tests.fixtures import FAKE_LLAMA_SERVER as FAKE


@pytest.fixture
def router_pool(monkeypatch, tmp_path, pid_registry):
    """A pool whose binary is the fake llama-server; each test's registry must end empty."""
    monkeypatch.setenv("LLAMA_SERVER_BIN", str(FAKE))
    monkeypatch.delenv("LLAMA_SERVER_URL", raising=False)
    monkeypatch.delenv("FAKE_MODE", raising=False)
    servers = ServerPool()
    yield servers
    servers.stop_all(grace=1)
    assert not list(pid_registry.glob("*.json")), "a started server was left registered"


def test_no_model_means_no_model_flag(router_pool, tmp_path):
    server = router_pool.start(None, ["--models-dir", str(tmp_path)], alias="router", output_dir=tmp_path,
                               timeout=10.0)
    assert "--model" not in server.args
    assert server.args[1:3] == ["--host", "127.0.0.1"] and server.args[-2:] == ["--models-dir", str(tmp_path)]
    assert server.model is None
    assert requests.get(server.url + "/props", timeout=2).json()["model_path"] == ""  # the fake saw no model
    assert router_pool.description("router").endswith("; model none (router mode)")


def test_a_model_still_comes_first(router_pool, tmp_path):
    server = router_pool.start(str(tmp_path / "m.gguf"), alias="single", output_dir=tmp_path, timeout=10.0)
    assert server.args[1:3] == ["--model", str(tmp_path / "m.gguf")]
    assert router_pool.description("single").endswith(f"; model {tmp_path / 'm.gguf'}")


def test_start_keyword_accepts_none(monkeypatch, router_pool, tmp_path):  # router_pool: the fake binary
    monkeypatch.setattr(facade, "output_dir", lambda *_: tmp_path)
    monkeypatch.setattr(facade, "current_suite", lambda: "Router")
    monkeypatch.setattr(facade, "open_session", lambda alias, url: None)
    library = facade.LlamaServerLibrary()
    try:
        url = library.start_llama_server(None, "--models-dir", str(tmp_path))
        assert "--model" not in shlex.split(library.server_command_line())
        assert requests.get(url + "/health", timeout=2).status_code == 200
    finally:
        library.stop_suite_servers(grace=1)
