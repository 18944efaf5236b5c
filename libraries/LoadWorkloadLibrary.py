"""Robot facade of the load workloads: datasets by name and the checks of multi-turn, shared-prefix, trace
and embeddings/rerank runs. The runs themselves are `LoadLibrary`'s ``Run Load Profile``."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest.load import catalog
from llamatest.load.analysis import metrics, workload_checks
from llamatest.load.pipeline import LoadRun
from llamatest.load.workloads.datasets import Dataset
from robot_glue import server_base_url as _base_url
from robot_glue import server_headers


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class LoadWorkloadLibrary:
    """Workloads for `LoadLibrary` runs: conversations, a shared prefix, traces, several routes.

    | ${talks} =    `Load Dataset`    sharegpt-multiturn    count=${40}    turns=${4}
    | ${run} =    Run Load Profile    ${talks}    concurrency    users=${4}    duration=${45}
    | `Later Turns Should Reuse The Conversation So Far`    ${run}

    Names (``llamatest.load.catalog``): ``sharegpt``, ``fixed-length``, ``sharegpt-multiturn``,
    ``generated-multiturn``, ``shared-prefix``, ``bursty-trace``, ``trace``, ``route-mix``. Multi-turn,
    shared-prefix and trace workloads are warm: their runs keep the prompt cache on (``cold`` defaults to
    False) and ``cache_contaminated`` is not set by the reuse they measure.
    """

    @keyword("Load Dataset")
    def load_dataset(self, name: str, server: str = "suite", **params) -> Dataset:
        """The dataset or workload ``name`` made with ``params`` (see the names above); those that count
        tokens ask ``server``'s ``/tokenize``."""
        dataset = catalog.load_dataset(name, base_url=_base_url(server), headers=server_headers(server), **params)
        logger.info(dataset.describe())
        return dataset

    @keyword("Later Turns Should Reuse The Conversation So Far")
    def later_turns_should_reuse_the_conversation_so_far(self, load_run: LoadRun, slack: int = 0) -> None:
        """Every later turn of every conversation reused from the prompt cache at least the previous turn's
        prompt (minus ``slack`` tokens): the history is not computed again. Logs the per-turn table."""
        logger.info(workload_checks.turn_table(load_run.summary))
        _fail_on(workload_checks.history_reuse_problems(load_run.run, metrics.measure(load_run.run), int(slack)))

    @keyword("Cached Ratio Per Turn")
    def cached_ratio_per_turn(self, load_run: LoadRun) -> list[float | None]:
        """Cached prompt tokens / prompt tokens of each turn (first turn first); logs the per-turn table."""
        logger.info(workload_checks.turn_table(load_run.summary))
        return [t["cached_ratio"] for t in (load_run.summary.get("workload") or {}).get("turns") or []]

    @keyword("Shared Prefix Should Be Reused")
    def shared_prefix_should_be_reused(self, load_run: LoadRun, slots: int) -> float:
        """At most one request per slot (``slots``) missed the shared system prompt in the prompt cache; returns
        the run's cache-hit ratio (cached / prompt tokens) and logs it."""
        prefix = (load_run.summary.get("meta") or {}).get("dataset_params", {}).get("prefix_tokens")
        if not prefix:
            raise ValueError(f"load run '{load_run.name}' is not a shared-prefix run (no prefix_tokens)")
        cache = (load_run.summary.get("workload") or {}).get("cache") or {}
        logger.info(f"{slots} slot(s): {cache.get('requests_with_cache_hit')} of {cache.get('requests')} requests "
                    f"hit the cache; cached ratio {cache.get('cached_ratio')}")
        _fail_on(workload_checks.prefix_reuse_problems(load_run.run, metrics.measure(load_run.run), int(prefix),
                                                       int(slots)))
        return cache.get("cached_ratio")

    @keyword("Every Load Request Should Match Its Trace Row")
    def every_load_request_should_match_its_trace_row(self, load_run: LoadRun) -> None:
        """Every replayed request succeeded with exactly its row's prompt and output tokens (server's counts)."""
        _fail_on(workload_checks.trace_problems(load_run.run, metrics.measure(load_run.run)))

    @keyword("Load Route Should Count Every Input")
    def load_route_should_count_every_input(self, load_run: LoadRun, route: str, inputs: int) -> None:
        """Every request to ``route`` (embeddings, rerank) was answered, its inputs/s is ``inputs`` times its
        requests/s, and it reports no TTFT."""
        block = load_run.summary.get("workload", {}).get("routes", {}).get(route)
        logger.info(f"{route}: {block}")
        _fail_on(workload_checks.inputs_problems(load_run.summary, route, int(inputs)))


def _fail_on(problems: list[str]) -> None:
    if problems:
        raise AssertionError("; ".join(problems))
