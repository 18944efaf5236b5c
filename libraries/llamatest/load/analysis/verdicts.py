"""The verdicts on a load run that the keywords give: each check passes quietly, fails with the figures, or is
not judged (`NotJudged`, a skip) when the machine or the client spoiled the run.

LoadLibrary's assertion keywords only call these: a verdict is computed here, from the run's summary (and its
comparisons and record), never in a facade. Each takes the run's ``name`` for its messages. Whose fault a validity
flag is decides the verdict (``validity``): the server's correctness fails whatever else happened; the machine's
or the client's (``MACHINE_SIDE``) makes a miss not judged; the server's performance fails on a quiet machine.
"""

from __future__ import annotations

from typing import Any

from llamatest.load.analysis import soak, sweep, trials, validity
from llamatest.load.analysis.compare import VERDICTS
from llamatest.machine import NotJudged


def judge(summary: dict, name: str, message: str) -> None:
    """Fails with ``message``, or skips with it when a machine-side validity flag says the machine or the client
    spoiled the run: then the numbers are not a verdict on the server."""
    spoiled = validity.set_flags(summary, validity.MACHINE_SIDE)
    if spoiled:
        raise NotJudged(f"not judged, the machine or the client spoiled the run: {'; '.join(spoiled)}. {message}")
    raise AssertionError(message)


def meets_slo(summary: dict, name: str, limits: dict[str, Any]) -> None:
    """Every limit holds (``ttft_p95_ms``, ``error_rate_max``, …); a limit on a missing value fails and says why."""
    violations = sweep.slo_check(summary, **limits)  # it converts the values and names bad ones
    if violations:
        judge(summary, name, f"load run '{name}' misses its SLO: " + "; ".join(violations))


def is_valid(summary: dict, name: str, allowed: tuple[str, ...] = ()) -> None:
    """No validity flag is set but those ``allowed`` and the advisory ones; a server-correctness flag fails, a
    machine-side one makes the run not judged."""
    flags = summary.get("flags") or {}
    unknown = [flag for flag in allowed if flag not in flags]
    if unknown:
        raise ValueError(f"unknown validity flag(s) {', '.join(unknown)}: known are {', '.join(flags)}")
    allowed = (*allowed, *validity.ADVISORY)
    bad = [f"{flag} ({value.get('detail', '')})" for flag, value in flags.items()
           if value.get("set") and flag not in allowed]
    if not bad:
        return
    message = f"load run '{name}' is not valid: " + "; ".join(bad)
    if validity.set_flags(summary, validity.SERVER_CORRECTNESS):
        raise AssertionError(message)
    judge(summary, name, message)


def every_request_succeeded(summary: dict, name: str) -> None:
    """No error, no dropped request, nothing cut at the end, and at least one measured request; a run whose only
    problems are timeouts and drops beside a machine-side flag is not judged."""
    counts = summary.get("counts", {})
    problems = [f"{k}={counts.get(k)}" for k in ("errored", "dropped", "drain_timed_out") if counts.get(k)]
    if not counts.get("succeeded"):
        problems.append("no request succeeded")
    if not problems:
        return
    by_class = counts.get("errors_by_class") or {}
    message = f"load run '{name}': {', '.join(problems)}; errors by class: {by_class}"
    if counts.get("succeeded") and all(c.startswith("timeout") or c == "dropped" for c in by_class):
        judge(summary, name, message)
    raise AssertionError(message)


def every_request_had(summary: dict, name: str, prompt_tokens: int | None, output_tokens: int | None) -> None:
    """Every measured successful request had exactly these prompt and output tokens, as the server counted them."""
    for metric, expected in (("n_in", prompt_tokens), ("n_out", output_tokens)):
        if expected is None:
            continue
        values = summary.get("samples", {}).get(metric) or []
        wrong = sorted({v for v in values if v != expected})
        if not values or wrong:
            raise AssertionError(f"load run '{name}': {metric} should be {expected} for every request; "
                                 f"{len(values)} values, others seen: {wrong[:10]}")


def _comparison(comparisons: dict, name: str, against: str) -> dict:
    found = comparisons.get(against)
    if found is None:
        raise AssertionError(f"load run '{name}' has no {against} run to compare with")
    return found


def verdict_is(comparisons: dict, name: str, verdicts: tuple[str, ...], against: str) -> None:
    """The overall verdict of the comparison ``against`` is one of ``verdicts``."""
    unknown = [v for v in verdicts if v not in VERDICTS]
    if unknown or not verdicts:
        raise ValueError(f"expected verdict(s) {', '.join(unknown) or '(none given)'}: name one or more of "
                         f"{', '.join(VERDICTS)}")
    cmp = _comparison(comparisons, name, against)
    if cmp["verdict"] not in verdicts:
        worst = [f"{n}: {m['verdict']}" for n, m in cmp["metrics"].items() if m["verdict"] not in verdicts]
        why = f" ({cmp['note']})" if cmp.get("note") else ""
        raise AssertionError(f"verdict against {against} is {cmp['verdict']}{why}, expected "
                             f"{' or '.join(verdicts)}: {', '.join(worst)}")


