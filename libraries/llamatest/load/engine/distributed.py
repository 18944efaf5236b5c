"""The same load engine, sharded over Ray workers, with the event logs merged on the driver.

Worker ``i`` of ``n`` is a Ray async actor that runs ``pacing.run_load`` unchanged on
``profile.shard(i, n)``: an open-loop rate is split into ``n`` independent seeded arrival processes,
closed-loop users are split between the workers. The driver

1. measures each worker's clock offset NTP-style (several round trips; the one with the smallest round
   trip wins; half of it is the error bound),
2. sends every worker the same wall-clock start time a little in the future (a barrier: each actor turns it
   into its own ``perf_counter`` deadline, corrected by its offset),
3. asks each worker every second how far it got (requests sent and answered), and collects the raw
   per-request event logs and merges them onto its own time axis: every metric is then computed once, from
   the union (a percentile of per-worker percentiles is not a percentile of the run). A worker lost meanwhile
   (its process or its node died) leaves what the driver knew of it (`lost_shard`), not an error.

Without ``address`` a local Ray instance with ``workers`` CPUs is started on the loopback address, with its
session files under ``<system temp>/llamatest-ray`` (or ``$RAY_TMPDIR``), and stopped afterwards: every process
it started (GCS, raylet, agents, workers; found as this process's new descendants and by the session directory
in their command lines) gets a few seconds to exit after ``ray.shutdown()`` and is then terminated, so nothing
outlives the run. With ``address`` the workers run on that cluster, spread over its nodes, whose nodes need this
package and its dependencies installed (or a ``runtime_env`` that ships them); the cluster's processes are not
the run's to stop (``raycluster`` starts and stops a test cluster). Ray is imported only when a distributed run
starts.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import tempfile
import time
from typing import Any

from llamatest import deadlines, settings, workdir
from llamatest.load.engine.record import RequestRecord, RunRecord
from llamatest.load.workloads.bodies import RequestBodies, prompt_hash

START_LEAD_S = 1.0  # the barrier: workers start this long after the driver sends the start time
CLOCK_ROUNDS = 8  # round trips per worker for the clock offset
PROGRESS_INTERVAL_S = 1.0  # how often the driver asks each worker how far it got
ERROR_CHARS = 200  # of a lost worker's error, kept in its entry
LOCAL_OBJECT_STORE_BYTES = 100 * 1024 * 1024  # the run ships only event logs: keep the local instance small
LOCAL_TEMP_DIR = "llamatest-ray"  # under the system temp directory (Ray's own default is <temp>/ray)
_AUTH_SETUP_LOGGER = "ray._private.authentication.authentication_token_setup"


class DistributedError(RuntimeError):
    """Ray could not start, a worker failed, or a worker did not finish in time."""


# ----- what runs inside a worker -----
class LoadWorker:
    """The body of the Ray actor (wrapped with ``ray.remote`` at run time, so no import of Ray here)."""

    def __init__(self, worker: int):
        self.worker = worker
        self.sent = self.answered = 0  # as of the last tick of the run: what the driver knows if this worker dies

    async def hello(self) -> dict[str, Any]:
        import ray

        return {"host": socket.gethostname(), "pid": os.getpid(), "cwd": os.getcwd(),
                "node_id": ray.get_runtime_context().get_node_id()}

    async def progress(self) -> dict[str, Any]:
        """Requests sent and answered so far (ended, by success or error), and this worker's wall clock."""
        return {"sent": self.sent, "answered": self.answered, "wall": time.time()}

    def _tick(self, records, in_flight: int) -> None:
        self.sent = sum(1 for r in records if r.t_dispatched is not None)
        self.answered = self.sent - in_flight

    async def clock(self) -> float:
        return time.time()

    async def run(self, target, profile, body_for, *, start_wall: float, offset_s: float,
                  telemetry: bool) -> dict[str, Any]:
        """Runs the shard from ``start_wall`` (driver's clock; this worker's clock reads ``+ offset_s``).
        The ``RunRecord`` goes back as it is: Ray pickles it (a plain-dict copy would cost seconds)."""
        from llamatest.load.engine.pacing import run_load

        wall, perf = time.time(), time.perf_counter()
        start_at_perf = perf + (start_wall + offset_s - wall)
        record = await run_load(target, profile, body_for, telemetry=telemetry, worker=self.worker,
                                start_at_perf=start_at_perf, on_tick=self._tick)
        record.t0_wall = wall + (record.t0_perf - perf)  # this worker's wall clock at exactly its t0
        return {"record": record, "late_s": max(0.0, perf - start_at_perf)}


