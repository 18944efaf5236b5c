"""The command line shown in the log, the metadata and the .srvlog never holds a secret."""

import shlex

import pytest

from llamatest.server.presets import Preset
from llamatest.server.process import api_prefix, shown_command_line, shown_environment


@pytest.mark.parametrize("args, shown", [
    (["llama-server", "--api-key", "sk-1,sk-2", "--port", "1"], "llama-server --api-key '*****' --port 1"),
    (["llama-server", "--api-key=sk-1"], "llama-server '--api-key=*****'"),
    (["llama-server", "--model", "a b.gguf"], "llama-server --model 'a b.gguf'"),
])
def test_secret_flag_values_are_masked(args, shown):
    assert shown_command_line(args) == shown
    assert "sk-" not in shown_command_line(args)
    assert shlex.split(shown_command_line(args))[0] == "llama-server"


def test_preset_repr_hides_the_api_key():
    preset = Preset(model="tiny", n_slots=1, n_ctx=512, api_key="sk-secret", description="x")
    assert "sk-secret" not in repr(preset)
    assert preset.args()[-2:] == ["--api-key", "sk-secret"]


@pytest.mark.parametrize("flags, prefix", [(["--api-prefix", "/x"], "/x"), (["--api-prefix=/v2/"], "/v2"),
                                           (["--metrics"], ""), (["--api-prefix"], "")])
def test_api_prefix_is_read_from_the_flags(flags, prefix):
    assert api_prefix(["--ctx-size", "512", *flags]) == prefix


def test_inherited_llama_arg_variables_lead_the_shown_command_line_with_a_key_masked():
    env = {"LLAMA_ARG_THREADS": "1", "LLAMA_ARG_API_KEY": "sk-secret", "LLAMA_ARG_ALIAS": "a b"}
    assert shown_environment(env) == "LLAMA_ARG_ALIAS='a b' LLAMA_ARG_API_KEY=***** LLAMA_ARG_THREADS=1 "
    assert shown_environment({}) == ""
