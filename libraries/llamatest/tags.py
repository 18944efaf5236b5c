"""The one tag taxonomy of the suites: every tag a .robot file may carry, with its meaning.

docs/writing-suites.md's tag table is rendered from it (`render_table`), and tests/codebase/test_tags.py fails
when a suite uses a tag outside it or the committed table differs. ``needs:NAME``, ``builds:RANGE`` and ``early:NAME``
are families: their names are checked by `llamatest.capabilities`, `llamatest.server.builds` and
tests/codebase/test_tags.py (the cases of resources/early_cases.resource).
"""

from __future__ import annotations

from collections.abc import Iterable

FAMILIES = ("needs:", "builds:", "early:")  # a prefix and a name or range of its own

# (tags, meaning): one row of the table each; the tags of a row are documented together.
TAXONOMY: tuple[tuple[tuple[str, ...], str], ...] = (
    (("health", "errors"), "liveness routes and headers; the HTTP error contract (status and exact error object)"),
    (("props", "models", "tokenize"), "`/props`, `/v1/models`, `/models`; `/tokenize`, `/detokenize`"),
    (("completion", "chat", "streaming"),
     "native `/completion` and `/v1/completions`; OpenAI chat; streamed answers (SSE)"),
    (("api-formats",),
     "`/v1/responses`, Anthropic `/v1/messages`, Vertex `/predict`, resumable streams, chat control"),
    (("embeddings", "rerank", "infill"), "`/embedding(s)`, `/v1/embeddings`; the four rerank routes; `/infill`"),
    (("metrics", "gates", "sleep"), "`/metrics`; routes switched on and off by flags; idle sleep"),
    (("slot-actions", "lora", "speculative", "router"),
     "slot save/restore/erase; LoRA adapters; draft models; router mode"),
    (("command-line",), "`llama-server` flags, exit codes and messages, through Robot's Process library"),
    (("security", "cors"), "API keys; CORS"),
    (("mcp", "builtin-tools", "downloads"),
     "MCP servers (`--mcp-servers-config`) and the built-in tools (`--tools`) behind `/tools`; model downloads "
     "from a local hub (`-hf`, router `POST`/`DELETE /models`, the cache). See [Security](security.md)"),
    (("robustness", "unicode", "fuzz"), "hostile input; broken unicode in streams; bounded fuzzing"),
    (("multi-user", "soak"),
     "concurrent users, slot timelines, deferral, cancellation, KV-cache pressure; `soak`: the multi-user soak"),
    (("serial",), "needs the whole machine: `run.py --processes N` runs it alone after the parallel part (as it "
                  "does `load`, `load-smoke` and `soak`). A `multi-user` test whose claim needs a quiet machine's "
                  "timing (slots busy together, deferral order, a hang-up mid-stream) carries it too"),
    (("load-smoke",), "the short load profile on `tiny` that runs by default (see [Load tests](load.md))"),
    (("load-soak",), "minutes of load while the server's RSS, fds and threads are sampled; excluded by default, "
                     "even from `--include load`"),
    (("load",), "the load suites: minutes of traffic on SmolLM2 and `tiny`; excluded by default, `--include load` "
                "runs them"),
    (("ray",), "starts Ray: a local instance (load sharded over workers) or a cluster of two nodes on this machine "
               "(`ray_cluster.robot`); tagged `load` too, and `--include ray` runs them"),
    (("noise",), "hostile requests sent beside a load profile (wrong keys, malformed JSON, oversized bodies, "
                 "slowloris, dropped streams, fetched image URLs); tagged `load` too, and `--include noise` runs it"),
    (("wrong_usage",), "requests a user should not send (no limit on a model that never stops); excluded by default"),
    (("needs-smollm2",), "starts the real SmolLM2 model"),
    (("needs-gemma3",), "starts the real Gemma 3 270M model: sliding-window attention, what `--swa-full` changes"),
    (("self-report",), "what the server reports about itself (`/props`, `/slots`, `/metrics`, `timings`, `usage`, "
                       "streamed `tokens`), cross-checked against its flags and the requests the suite sent and "
                       "counted"),
    (("build-specific",), "pins a behaviour that changed between llama.cpp builds, or that no written contract "
                          "covers"),
    (("builds:RANGE",), "the llama.cpp builds a `build-specific` test holds for (`builds:11400-`, "
                        "`builds:-11433`); outside the range it is skipped with that reason"),
    (("early:NAME",), "the test watches a case that waits out a timeout hard-coded in the server (`downloader`, "
                      "`trickle`); the run's first set-up begins it when the run includes the test, so that it "
                      "goes on beside the other suites (resources/early_cases.resource)"),
    (("bug",), "a confirmed llama-server defect; excluded by default (see [Known server bugs](bugs.md))"),
    (("harness",), "tests of llamatest itself (`tests/harness/`, run by `--selftest`)"),
    (("needs:NAME",), "what a test needs beyond a default llama-server on any model (`needs:metrics`, `needs:tiny`, "
                      "`needs:managed`, …); a server that lacks it skips the test with a one-line reason. The "
                      "vocabulary and how each name is discovered: CONTRIBUTING.md, \"What a test needs\""),
    (("sdk",), "the official `openai` and `anthropic` Python SDKs against the server: typed answers, streams and "
               "stream helpers, async clients, error classes, strict schema checks"),
    (("multimodal",), "images and audio (`--mmproj`): chat, completion, embeddings, Anthropic, Responses, the media "
                      "fetcher, hostile media"),
    (("reference",), "the server's numbers (logprobs, greedy tokens, embeddings, rerank scores) against a numpy "
                     "forward pass of the model the project generated (see [The numeric reference](reference.md))"),
    (("llama-cpp-python",), "tests of llama-cpp-python's own server, opt-in; `run.py` builds it when a run includes "
                            "the tag"),
    (("deviation",), "a confirmed deviation of another server from the OpenAI API reference; the test keeps the "
                     "reference's behaviour; excluded by default"),
)

NAMES = frozenset(name for tags, _ in TAXONOMY for name in tags if not name.endswith(("NAME", "RANGE")))


def unknown(tags: Iterable[str]) -> list[str]:
    """The tags outside the taxonomy (a family's prefix with any name counts as known)."""
    return sorted({tag for tag in tags if tag not in NAMES and not tag.startswith(FAMILIES)})


def render_table() -> str:
    """The Markdown table of docs/writing-suites.md's "Tags" section."""
    rows = ["| tag | meaning |", "|---|---|"]
    rows += [f"| {', '.join(f'`{tag}`' for tag in tags)} | {meaning} |" for tags, meaning in TAXONOMY]
    return "\n".join(rows)
