"""No suite test compares a model-dependent figure with a constant only our models satisfy, unless it says so.

An external server (`LLAMA_SERVER_URL`) may run any model: Gemma 3 broke eight tests that held for `tiny` and
SmolLM2 only (issue 26). The check reads every test of `suites/` with Robot's own parser (the keyword calls of its
body and its `VAR`s, not its documentation) and looks for the assumption classes that broke, each a pattern of
the call text:

- whole-prompt reuse: `cache_n` or `cached_tokens` against a count minus one, or `Prompt Should Have Come From
  The Cache` (a sliding-window model reuses a prompt only from its context checkpoints);
- special-token text: `<|im_start|>`, `<s>`, `<eos>`, `[INST]`, … written in a call (each vocabulary has its
  own, and each template its own turn markers);
- a vocabulary size: `n_probs`, `top_logprobs`, `logprobs` or `top_n` given a literal of four digits or more
  (Gemma's vocabulary has 262,144 tokens);
- the stored template: `chat_template` compared with the model file's (a file may store none).

Such a call is allowed when the test needs what makes it hold: one of our models or a managed server (whose
model is ours), or the capability that names the assumption (`full-prompt-cache`, `stored-template`). What a
test needs is its `needs:` tags (`[Tags]` and `Test Tags`) and what its suite's server set-up gives: the flags of
the preset and the raw flags in `Suite Setup` (or in the suite's own set-up keyword) through
`capabilities.needs_of_flags`, as the run itself decides (`--no-jinja` or `--batch-size` give `managed`). A
derived expectation (`n_probs=${n_vocab + 1}`, the model's `eos_token`) matches no pattern.
"""

import re
from pathlib import Path

from robot import api as robot_api

from llamatest import capabilities
from llamatest.server.presets import PRESETS

ROOT = Path(__file__).resolve().parents[2]
# The needs that pin the model: a test with one of them never meets another model.
MODEL_NEEDS = frozenset({"managed", "tiny", "tiny-raw", "minilm", "reranker", "smollm2", "gemma3"})
ASSUMPTIONS = {
    "whole-prompt reuse": (re.compile(r"(cache_n|cached_tokens)\b.*-\s*1\b|Prompt Should Have Come From The Cache"),
                           {"full-prompt-cache"}),
    "special-token text": (re.compile(r"<\|[a-z_]+\|>|</?s>|<bos>|<eos>|\[/?INST\]|<start_of_turn>"), set()),
    "a vocabulary size": (re.compile(r"\b(n_probs|top_logprobs|logprobs|top_n)=\$\{\d{4,}\}"), set()),
    "the stored template": (re.compile(r"chat_template\b.*\[chat_template\]"), {"stored-template"}),
}


def call_texts(body):
    """Each keyword call of ``body`` as "NAME ARG ARG …", and each VAR as "NAME VALUE …", nested blocks included."""
    for item in body:
        kind = type(item).__name__
        if kind == "Keyword":
            yield " ".join([item.name or "", *map(str, item.args)])
        elif kind == "Var":
            yield " ".join([str(item.name), *map(str, item.value)])
        if kind != "Keyword" and hasattr(item, "body"):
            yield from call_texts(item.body)


def setup_needs(suite) -> set[str]:
    """What the suite's server set-up gives: its preset's flags and the raw flags, one keyword deep."""
    if not suite.setup:
        return set()
    words = list(map(str, suite.setup.args))
    own = {keyword.name: keyword for keyword in suite.resource.keywords}
    if suite.setup.name in own:
        words += " ".join(call_texts(own[suite.setup.name].body)).split(" ")
    flags = [flag for word in words if word in PRESETS for flag in PRESETS[word].flags]
    return set(capabilities.needs_of_flags(flags + [word for word in words if word.startswith("--")]))


def assumptions(path: Path, root: Path = ROOT) -> list[str]:
    suite = robot_api.TestSuite.from_file_system(path)
    given = setup_needs(suite)
    found = []
    for test in suite.tests:
        needs = given | set(capabilities.needs_of_tags(test.tags))
        for text in call_texts(test.body):
            found += [f"{path.relative_to(root)}:{test.lineno} {test.name}: {name}: {text[:100]}"
                      for name, (pattern, allowed) in ASSUMPTIONS.items()
                      if pattern.search(text) and not needs & (MODEL_NEEDS | allowed)]
    return found


def test_no_suite_pins_a_figure_of_our_models_without_saying_so():
    found = [line for path in sorted((ROOT / "suites").rglob("*.robot")) if path.name != "__init__.robot"
             for line in assumptions(path)]
    assert not found, ("a test compares a model-dependent figure with a constant of our models:\n  "
                       + "\n  ".join(found) + "\nDerive the expectation from the server (/props, /v1/models, "
                       "/tokenize, the model file), or tag the test with the need it has (needs:tiny, "
                       "needs:full-prompt-cache, …; CONTRIBUTING.md, \"What a test needs\").")


def test_the_check_sees_an_untagged_assumption_and_lets_a_tagged_one_pass(tmp_path):
    suite = tmp_path / "suites" / "x.robot"
    suite.parent.mkdir()
    suite.write_text("*** Settings ***\nSuite Setup    Start Server For Suite    tiny-1-slot\n\n*** Test Cases ***\n"
                     "Untagged\n    Complete    x    n_probs=${100000}\n    Tokenize    <|im_start|>\n"
                     "Tagged\n    [Tags]    needs:full-prompt-cache\n"
                     "    Json Field Should Be    ${a}    timings.cache_n    ${{ $n - 1 }}\n"
                     "Derived\n    Complete    x    n_probs=${n_vocab + 1}\n")
    assert [line.split(": ")[1] for line in assumptions(suite, tmp_path)] == ["a vocabulary size", "special-token text"]