class ShardBodies(RequestBodies):
    """``body_for`` of worker ``i`` of ``n``: its local request ``k`` sends the body of global index ``k*n+i``,
    so no two workers send the same prompt (the prompt cache would serve the second one)."""

    def __init__(self, body_for, worker: int, workers: int):
        self.body_for, self.worker, self.workers = body_for, worker, workers

    def __call__(self, index: int) -> dict:
        return self.body_for(index * self.workers + self.worker)

    def prompt_hash(self, index: int) -> str:
        """The prompt hash of ``self(index)`` (see ``datasets.BodySpec.prompt_hash``)."""
        inner = getattr(self.body_for, "prompt_hash", None)
        if inner is not None:
            return inner(index * self.workers + self.worker)
        return prompt_hash(self(index))


# ----- the driver -----
def run_distributed(target, profile, body_spec, *, workers: int = 2, address: str | None = None,
                    telemetry: bool = False, runtime_env: dict | None = None) -> RunRecord:
    """Runs ``profile`` against ``target`` on ``workers`` Ray actors and returns the merged ``RunRecord``.

    ``body_spec`` is what the workers build their bodies from, and must be picklable: the keyword arguments
    of ``datasets.body_maker`` as a dict (prompts included), or a ``datasets.BodySpec`` (what
    ``body_maker`` returns), or any other picklable callable ``index -> body``. ``telemetry`` lets worker 0
    (only: one scraper per server) sample ``/metrics`` and ``/slots``. ``RunRecord.workers`` lists each
    worker's id, host, pid, Ray node, share of the measured requests, clock offset to the driver and its error
    bound (seconds). Workers are spread over the cluster's nodes (Ray's SPREAD strategy). A worker that is lost
    (its process or its node died) leaves a `lost_shard` entry instead of its requests, and the run goes on with
    the others (``validity``'s ``worker_lost`` flag says so). Raises ``DistributedError`` when Ray cannot start,
    a worker raises, every worker is lost, or a worker overruns the profile's bound.
    """
    body_for = _checked_bodies(body_spec, workers)
    shards = [profile.shard(i, workers) for i in range(workers)]

    local = _RayProcesses()
    folder = workdir.create("ray") if address is None else None  # a local instance's processes work there
    ray, started_here = _started(workers, address, runtime_env, local, folder)
    # Only a local instance's processes are this run's to stop: a cluster's (`ray start`, maybe on this very
    # machine, under the same session directory) outlive the run.
    own = started_here and address is None
    if own:
        local.collect(_session_dir(ray))
    actors = []
    try:
        # SPREAD: one worker per node while nodes have room, on any cluster, with nothing to label on its nodes
        actor_class = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(LoadWorker)
        actors = [actor_class.remote(i) for i in range(workers)]
        hellos = _get(ray, [a.hello.remote() for a in actors], deadlines.deadline("ray_actor"), "start",
                      hint=f" (each worker needs 1 free CPU in the Ray cluster: {workers} in all)")
        clocks = [_clock_offset(ray, a) for a in actors]
        bound = START_LEAD_S + _run_bound_s(target, profile) + deadlines.deadline("ray_margin")
        start_wall = time.time() + START_LEAD_S
        driver_wall, driver_perf = time.time(), time.perf_counter()
        refs = [a.run.remote(target, shard, ShardBodies(body_for, i, workers), start_wall=start_wall,
                             offset_s=clocks[i][0], telemetry=telemetry and i == 0)
                for i, (a, shard) in enumerate(zip(actors, shards, strict=True))]
        results, lost = _collect(ray, actors, refs, bound, start_wall, [c[0] for c in clocks])
    finally:
        _kill_actors(ray, actors)
        if started_here:
            if own:
                local.collect(_session_dir(ray))  # the workers started since ray.init
            ray.shutdown()
            local.stop()
        workdir.remove(folder)

    merged = _assemble(results, lost, shards, hellos, clocks, t0_wall=start_wall,
                       t0_perf=driver_perf + (start_wall - driver_wall))
    merged.profile = profile.as_dict()
    merged.meta.setdefault("distributed", {}).update(
        engine="ray", ray_version=ray.__version__, workers=workers, address=address or "local",
        clock_bound_s=max(c[1] for c in clocks), nodes=len({h["node_id"] for h in hellos}), lost=sorted(lost))
    if own:
        merged.meta["distributed"].update(local_processes=len(local.processes), stopped_forcibly=local.forced,
                                          left_running=local.left)
    return merged