def judged_from_trials(comparisons: dict, name: str, against: str) -> None:
    """Every compared latency percentile and throughput was judged from the spread between trials."""
    cmp = _comparison(comparisons, name, against)
    within = [f"{figure}: {m['basis']}" for figure, m in cmp["metrics"].items()
              if figure in trials.FIGURES and not m["basis"].startswith("between-trial")]
    if within or not cmp["metrics"]:
        raise AssertionError(f"load run '{name}' against {against}: not judged from trials: "
                             f"{'; '.join(within) or 'no figure compared'}")


def throughput_grows(points: list[dict]) -> None:
    """Several users served more requests per second than one, and every rate point that ran reached its rate."""
    sync, top = (p["summary"]["throughput"]["window"]["request_throughput"] for p in points[:2])
    if not top > sync:
        raise AssertionError(f"{points[1]['profile'].get('users')} users served {top:.2f} req/s, "
                             f"not more than one user's {sync:.2f} req/s")
    short = [f"{p['load']:.2f}/s achieved {p['summary']['throughput']['achieved_rate']:.2f}/s"
             for p in points[2:] if p.get("summary") and p["summary"]["flags"]["rate_shortfall"]["set"]]
    if short:
        raise AssertionError(f"rate points fell short of their targets: {', '.join(short)}")


def capacity_found(result: dict, points: list[dict]) -> float:
    """The capacity the search found (a load meeting the SLO); fails with the misses when there is none."""
    value = result.get("capacity")
    if value is None:
        misses = next((p["violations"] for p in points if not p["meets"]), [])
        raise AssertionError(f"no load from {result.get('bracket')} met the SLO: {'; '.join(misses)}")
    return value


def used_workers(workers: list[dict], measured: list, name: str, count: int) -> None:
    """``count`` workers sent requests, each at least one, and each has a measured clock offset."""
    if len(workers) != count:
        raise AssertionError(f"load run '{name}' used {len(workers)} workers, expected {count}")
    sent = {w.get("id"): 0 for w in workers}
    for r in measured:
        sent[r.worker] = sent.get(r.worker, 0) + 1
    idle = [w for w, n in sent.items() if not n]
    if idle:
        raise AssertionError(f"worker(s) {idle} sent no request: {sent}")
    unmeasured = [w.get("id") for w in workers if w.get("offset_s") is None]
    if unmeasured:
        raise AssertionError(f"worker(s) {unmeasured} have no measured clock offset")


def answers_unchanged(summary: dict, name: str) -> int:
    """The requests sent again alone answered what they answered under load; returns how many were compared."""
    check = (summary.get("answers") or {}).get("check")
    if not check:
        raise ValueError(f"load run '{name}' sent no answer again: give check_answers=${{K}}")
    if check["skipped"] or not check["checked"]:
        raise AssertionError(f"load run '{name}': no answer compared: "
                             f"{check['skipped'] or '; '.join(check['errors'])}")
    if check["changed"]:
        texts = "; ".join(f"request {c['index']}: under load {c['under_load']!r}, alone {c['alone']!r}"
                          for c in check["changed"][:5])
        raise AssertionError(f"answer_changed_under_load: {len(check['changed'])} of {check['checked']} answers "
                             f"differ when sent again alone: {texts}")
    return check["checked"]


def counters_agree(summary: dict, name: str) -> None:
    """``/metrics`` token counters moved by exactly the tokens the client counted."""
    counters = (summary.get("answers") or {}).get("counters") or {}
    if not counters.get("judged"):
        raise AssertionError(f"load run '{name}': counters not compared: {counters.get('reason')}")
    wrong = [f"{r['counter']} moved by {r['server']:g}, the client counted {r['client']:g}"
             for r in counters["rows"] if not r["agree"]]
    if wrong:
        raise AssertionError(f"load run '{name}': " + "; ".join(wrong))


def server_series_agree(summary: dict, name: str) -> int:
    """The run kept the server's own series, about one sample a second over its window (plus the baseline and
    the sample after the drain), and the ``server_disagrees`` flag is clear; returns the number of samples."""
    block = summary.get("server_series") or {}
    series = block.get("series")
    if not series:
        raise AssertionError(f"load run '{name}' has no server series: {block.get('reason') or 'no server_series'}")
    w0, w1 = summary.get("window") or (0.0, 0.0)
    wanted = int(w1 - w0)  # one a second over the window: the floor of its length in seconds
    if len(series["t"]) < wanted:
        raise AssertionError(f"load run '{name}': {len(series['t'])} server samples over a {w1 - w0:.1f} s window, "
                             f"expected at least {wanted} (one a second)")
    flag = (summary.get("flags") or {}).get("server_disagrees") or {}
    if flag.get("set"):
        judge(summary, name, f"load run '{name}': the server's series and the client disagree: {flag['detail']}")
    return len(series["t"])


