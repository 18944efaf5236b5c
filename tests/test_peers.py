"""llamatest.peers: the on-demand install of llama-cpp-python's server (stamp, flags, failures) and its
processes (readiness on /v1/models, bind retry, fail-fast, stop, registry), through a fake server script;
one test starts the real peer when it has been built (``python3 run.py --include llama-cpp-python``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import psutil
import pytest
import requests

from llamatest import peers
from llamatest.server.process import StartFailed
from tests.fixtures import FAKE_PEER_SERVER


@pytest.fixture
def fake_peer(tmp_path, pid_registry, monkeypatch):
    """The fake peer server (tests/fixtures/fake_peer_server.py); each test's registry must end empty."""
    monkeypatch.setenv("FAKE_PEER_MARKER", str(tmp_path / "bound-once"))
    monkeypatch.delenv("FAKE_PEER_MODE", raising=False)
    yield FAKE_PEER_SERVER
    assert not list(pid_registry.glob("*.json")), "a started peer was left registered"


# ----- install -----
def test_cmake_args_are_portable_and_lean():
    args = peers.cmake_args("x86_64")
    assert "-DGGML_NATIVE=OFF" in args and "-DGGML_AVX2=ON" in args and "-DGGML_FMA=ON" in args
    assert "-DGGML_F16C=ON" in args and "-DLLAMA_BUILD_TESTS=OFF" in args
    assert not any("march=native" in arg for arg in args)
    assert "-DGGML_NATIVE=OFF" not in peers.cmake_args("aarch64")


def test_requirements_pin_the_version():
    assert peers.requirement_lines() == [f"llama-cpp-python[server]=={peers.VERSION}"]
    assert peers.requirement_lines("# note\n\nfoo==1  # why\n") == ["foo==1"]


def test_stamp_changes_with_requirement_flags_and_interpreter():
    base = peers.peer_stamp(["a==1"], ["-DX=ON"], "3.11.7")
    assert base == peers.peer_stamp(["a==1"], ["-DX=ON"], "3.11.7")
    assert len({base, peers.peer_stamp(["a==2"], ["-DX=ON"], "3.11.7"),
                peers.peer_stamp(["a==1"], ["-DX=OFF"], "3.11.7"),
                peers.peer_stamp(["a==1"], ["-DX=ON"], "3.12.0")}) == 4


def installed_root(tmp_path: Path) -> Path:
    root = tmp_path / "peer"
    python = peers.peer_python(root)
    python.parent.mkdir(parents=True)
    python.write_text("")
    (root / peers.STAMP_NAME).write_text(peers.peer_stamp(peers.requirement_lines(), peers.cmake_args()))
    return root


def test_a_stamped_install_is_not_built_again(tmp_path, monkeypatch):
    root = installed_root(tmp_path)
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail(f"ran {a}"))
    assert peers.is_installed(root)
    assert peers.ensure_peer(root) == peers.peer_python(root)


def test_a_changed_stamp_means_not_installed(tmp_path):
    root = installed_root(tmp_path)
    (root / peers.STAMP_NAME).write_text("an older configuration")
    assert not peers.is_installed(root)
    assert not peers.is_installed(tmp_path / "nothing-here")


def test_a_failed_build_ends_with_one_line_and_leaves_no_stamp(tmp_path, monkeypatch):
    root = tmp_path / "peer"
    calls = []

    def run(cmd, **kwargs):
        calls.append((cmd, kwargs.get("env", {})))
        if "pip" in cmd:
            raise subprocess.CalledProcessError(1, cmd)

    monkeypatch.setattr(subprocess, "run", run)
    with pytest.raises(peers.PeerBuildFailed, match=r"installing llama-cpp-python 0\.3\.36 failed \(exit 1"):
        peers.ensure_peer(root, jobs="2")
    assert not (root / peers.STAMP_NAME).exists()
    pip_cmd, env = calls[-1]
    assert pip_cmd[0] == str(peers.peer_python(root)), "pip must run in the peer's own venv, not the project's"
    assert env["CMAKE_ARGS"] == " ".join(peers.cmake_args()) and env["CMAKE_BUILD_PARALLEL_LEVEL"] == "2"


def test_starting_without_an_install_says_how_to_get_it(tmp_path):
    with pytest.raises(AssertionError, match=r"run 'python3 run\.py --include llama-cpp-python'"):
        peers.require_installed(tmp_path / "nothing-here")


def test_launcher_runs_the_server_module_in_the_peer_venv(tmp_path):
    path = peers.launcher(tmp_path)
    text = path.read_text()
    assert text.startswith(f"#!{peers.peer_python(tmp_path)}\n") and "llama_cpp.server.__main__" in text
    assert path.stat().st_mode & 0o111
    assert peers.launcher(tmp_path) == path


def test_server_flags_are_llama_cpp_python_options():
    assert peers.server_flags() == ["--n_ctx", "512"]
    assert peers.server_flags(n_ctx=1024, n_threads=2, embedding=True, seed=4) == [
        "--n_ctx", "1024", "--n_threads", "2", "--embedding", "true", "--seed", "4"]


# ----- processes, through the fake -----
def test_start_waits_for_models_and_stop_leaves_nothing(fake_peer, tmp_path, pid_registry):
    server = peers.start_peer("/models/m.gguf", ["--n_ctx", "512"], alias="peer", output_dir=tmp_path,
                              binary=fake_peer, timeout=20)
    assert requests.get(server.url + "/v1/models", timeout=5).json()["data"][0]["id"] == "/models/m.gguf"
    assert list(pid_registry.glob("*.json")), "the peer must be in the registry run.py sweeps"
    assert server.log.read_text().splitlines()[0].startswith(f"$ {fake_peer} --model /models/m.gguf --host 127.0.0.1")
    pid = server.proc.pid
    assert peers.stop_peers([server], grace=5) == {"peer": 0}
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_a_crash_at_start_fails_at_once_with_the_log(fake_peer, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_PEER_MODE", "crash")
    with pytest.raises(StartFailed, match=r"(?s)failed to start: process exited with code 1.*Failed to load model"):
        peers.start_peer("m.gguf", alias="peer", output_dir=tmp_path, binary=fake_peer, timeout=20)


def test_a_bind_failure_is_retried_on_another_port(fake_peer, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_PEER_MODE", "bind-once")
    server = peers.start_peer("m.gguf", alias="peer", output_dir=tmp_path, binary=fake_peer, timeout=20)
    try:
        assert len(server.attempts) == 2 and "exited with code 1" in server.attempts[0][1]
    finally:
        peers.stop_peers([server], grace=5)


# ----- the real peer, when it has been built -----
@pytest.mark.skipif(not peers.is_installed(), reason="llama-cpp-python's server is not built: "
                    "python3 run.py --include llama-cpp-python builds it once")
def test_the_real_peer_serves_tiny(tmp_path, pid_registry):
    from llamatest.models.catalog import resolve_model

    server = peers.start_peer(resolve_model("tiny"), peers.server_flags(n_ctx=256), alias="peer",
                              output_dir=tmp_path, timeout=120)
    try:
        body = {"prompt": "hello", "max_tokens": 3, "temperature": 0}
        answer = requests.post(server.url + "/v1/completions", json=body, timeout=60).json()
        assert answer["usage"]["completion_tokens"] == 3
    finally:
        assert peers.stop_peers([server], grace=10)["peer"] in (0, -15)
    assert not list(pid_registry.glob("*.json"))