def _assemble(results: list, lost: dict, shards: list, hellos: list, clocks: list, *, t0_wall: float,
              t0_perf: float) -> RunRecord:
    """The merged run of the workers that finished, with a `lost_shard` entry for each one that was lost; every
    worker's entry names its host, pid and Ray node."""
    kept = [i for i in range(len(results)) if results[i] is not None]
    if not kept:
        raise DistributedError(f"every Ray worker was lost: {'; '.join(x['error'] for x in lost.values())}")
    merged = merge_runs([results[i]["record"] for i in kept], offsets=[clocks[i][0] for i in kept],
                        t0_wall=t0_wall, t0_perf=t0_perf, ids=kept)
    merged.workers += [lost_shard(i, shards[i], **lost[i]) for i in sorted(lost)]
    merged.workers.sort(key=lambda w: w["id"])
    for info in merged.workers:
        i = info["id"]
        info.update(**hellos[i], bound_s=clocks[i][1], seed=[shards[i].seed, i], profile=shards[i].describe())
        if "scheduled" not in info:  # a lost worker's entry has it already (lost_shard)
            info["scheduled"] = _scheduled(shards[i])
        if results[i] is not None:
            info["late_s"] = results[i]["late_s"]
    return merged


def _started(workers: int, address: str | None, runtime_env: dict | None, local: _RayProcesses, folder):
    """`_start_ray` in ``folder`` (the processes a local instance starts inherit it as their working folder: never
    the checkout robot runs in); after a failed local start, what it left is stopped and the folder removed."""
    try:
        with contextlib.chdir(folder or "."):
            return _start_ray(workers, address, runtime_env)
    except DistributedError:
        if address is None:  # a local start that failed half-way may have left its first processes
            local.collect(None)
            local.stop(grace_s=deadlines.deadline("ray_term"))
        workdir.remove(folder)
        raise


def _kill_actors(ray, actors: list) -> None:
    for actor in actors:
        try:
            ray.kill(actor)
        except Exception:
            pass  # already gone


def _checked_bodies(body_spec, workers):
    """The ``index -> body`` callable of ``body_spec``; a clear ValueError for bad arguments."""
    from llamatest.load.workloads import datasets

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1; got {workers!r}")
    body_for = datasets.body_maker(**body_spec) if isinstance(body_spec, dict) else body_spec
    if not callable(body_for):
        raise ValueError("body_spec must be body_maker's keyword arguments (a dict), a BodySpec, or a picklable "
                         f"callable index -> body; got {type(body_spec).__name__}")
    return body_for


