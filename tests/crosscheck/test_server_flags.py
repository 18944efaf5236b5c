"""llamatest.server.flags: a llama-server command line read the way the pinned build reads it."""

import pytest

from llamatest.server.flags import FLAG_NAMES, SAMPLING_KEYS, effective_settings

MODEL = ["--model", "/m/tiny.gguf", "--host", "127.0.0.1", "--port", "8080"]


def test_defaults_are_the_servers_own():
    settings = effective_settings(MODEL)
    assert (settings["n_slots"], settings["kv_unified"]) == (4, True)  # --parallel -1: auto
    assert (settings["n_ctx"], settings["n_batch"], settings["n_ubatch"]) == (0, 2048, 512)
    assert (settings["endpoint_slots"], settings["endpoint_props"], settings["endpoint_metrics"]) == \
        (True, False, False)
    assert settings["aliases"] == ["/m/tiny.gguf"]  # the model's name is its path
    assert settings["request_defaults"] == {}
    assert settings["flags"] == MODEL


def test_flags_set_slots_context_batches_and_gates():
    settings = effective_settings([*MODEL, "-np", "3", "--ctx-size", "1000", "-b", "64", "--ubatch-size", "32",
                                   "--props", "--metrics", "--no-slots", "--kv-unified"])
    assert (settings["n_slots"], settings["n_ctx"], settings["n_batch"], settings["n_ubatch"]) == (3, 1000, 64, 32)
    assert (settings["endpoint_slots"], settings["endpoint_props"], settings["endpoint_metrics"]) == \
        (False, True, True)
    assert settings["kv_unified"] is True


def test_the_last_occurrence_wins_and_underscores_count_as_dashes():
    settings = effective_settings([*MODEL, "--parallel", "2", "--parallel", "5", "--kv_unified", "--no-kv-unified"])
    assert (settings["n_slots"], settings["kv_unified"]) == (5, False)


def test_aliases_accumulate_in_sorted_order():
    settings = effective_settings([*MODEL, "--alias", "zeta, alpha", "-a", "mid,,"])
    assert settings["aliases"] == ["alpha", "mid", "zeta"]


def test_request_defaults_are_held_as_the_server_holds_them():
    settings = effective_settings([*MODEL, "--seed", "-1", "--temp", "-2", "--min-p", "0.1", "--top-k", "13",
                                   "--keep", "5", "-n", "8"])
    assert settings["request_defaults"] == {"seed": 4294967295, "temperature": 0.0, "min_p": 0.10000000149011612,
                                            "top_k": 13, "n_keep": 5, "n_predict": 8}
    assert {"seed", "temperature", "min_p", "top_k"} <= SAMPLING_KEYS
    assert not {"n_keep", "n_predict"} & SAMPLING_KEYS


def test_environment_comes_first_and_the_command_line_overrides_it():
    env = {"LLAMA_ARG_N_PARALLEL": "2", "LLAMA_ARG_CTX_SIZE": "2048", "LLAMA_ARG_ENDPOINT_METRICS": "1",
           "LLAMA_ARG_ENDPOINT_SLOTS": "off", "LLAMA_ARG_TEMPERATURE": "0.5", "PATH": "/bin"}
    settings = effective_settings([*MODEL, "--ctx-size", "512"], env)
    assert (settings["n_slots"], settings["n_ctx"]) == (2, 512)
    assert (settings["endpoint_metrics"], settings["endpoint_slots"]) == (True, False)
    assert settings["request_defaults"] == {"temperature": 0.5}


def test_a_switch_from_the_environment_must_be_a_boolean():
    assert effective_settings(MODEL, {"LLAMA_ARG_ENDPOINT_PROPS": "no"})["endpoint_props"] is False
    with pytest.raises(ValueError, match="LLAMA_ARG_KV_UNIFIED='maybe' is not a boolean value"):
        effective_settings(MODEL, {"LLAMA_ARG_KV_UNIFIED": "maybe"})


def test_server_rules_size_the_pool_and_the_embedding_batch():
    per_slot = effective_settings([*MODEL, "-np", "2", "--kv-unified-per-slot", "300"])
    assert per_slot["n_ctx"] == 600
    pinned = effective_settings([*MODEL, "-np", "2", "--kv-unified-per-slot", "300", "-c", "0"])
    assert pinned["n_ctx"] == 0  # an explicit -c 0 keeps the model's context
    embeddings = effective_settings([*MODEL, "--embeddings", "-b", "4096", "-ub", "256"])
    assert (embeddings["n_batch"], embeddings["n_ubatch"]) == (256, 256)


def test_a_flag_without_its_value_fails():
    with pytest.raises(ValueError, match="--ctx-size has no value"):
        effective_settings([*MODEL, "--ctx-size"])


def test_unknown_flags_are_kept_and_skipped():
    settings = effective_settings([*MODEL, "--flash-attn", "off", "--parallel", "1"])
    assert settings["n_slots"] == 1
    assert "--flash-attn" in settings["flags"]


def test_every_setting_names_its_long_flag():
    assert FLAG_NAMES["n_slots"] == "--parallel"
    assert FLAG_NAMES["kv_unified"] == "--kv-unified"
    assert FLAG_NAMES["temperature"] == "--temperature"