def resources_steady(summary: dict, name: str) -> str:
    """The server's RSS, open files and threads do not grow with the requests served; returns the description."""
    report = summary.get("resources")
    if not report:
        raise ValueError(f"load run '{name}' did not sample the server: give sample_server=${{True}}")
    text = soak.describe_leaks(report)
    if not report.get("judged"):
        raise AssertionError(f"load run '{name}': {text}")
    if any(report[resource]["grows"] for resource in soak.RESOURCES):
        raise AssertionError(f"load run '{name}': the server's resources grow with the load: {text}")
    return text


def recovered_from_disconnects(out: dict, idle_within: float) -> None:
    """After half the streams were hung up at once: the others ended normally, the slots went idle within
    ``idle_within`` seconds, and the later requests succeeded."""
    problems = []
    if out["statuses"] != [200] * out["streams"]:
        problems.append(f"statuses {out['statuses']}")
    if out["finished_ok"] != out["streams"] - out["hung_up"]:
        problems.append(f"{out['finished_ok']} of the {out['streams'] - out['hung_up']} streams left open ended "
                        "normally")
    if out["idle_after_s"] is None:
        problems.append(f"slots still processing {idle_within} s after the last open answer ended")
    if out["followup_ok"] != out["followup"]:
        problems.append(f"{out['followup_ok']} of {out['followup']} later requests succeeded: "
                        f"{out['followup_errors']}")
    if problems:
        raise AssertionError("after hanging up half the streams at once: " + "; ".join(problems))


def slo_from_calibration(summary: dict, name: str, factor: float, floor_ms: float,
                         error_rate_max: float) -> dict[str, float]:
    """Limits from a single-user run: ``ttft_p95_ms`` and ``tpot_p95_ms`` are ``factor`` × its p50 plus
    ``floor_ms``, and ``error_rate_max``."""
    slo = {"error_rate_max": float(error_rate_max)}
    for metric in ("ttft", "tpot"):
        p50 = (summary.get("metrics", {}).get(f"{metric}_ms") or {}).get("p50")
        if p50 is None:
            raise AssertionError(f"calibration run '{name}' has no {metric} p50: "
                                 "it needs successful requests of at least two output tokens")
        slo[f"{metric}_p95_ms"] = round(factor * p50 + floor_ms, 1)
    return slo


def workers_spread(workers: list[dict], name: str, nodes: int) -> None:
    """The workers ran on ``nodes`` different Ray nodes, none was lost, and each sent exactly the requests its
    share of the profile scheduled (open loop; a closed loop has no schedule to compare with)."""
    lost = [w.get("id") for w in workers if w.get("lost")]
    if lost:
        raise AssertionError(f"load run '{name}' lost worker(s) {lost}")
    seen = {w.get("node_id") for w in workers}
    if None in seen or len(seen) != nodes:
        where = {w.get("id"): w.get("node_id") for w in workers}
        raise AssertionError(f"load run '{name}' ran its workers on {len(seen - {None})} node(s), expected {nodes}: "
                             f"{where}")
    short = [f"worker {w['id']} sent {w['requests']} of {w['scheduled']}" for w in workers
             if w.get("scheduled") is not None and w["requests"] != w["scheduled"]]
    if short:
        raise AssertionError(f"load run '{name}': not every worker sent its share: {'; '.join(short)}")


def worker_lost(summary: dict, workers: list[dict], name: str, worker: int) -> dict:
    """Worker ``worker`` (only) was lost, the ``worker_lost`` flag says so, and the run counts the requests of the
    workers that finished, no more: every request the lost one was scheduled to send is missing, and no more
    than those were reported sent before it died. Returns the lost worker's entry."""
    flag = (summary.get("flags") or {}).get("worker_lost") or {}
    if not flag.get("set"):
        raise AssertionError(f"load run '{name}': worker_lost is not set ({flag.get('detail', 'no such flag')})")
    lost = [w for w in workers if w.get("lost")]
    if [w["id"] for w in lost] != [worker]:
        raise AssertionError(f"load run '{name}' lost worker(s) {[w['id'] for w in lost]}, expected [{worker}]")
    entry = lost[0]
    if entry["scheduled"] is not None and not entry["sent"] <= entry["scheduled"] == entry["answers_missing"]:
        raise AssertionError(f"load run '{name}': lost worker {worker} sent {entry['sent']}, scheduled "
                             f"{entry['scheduled']}, {entry['answers_missing']} answers missing")
    kept = sum(w["requests"] for w in workers if not w.get("lost"))
    counted = (summary.get("counts") or {}).get("attempted", 0) + (summary.get("counts") or {}).get("warmup", 0)
    if counted != kept:
        raise AssertionError(f"load run '{name}' counts {counted} requests, its surviving workers sent {kept}")
    return entry