def merge_runs(records: list[RunRecord], *, offsets: list[float], t0_wall: float, t0_perf: float,
               ids: list[int] | None = None) -> RunRecord:
    """One run from the workers' runs: times moved onto the driver's axis, requests re-indexed.

    ``records[i].t0_wall`` is worker ``i``'s wall clock at its t0 and ``offsets[i]`` how far that clock is
    ahead of the driver's; ``t0_wall``/``t0_perf`` are the driver's t0. Requests are renumbered 0..N-1 in
    order of their (shifted) scheduled times; each gets its worker's id as ``worker``: ``ids[i]``, by default
    its position in ``records`` (ids skip the workers that were lost). Each worker's ``share`` is its part of
    the measured requests.
    Loop lag, CPU and telemetry samples are merged in time order. Nothing is aggregated: metrics are computed
    later from the union. The request records (and their events) are moved in place, not copied: the merged
    run takes them over from ``records``.
    """
    if len(records) != len(offsets):
        raise ValueError(f"one offset per record: {len(records)} records, {len(offsets)} offsets")
    if not records:
        raise ValueError("records must not be empty")
    ids = _ids_of(records, ids)
    requests: list[tuple[float, int, int, RequestRecord]] = []
    loop_lag: list[tuple[float, float]] = []
    cpu: list[tuple[float, float]] = []
    telemetry: list[dict[str, Any]] = []
    workers: list[dict[str, Any]] = []
    starts, ends = [], []
    meta: dict[str, Any] = {}
    for i, rec, offset in zip(ids, records, offsets, strict=True):
        shift = (rec.t0_wall - offset) - t0_wall  # worker time + shift = driver time
        for r in rec.requests:
            original_index = r.index
            _shift_request(r, shift)
            r.worker = i
            requests.append((r.t_scheduled, i, original_index, r))
        loop_lag += [(t + shift, v) for t, v in rec.loop_lag]
        cpu += [(t + shift, v) for t, v in rec.cpu]
        telemetry += [{**s, **{k: s[k] + shift for k in ("t", "t_metrics", "t_slots") if k in s}, "worker": i}
                      for s in rec.telemetry]
        starts.append(rec.window[0] + shift)
        ends.append(rec.window[1] + shift)
        measured = rec.measured
        workers.append({"id": i, "offset_s": offset, "start_skew_s": shift, "requests": len(rec.requests),
                        "measured": len(measured), "succeeded": sum(1 for r in measured if r.ok),
                        "in_flight_at_window_end": rec.in_flight_at_window_end,
                        "drain_timed_out": rec.drain_timed_out, "engine": rec.meta.get("engine")})
        for key, value in rec.meta.items():
            if key != "engine":  # per worker (run id, peak in flight): kept in workers[i]["engine"]
                meta.setdefault(key, value)
    _add_shares(workers)
    requests.sort(key=lambda item: item[:3])
    merged_requests = []
    for index, (*_, r) in enumerate(requests):
        r.index = index
        merged_requests.append(r)
    telemetry.sort(key=lambda s: s.get("t", 0.0))
    return RunRecord(profile=dict(records[0].profile), target=dict(records[0].target), t0_wall=t0_wall,
                     t0_perf=t0_perf, window=(min(starts), max(ends)), requests=merged_requests,
                     loop_lag=sorted(loop_lag), cpu=sorted(cpu), telemetry=telemetry,
                     in_flight_at_window_end=sum(r.in_flight_at_window_end for r in records),
                     drain_timed_out=sum(r.drain_timed_out for r in records), workers=workers, meta=meta)


def _ids_of(records: list, ids: list[int] | None) -> list[int]:
    ids = list(range(len(records))) if ids is None else list(ids)
    if len(ids) != len(records):
        raise ValueError(f"one id per record: {len(records)} records, {len(ids)} ids")
    return ids


