"""The needs:NAME vocabulary, its discovery on a server (the fixture server's fake llama-server), and its reasons."""

from __future__ import annotations

import itertools

import pytest

from llamatest import capabilities
from llamatest.capabilities import Target
from llamatest.server import target as server_target

_keys = itertools.count()


@pytest.fixture
def fake(server) -> str:
    """A fresh fake llama-server of the fixture server: GET /slots and /metrics answer 200, /props is a 404."""
    return f"{server}/fake/capabilities-{next(_keys)}"


def with_props(props: dict, **fields) -> Target:
    target = Target("http://127.0.0.1:9", **fields)
    target.__dict__["props"] = props  # what GET /props would have said
    return target


def test_every_name_has_a_meaning_and_a_way_to_get_it():
    for capability in capabilities.VOCABULARY.values():
        assert capability.meaning and capability.get_it, capability.name
    assert "managed" in capabilities.known_names()


def test_needs_are_read_from_tags_only():
    tags = ["completion", "needs:metrics", "NEEDS:Multi-Slot", "needs-smollm2"]
    assert capabilities.needs_of_tags(tags) == ["metrics", "multi-slot"]


def test_an_unknown_name_is_reported_with_the_known_names():
    message = capabilities.unknown_message(capabilities.unknown(["metrics", "metrix"]))
    assert message.startswith("unknown capability tag needs:metrix: the known names are managed, tiny")


@pytest.mark.parametrize(("flags", "needs"), [
    (["--ctx-size", "512", "--parallel", "2"], []),
    (["--metrics", "--embeddings", "--pooling", "mean"], ["metrics", "embeddings", "managed"]),
    (["--slot-save-path", "/tmp/x", "--reranking"], ["slot-save", "reranking"]),
    (["--lora", "a.gguf", "--n-predict", "-1"], ["managed"]),
])
def test_flags_give_the_needs_a_suite_server_must_meet(flags, needs):
    assert capabilities.needs_of_flags(flags) == needs


def test_routes_are_discovered_with_requests_that_change_nothing(fake):
    target = Target(fake)
    assert capabilities.missing(target, ["metrics", "slots"]) is None
    assert capabilities.missing(target, ["embeddings"]) == \
        "needs --embeddings: this server answers POST /embedding with 404"


def test_props_are_asked_once_and_a_missing_props_is_empty(fake):
    target = Target(fake)
    assert target.props == {}
    assert capabilities.missing(target, ["multi-slot"]) == \
        "needs 2 or more slots (--parallel 2): this server has total_slots None"


def test_slots_and_template_caps_come_from_props():
    target = with_props({"total_slots": 4, "chat_template_caps": {"supports_tools": False}})
    assert capabilities.missing(target, ["multi-slot"]) is None
    assert capabilities.missing(target, ["tools"]) == \
        "needs a chat template with tool calls: its chat template has supports_tools False"


def test_an_external_server_is_not_managed_and_runs_none_of_our_generated_models():
    target = with_props({"model_path": "/models/qwen.gguf"})
    assert capabilities.missing(target, ["managed"]) == \
        "needs a managed server: unset LLAMA_SERVER_URL or pass --also-managed"
    assert capabilities.missing(target, ["tiny"]) == \
        "needs the tiny model (deterministic gibberish that never stops by itself): " \
        "a managed server (this one runs qwen.gguf)"


def test_an_external_server_on_the_packaged_smollm2_has_its_trait():
    target = with_props({"model_path": "/x/SmolLM2-135M-Instruct.Q4_1.gguf"})
    assert capabilities.missing(target, ["smollm2"]) is None


def test_a_managed_server_has_its_model_and_what_its_flags_give_without_a_probe():
    target = with_props({}, managed=True, model="tiny-reranker", flags=("--reranking", "--metrics"))
    assert capabilities.missing(target, ["managed", "reranker", "reranking", "metrics"]) is None
    assert capabilities.missing(target, ["tiny"]).endswith("a managed server (this one runs tiny-reranker)")


def test_the_key_goes_as_a_bearer_header(monkeypatch):
    monkeypatch.setenv(server_target.ENV_API_KEY, "k-1")
    assert server_target.auth_headers() == {"Authorization": "Bearer k-1"}
    assert server_target.auth_headers("") == {}


def test_a_url_that_is_not_a_llama_server_is_refused_in_one_line(server):
    with pytest.raises(ValueError, match=r"is not a llama-server: GET /props answers 404 without build_info"):
        server_target.check_external(server, "")


def test_an_unreachable_url_is_refused_in_one_line(closed_port_url):
    with pytest.raises(ValueError, match=r"no answer: ConnectionError"):
        server_target.check_external(closed_port_url, "")


def test_without_an_external_target_every_suite_may_start_its_own(monkeypatch):
    monkeypatch.delenv("LLAMA_SERVER_URL", raising=False)
    assert server_target.managed_allowed()
    assert server_target.choose(True, ["metrics"], "S") is None


def test_an_external_target_that_lacks_a_flag_makes_the_suite_unavailable(monkeypatch, fake):
    monkeypatch.setenv("LLAMA_SERVER_URL", fake)
    monkeypatch.delenv(server_target.ENV_ALSO_MANAGED, raising=False)
    assert server_target.choose(True, ["metrics"], "S") is server_target.external_target()
    with pytest.raises(server_target.Unavailable, match="needs --embeddings"):
        server_target.choose(True, ["embeddings"], "S")
    assert server_target.choose(False, [], "S") is None  # a second server is always started here


