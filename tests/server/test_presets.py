"""Server presets: typed, in one place, flags as llama-server takes them."""

import dataclasses

import pytest

from llamatest.server.presets import PRESETS, Preset, known_presets, preset, robot_table
from llamatest.settings import threads_beside_client

NEEDED = ["tiny-1-slot", "tiny-2-slots", "tiny-long-context", "smollm2", "gemma3", "gemma3-2-slots"]


def test_the_presets_the_suites_need_exist():
    assert set(NEEDED) <= set(known_presets())
    assert (preset("tiny-2-slots").model, preset("tiny-2-slots").n_slots, preset("tiny-2-slots").n_ctx) == \
        ("tiny", 2, 1024)
    assert preset("tiny-long-context").n_ctx == 32768
    assert preset("smollm2").model == "smollm2"
    assert (preset("gemma3-2-slots").model, preset("gemma3-2-slots").n_ctx_per_slot) == ("gemma3", 2048)


def test_args_are_llama_server_flags():
    assert preset("tiny-1-slot").args() == ["--ctx-size", "512", "--parallel", "1"]
    assert preset("tiny-embeddings").args() == ["--ctx-size", "512", "--parallel", "1", "--embeddings"]
    custom = Preset(model="tiny", n_slots=2, n_ctx=256, api_key="k 1", flags=("--temp", 0), description="x")
    assert custom.args() == ["--ctx-size", "256", "--parallel", "2", "--api-key", "k 1", "--temp", "0"]
    assert custom.n_ctx_per_slot == 128


def test_with_options_returns_an_overridden_copy():
    base = preset("tiny-2-slots")
    changed = base.with_options(n_slots=4, n_ctx=None, embeddings=True)
    assert (changed.n_slots, changed.n_ctx, changed.embeddings) == (4, 1024, True)
    assert base.n_slots == 2  # the preset itself is unchanged
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.n_slots = 3


def test_unknown_preset_fails_with_the_known_names():
    with pytest.raises(AssertionError, match="unknown server preset 'nope': known presets are tiny-1-slot, "):
        preset("nope")


def test_impossible_values_are_refused():
    with pytest.raises(ValueError, match="n_slots >= 1"):
        preset("tiny-1-slot").with_options(n_slots=0)
    with pytest.raises(ValueError, match="n_ctx >= n_slots"):
        preset("tiny-1-slot").with_options(n_slots=4, n_ctx=2)


def test_the_registry_is_read_only_and_documented():
    with pytest.raises(TypeError):
        PRESETS["mine"] = preset("tiny-1-slot")
    table = robot_table()
    assert all(f"``{name}``" in table for name in known_presets())


def test_the_load_preset_leaves_the_client_a_core(monkeypatch):
    # Both of 2 cores busy with the server's threads preempted the load client's loop for 10-30 ms.
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.delenv("LLAMA_ARG_THREADS", raising=False)
    assert preset("tiny-load").args() == ["--ctx-size", "2048", "--parallel", "2", "--threads", "1", "--metrics"]
    assert preset("tiny-load").with_options(n_slots=4).args()[4:6] == ["--threads", "1"]
    assert "--threads" not in preset("tiny-2-slots").args()  # only the presets a client shares the cores with


@pytest.mark.parametrize(("cores", "env", "threads"), [
    (8, None, 7), (8, "2", 2), (8, "8", 7), (1, None, 1), (2, "0", 1), (4, "x", 3),
])
def test_threads_beside_client_keep_a_core_within_run_py_share(monkeypatch, cores, env, threads):
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    if env is None:
        monkeypatch.delenv("LLAMA_ARG_THREADS", raising=False)
    else:
        monkeypatch.setenv("LLAMA_ARG_THREADS", env)
    assert threads_beside_client() == threads