def _add_shares(workers: list[dict[str, Any]]) -> None:
    """Each worker's ``share``: its part of the measured requests (None when nothing was measured)."""
    total = sum(w["measured"] for w in workers)
    for w in workers:
        w["share"] = w["measured"] / total if total else None


def _shift_request(r: RequestRecord, shift: float) -> None:
    """Moves every time of ``r`` (and of its events) by ``shift``, in place."""
    r.t_scheduled += shift
    if r.t_dispatched is not None:
        r.t_dispatched += shift
    if r.t_headers is not None:
        r.t_headers += shift
    if r.t_done is not None:
        r.t_done += shift
    if r.t_closed is not None:
        r.t_closed += shift
    for e in r.events:
        e.t += shift


def _run_bound_s(target, profile) -> float:
    """The longest a shard may take: warmup, the window, the drain, and a whole request for warmup requests."""
    total = float(getattr(target, "timeout_total_s", 300.0))
    bound = profile.warmup_s + profile.duration_s + profile.drain_timeout_s
    if profile.warmup_requests:
        bound += total
    return bound


def _collect(ray, actors: list, refs: list, bound: float, start_wall: float, offsets: list[float]):
    """(results, lost): each worker's ``run`` result, or None for a worker that was lost, and for those
    ``{index: {"error", "lost_at_s", "progress"}}`` (times on the driver's axis). Meanwhile the driver asks every
    worker for its progress (`LoadWorker.progress`), so it knows what a worker had sent when it died. A worker
    that raised (not lost) or a run over ``bound`` seconds raises DistributedError, as before."""
    results: list[dict | None] = [None] * len(refs)
    lost: dict[int, dict[str, Any]] = {}
    progress: list[dict | None] = [None] * len(refs)
    asked: dict[Any, int] = {}  # outstanding progress requests -> worker
    pending = {ref: i for i, ref in enumerate(refs)}
    end = time.monotonic() + max(bound, 0.1)
    while pending:
        left = end - time.monotonic()
        if left <= 0:
            raise DistributedError(f"the Ray workers did not finish the run within {max(bound, 0.1):.0f} s")
        done, _ = ray.wait(list(pending), num_returns=len(pending), timeout=min(PROGRESS_INTERVAL_S, left))
        for ref in done:
            i = pending.pop(ref)
            try:
                results[i] = _get(ray, ref, deadlines.deadline("ray_actor"), "finish the run", keep=_lost_errors(ray))
            except _lost_errors(ray) as exc:
                lost[i] = {"error": _ANSI.sub("", f"{type(exc).__name__}: {exc}").splitlines()[0][:ERROR_CHARS],
                           "lost_at_s": time.time() - start_wall, "progress": progress[i]}
        _read_progress(ray, asked, progress, offsets, start_wall)
        busy = set(asked.values())
        asked.update((actors[i].progress.remote(), i) for i in pending.values() if i not in busy)
    return results, lost


def _read_progress(ray, asked: dict, progress: list, offsets: list[float], start_wall: float) -> None:
    """Takes the answers of ``asked`` that are in (never waits); a worker that cannot answer keeps its last."""
    if not asked:
        return
    ready, _ = ray.wait(list(asked), num_returns=len(asked), timeout=0)
    for ref in ready:
        i = asked.pop(ref)
        try:
            answer = ray.get(ref, timeout=deadlines.deadline("ray_actor"))
        except ray.exceptions.RayError:
            continue  # its run's result says why
        progress[i] = {"sent": answer["sent"], "answered": answer["answered"],
                       "at_s": answer["wall"] - offsets[i] - start_wall}


def _scheduled(shard) -> int | None:
    """Requests an open-loop shard's schedule holds, warmup included (a closed loop has no schedule: None)."""
    return len(shard.schedule()) if shard.open_loop else None


def _lost_errors(ray) -> tuple[type, ...]:
    """Ray's errors for a worker that is gone (its process, or its node), not one that raised."""
    names = ("RayActorError", "ActorUnavailableError", "WorkerCrashedError", "NodeDiedError")
    return tuple(getattr(ray.exceptions, n) for n in names if hasattr(ray.exceptions, n))