def test_also_managed_starts_its_own_when_the_suite_needs_more(monkeypatch, fake):
    monkeypatch.setenv("LLAMA_SERVER_URL", fake)
    monkeypatch.setenv(server_target.ENV_ALSO_MANAGED, "1")
    server_target.plan_suite("Mixed", {"managed"})
    assert server_target.choose(True, [], "Mixed") is None
    assert server_target.choose(True, ["metrics"], "Plain") is server_target.external_target()


def probed(status: int, **fields) -> Target:
    """A target whose keyless ``GET /v1/models`` answered ``status``."""
    target = with_props({}, **fields)
    target._statuses["GET", "/v1/models", True] = status
    return target


def test_a_server_that_refuses_requests_without_a_key_has_api_key_when_the_run_knows_it():
    assert capabilities.missing(probed(401, headers={"Authorization": "Bearer k"}), ["api-key"]) is None
    assert capabilities.missing(probed(401), ["api-key"]) == \
        "needs --api-key: this server wants a key, and LLAMATEST_API_KEY is not set"
    assert capabilities.missing(probed(200, headers={"Authorization": "Bearer k"}), ["api-key"]) == \
        "needs --api-key: this server answers GET /v1/models without a key with 200"


def test_api_key_comes_from_the_flag_of_a_managed_server():
    assert capabilities.needs_of_flags(["--api-key", "sk-1,sk-2"]) == ["api-key"]
    assert capabilities.missing(probed(200, managed=True, flags=("--api-key", "sk-1")), ["api-key"]) is None


def test_the_model_file_of_an_external_server_counts_only_when_it_is_readable_here(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    assert capabilities.missing(with_props({"model_path": str(model)}), ["model-file"]) is None
    assert capabilities.missing(with_props({"model_path": "/gpu-box/m.gguf"}), ["model-file"]) == \
        "needs the model file on this machine: its model_path /gpu-box/m.gguf is not a file here"
    assert capabilities.missing(with_props({}, managed=True, model="tiny"), ["model-file"]) is None


def test_a_template_without_tool_support_is_its_own_capability():
    assert capabilities.missing(with_props({"chat_template_caps": {"supports_tools": False}}), ["no-tools"]) is None
    assert capabilities.missing(with_props({"chat_template_caps": {"supports_tools": True}}), ["no-tools"]) == \
        "needs a chat template without tool calls: its chat template has supports_tools True"


def test_files_holding_finds_a_key_in_any_file_under_the_folder(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "suite.srvlog").write_bytes(b"Authorization: Bearer sk-secret\n")
    (tmp_path / "output.xml").write_text("<robot/>")
    assert server_target.files_holding(tmp_path, b"sk-secret") == ["suite.srvlog"]
    assert server_target.files_holding(tmp_path, b"sk-other") == []


def test_a_modality_is_present_when_props_says_so_and_the_reason_quotes_props_otherwise():
    vision = capabilities.Target("http://x")
    vision.__dict__["props"] = {"modalities": {"vision": True, "audio": False}}
    assert capabilities.missing(vision, ["image-input"]) is None
    assert capabilities.missing(vision, ["audio-input"]) == (
        "needs a projector for audio (--mmproj): its /props says modalities.audio false")
    bare = capabilities.Target("http://x")
    bare.__dict__["props"] = {}
    assert capabilities.missing(bare, ["image-input"]).endswith("modalities.vision null")


@pytest.fixture
def model_files(tmp_path, monkeypatch):
    """tiny (no sliding window, a stored template) and Gemma 3 (a 512-token window, no template), by path."""
    from llamatest.models import catalog, gemma3
    from llamatest.settings import cache_dir

    gemma = gemma3.gemma3_model_path(cache_dir() / "models")  # the one set-up assembled, not a copy
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))
    return {"tiny": str(catalog.resolve_model("tiny")), "gemma3": str(gemma)}


def test_a_sliding_window_keeps_no_whole_prompt_unless_a_managed_server_runs_with_swa_full(model_files):
    assert capabilities.missing(with_props({"model_path": model_files["tiny"]}), ["full-prompt-cache"]) is None
    assert capabilities.missing(with_props({"model_path": model_files["gemma3"]}), ["full-prompt-cache"]) == \
        "needs a model without sliding-window attention, or --swa-full: its model uses sliding-window attention " \
        "(a 512-token window): a prompt is reused only from the context checkpoints the server made, and " \
        "--swa-full cannot be seen from outside"
    managed = {"managed": True, "model": "gemma3"}
    assert capabilities.missing(with_props({"model_path": model_files["gemma3"]}, **managed, flags=("--swa-full",)),
                                ["full-prompt-cache"]) is None
    assert capabilities.missing(with_props({"model_path": model_files["gemma3"]}, **managed),
                                ["full-prompt-cache"]).endswith("and it runs without --swa-full")


def test_a_stored_template_is_read_from_the_model_file(model_files):
    assert capabilities.missing(with_props({"model_path": model_files["tiny"]}), ["stored-template"]) is None
    assert capabilities.missing(with_props({"model_path": model_files["gemma3"]}), ["stored-template"]) == \
        "needs a chat template stored in the model file: its model file stores none (the server falls back to ChatML)"


def test_a_model_file_this_machine_cannot_read_is_the_evidence():
    assert capabilities.missing(with_props({"model_path": "gemma-3-270m-q4_k_m.gguf"}), ["stored-template"]) == \
        "needs a chat template stored in the model file: its model file gemma-3-270m-q4_k_m.gguf is not readable here"


def test_an_external_server_on_the_packaged_gemma3_has_its_trait():
    target = with_props({"model_path": "/x/gemma-3-270m-q4_k_m.gguf"})
    assert capabilities.missing(target, ["gemma3"]) is None
    assert capabilities.missing(target, ["smollm2"]).endswith("(this one runs gemma-3-270m-q4_k_m.gguf)")
