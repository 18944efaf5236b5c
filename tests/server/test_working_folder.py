"""Every started server runs in a folder of its own under the system's temporary folder, never in the checkout
(issue 25): its cwd, the paths it is given, the folder's removal on stop and by the sweep (llamatest.workdir)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import psutil
import pytest

from llamatest import workdir
from llamatest.server import registry
from llamatest.server.flags import with_absolute_paths
from llamatest.server.process import ServerPool, StartFailed
from llamatest.settings import ROOT
from tests.fixtures import FAKE_LLAMA_SERVER as FAKE


@pytest.fixture
def pool(monkeypatch, tmp_path, pid_registry):
    """A pool that starts the fake llama-server from the checkout, as run.py does; its registry ends empty."""
    monkeypatch.setenv("LLAMA_SERVER_BIN", str(FAKE))
    monkeypatch.delenv("LLAMA_SERVER_URL", raising=False)
    monkeypatch.chdir(ROOT)
    servers = ServerPool()
    yield servers
    servers.stop_all(grace=1)
    assert not list(pid_registry.glob("*.json")), "a started server was left registered"


def start(pool: ServerPool, tmp_path: Path, model: str | Path, *flags: str):
    return pool.start(str(model), flags, alias="suite", output_dir=tmp_path / "out", env={"FAKE_MODE": "ok"})


def test_the_server_runs_in_a_new_temporary_folder_that_its_stop_removes(pool, tmp_path):
    server = start(pool, tmp_path, tmp_path / "model.gguf")
    cwd = Path(psutil.Process(server.proc.pid).cwd())
    assert cwd == server.cwd
    assert cwd.parent == Path(tempfile.gettempdir()) and cwd.name.startswith(f"llamatest-server-suite-{server.port}-")
    assert ROOT not in cwd.parents and cwd != ROOT
    assert server.log.read_text().splitlines()[1] == f"# cwd: {cwd}"
    assert json.loads((registry.registry_dir() / f"{server.proc.pid}.json").read_text())["cwd"] == str(cwd)
    (cwd / "written-by-the-server.txt").write_text("x")
    pool.stop("suite", grace=1)
    assert not cwd.exists()


def test_paths_given_relative_to_the_caller_reach_the_server_absolute(pool, tmp_path):
    server = start(pool, tmp_path, "results/model.gguf", "--media-path", "media", "--temp", "0")
    assert server.model == str(ROOT / "results" / "model.gguf")
    assert server.args[0] == str(FAKE)
    assert server.args[server.args.index("--model") + 1] == server.model
    assert server.args[-4:] == ["--media-path", str(ROOT / "media"), "--temp", "0"]


def test_a_binary_that_cannot_start_leaves_no_folder(pool, tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMA_SERVER_BIN", str(tmp_path / "not-executable"))
    (tmp_path / "not-executable").write_text("")
    (tmp_path / "not-executable").chmod(0o755)
    before = set(Path(tempfile.gettempdir()).glob("llamatest-server-suite-*"))
    # Through setpriv the exec fails in the child, which exits before the server is ready; without it, in Popen.
    with pytest.raises(OSError if registry.death_signal_setpriv() is None else StartFailed):
        start(pool, tmp_path, tmp_path / "model.gguf")
    assert set(Path(tempfile.gettempdir()).glob("llamatest-server-suite-*")) == before


@pytest.mark.parametrize(("args", "expected"), [
    (["--models-dir", "m", "--port", "8080"], ["--models-dir", "/base/m", "--port", "8080"]),
    (["--slot-save-path=s", "--alias", "a"], ["--slot-save-path=/base/s", "--alias", "a"]),
    (["--chat_template_file", "t.jinja"], ["--chat_template_file", "/base/t.jinja"]),
    (["-m", "/abs/model.gguf", "-mm", "p.gguf"], ["-m", "/abs/model.gguf", "-mm", "/base/p.gguf"]),
    (["--lora", "a.gguf,/b.gguf"], ["--lora", "/base/a.gguf,/b.gguf"]),
    (["--lora-scaled", "a.gguf:0.5,/b.gguf:1"], ["--lora-scaled", "/base/a.gguf:0.5,/b.gguf:1"]),
    (["--hf-repo", "owner/name", "--hf-file", "x.gguf"], ["--hf-repo", "owner/name", "--hf-file", "x.gguf"]),
])
def test_path_flags_are_made_absolute_and_others_left_alone(args, expected):
    assert with_absolute_paths(args, "/base") == expected


def test_the_sweep_removes_the_folder_of_a_server_whose_run_was_killed(pid_registry):
    folder = workdir.create("server-suite-1")
    (folder / "left.txt").write_text("x")
    pid_registry.mkdir(parents=True)
    entry = {"pid": 2**22 + 1, "create_time": None, "owner_pid": -1, "cwd": str(folder)}
    (pid_registry / "1.json").write_text(json.dumps(entry))
    registry.sweep()
    assert not folder.exists() and not list(pid_registry.iterdir())


def test_only_its_own_folders_are_ever_removed(tmp_path):
    for folder in (tmp_path, tmp_path / "llamatest-x", Path(tempfile.gettempdir()) / "not-ours"):
        assert not workdir.is_own(folder)
    kept = tmp_path / "llamatest-kept"
    kept.mkdir()
    workdir.remove(kept)
    assert kept.is_dir()
    with workdir.own_folder("a/b c") as folder:
        assert workdir.is_own(folder) and folder.name.startswith("llamatest-a_b_c-") and os.listdir(folder) == []
    assert not folder.exists()