def lost_shard(worker: int, shard, *, error: str, lost_at_s: float, progress: dict | None) -> dict[str, Any]:
    """What the driver knows of worker ``worker``, lost with its event log: its ``shard`` profile's schedule
    (open loop: every request it was to send, warmup included; closed loop: unknown), what it had sent and got
    answered by its last progress report, and that none of its requests is in the merged run."""
    scheduled = _scheduled(shard)
    sent = progress["sent"] if progress else 0
    return {"id": worker, "lost": True, "error": error, "lost_at_s": lost_at_s,
            "reported_at_s": progress["at_s"] if progress else None, "sent": sent,
            "answered": progress["answered"] if progress else 0, "scheduled": scheduled,
            "answers_missing": scheduled if scheduled is not None else sent,
            "requests": 0, "measured": 0, "succeeded": 0, "share": 0.0}


def _clock_offset(ray, actor) -> tuple[float, float]:
    """(offset, bound): the worker's clock minus the driver's, from the round trip with the smallest delay."""
    best: tuple[float, float] | None = None
    for _ in range(CLOCK_ROUNDS):
        sent = time.time()
        remote = _get(ray, actor.clock.remote(), deadlines.deadline("ray_actor"), "read a worker's clock")
        received = time.time()
        rtt = received - sent
        if best is None or rtt < 2 * best[1]:
            best = (remote - (sent + received) / 2, rtt / 2)
    assert best is not None
    return best


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _get(ray, refs, timeout: float, what: str, hint: str = "", keep: tuple[type, ...] = ()):
    """``ray.get`` with a deadline; Ray's errors become ``DistributedError``, but for those of ``keep``, raised as
    they are."""
    timeout = max(timeout, 0.1)  # Ray aborts the whole process on a negative timeout
    try:
        return ray.get(refs, timeout=timeout)
    except keep:
        raise
    except ray.exceptions.GetTimeoutError:
        raise DistributedError(f"the Ray workers did not {what} within {timeout:.0f} s{hint}") from None
    except ray.exceptions.RayError as exc:
        detail = _ANSI.sub("", str(exc))  # Ray colours the actor's name
        raise DistributedError(f"a Ray worker failed to {what}{hint}: {detail}") from None


def _start_ray(workers: int, address: str | None, runtime_env: dict | None):
    """(the ray module, whether this call started the instance and must shut it down)."""
    try:
        import ray
    except ImportError:
        raise DistributedError("distributed runs need Ray: pip install 'ray[default]' into the project's venv") \
            from None
    if ray.is_initialized():
        return ray, False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if runtime_env:
        options["runtime_env"] = runtime_env
    if address is None:
        # Ray always starts its dashboard and runtime-env agents (the raylet needs them; no option turns them
        # off). The node address 127.0.0.1 keeps the instance's own traffic on loopback; its ports still listen
        # on every interface, guarded by the token auth Ray enables for a local instance.
        options.update(num_cpus=workers, object_store_memory=LOCAL_OBJECT_STORE_BYTES, _node_ip_address="127.0.0.1")
        if not os.environ.get(settings.ENV_RAY_TMPDIR):
            options["_temp_dir"] = os.path.join(tempfile.gettempdir(), LOCAL_TEMP_DIR)
    else:
        options["address"] = address
    quiet = _QuietTokenNotice()
    auth_logger = logging.getLogger(_AUTH_SETUP_LOGGER)
    auth_logger.addFilter(quiet)
    try:
        ray.init(**options)
    except Exception as exc:
        where = f"connect to the Ray cluster at {address}" if address else "start a local Ray instance"
        raise DistributedError(f"could not {where}: {type(exc).__name__}: {exc}") from None
    finally:
        auth_logger.removeFilter(quiet)
    return ray, True


class _QuietTokenNotice(logging.Filter):
    """Drops Ray's "Token authentication is enabled ..." notice (a local instance enables token auth by default,
    which is what we want; the notice on stderr only adds noise to every run). Other records pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Token authentication is enabled for this Ray cluster")


def _session_dir(ray) -> str | None:
    """This Ray instance's session directory (``<temp>/session_<date>_<pid>``), or None if Ray hides it."""
    try:
        return ray._private.worker._global_node.get_session_dir_path()
    except Exception:
        return None


class _RayProcesses:
    """The processes a local Ray instance started, so they can be made to exit after ``ray.shutdown()``.

    Created before ``ray.init``; ``collect`` (after init, and again before shutdown for the workers) adds every
    new descendant of this process that is Ray's (its command line mentions Ray's package or the session
    directory, starts with ``ray::``, or its parent is one of Ray's) and any process whose command line points
    into the session directory (in case it was re-parented). ``psutil.Process`` objects remember their start
    time, so a recycled pid is never signalled.
    """

    def __init__(self):
        import psutil

        self._psutil = psutil
        self._me = psutil.Process()
        self._before = {p.pid for p in self._descendants()}
        self.processes: dict[int, Any] = {}
        self.forced = 0  # how many needed SIGTERM or SIGKILL
        self.left = 0  # how many were still running after SIGKILL (should stay 0)

    def _descendants(self):
        try:
            return self._me.children(recursive=True)
        except self._psutil.Error:
            return []

    def collect(self, session_dir: str | None) -> None:
        psutil = self._psutil
        ray_dir = _ray_package_dir()
        marks = [m for m in (ray_dir, session_dir) if m]
        new = [p for p in self._descendants() if p.pid not in self._before]
        parents = {p.pid: _ppid(p) for p in new}
        pending = [p for p in new if p.pid not in self.processes]
        while pending:  # to a fixed point: a child of a Ray process is Ray's whatever its command line says
            found = [p for p in pending if _is_ray_process(p, marks) or parents[p.pid] in self.processes]
            if not found:
                break
            self.processes.update((p.pid, p) for p in found)
            pending = [p for p in pending if p.pid not in self.processes]
        if session_dir:
            for p in psutil.process_iter(["cmdline"]):
                if p.pid != self._me.pid and any(session_dir in part for part in p.info["cmdline"] or ()):
                    self.processes.setdefault(p.pid, p)

    def stop(self, grace_s: float | None = None, term_s: float | None = None) -> None:
        """Waits ``grace_s`` for the processes to exit, then SIGTERMs the rest, then SIGKILLs (defaults: the
        ``ray_exit`` and ``ray_term`` deadlines)."""
        grace_s, term_s = deadlines.or_default(grace_s, "ray_exit"), deadlines.or_default(term_s, "ray_term")
        psutil = self._psutil
        _, alive = psutil.wait_procs(list(self.processes.values()), timeout=grace_s)
        if not alive:
            return
        self.forced = len(alive)
        for p in alive:
            _signal(p, p.terminate)
        _, alive = psutil.wait_procs(alive, timeout=term_s)
        for p in alive:
            _signal(p, p.kill)
        _, alive = psutil.wait_procs(alive, timeout=term_s)
        self.left = len(alive)


def _ray_package_dir() -> str | None:
    try:
        import ray

        return os.path.dirname(ray.__file__)
    except ImportError:
        return None


def _ppid(p) -> int | None:
    try:
        return p.ppid()
    except Exception:
        return None


def _is_ray_process(p, marks: list[str]) -> bool:
    try:
        cmdline = p.cmdline()
    except Exception:
        return False
    if cmdline and cmdline[0].startswith("ray::"):
        return True
    return any(mark in part for part in cmdline for mark in marks)


def _signal(p, send) -> None:
    try:
        send()
    except Exception:
        pass  # exited meanwhile
