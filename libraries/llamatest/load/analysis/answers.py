"""Answers stay right under load: the checks that a loaded server still answers what it answers alone.

- ``answer_check``: a seeded sample of the run's successful requests is sent again, one at a time, after the
  run, with the same body (temperature 0, same seed), and the texts compared. A difference is
  ``answer_changed_under_load``, reported per request with both texts: batch-dependent bugs only show when
  several sequences share a batch. It needs the run's texts (``Target.keep_text``) and a greedy run.
- ``stream_problems``: every successful answer was a valid stream: ``[DONE]`` at the end on the OpenAI chat and
  completion routes, and only valid UTF-8.
- ``counter_agreement``: the server's ``/metrics`` counters moved by exactly the tokens the client counted
  (``tokens_predicted_total`` against the sum of output tokens; ``prompt_tokens_total`` against the prompt
  tokens not taken from the cache). Judged only when every request of the run succeeded: a cut request may
  have generated tokens the client never saw counted.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from llamatest import deadlines
from llamatest.load.analysis import judge
from llamatest.load.analysis.metrics import answered, request_metrics, server_block
from llamatest.load.analysis.validity import _flag
from llamatest.load.engine.profiles import Profile
from llamatest.load.engine.record import RequestRecord, RunRecord

# Routes whose stream ends with [DONE] (the Responses and Anthropic streams end with their own events).
DONE_ROUTES = ("/v1/chat/completions", "/v1/completions")
TEXT_CHARS = 2000  # each text reported in a mismatch is cut to this


def pick(run: RunRecord, k: int, seed: int = 0) -> list[RequestRecord]:
    """Up to ``k`` measured successful requests that kept their text, sampled with ``seed`` (index order)."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise ValueError(f"k must be an int >= 0 (requests to send again); got {k!r}")
    ok = [r for r in run.measured if r.ok and r.text is not None]
    chosen = random.Random(seed).sample(ok, min(k, len(ok)))
    return sorted(chosen, key=lambda r: r.index)


def not_greedy(body: dict[str, Any]) -> str | None:
    """Why a body's answer cannot be expected to repeat (None when it can)."""
    temperature = body.get("temperature", None)
    if temperature != 0:
        return f"the run's temperature is {temperature!r}, not 0: answers may differ by design"
    return None


def answer_check(target, run: RunRecord, body_for: Callable[[int], dict], k: int, *, seed: int = 0) -> dict:
    """Sends ``k`` sampled requests of ``run`` again, alone, and compares the texts.

    Returns ``{"checked": n, "changed": [{"index", "request_id", "under_load", "alone", "judge"}], "errors": [...],
    "skipped": reason or None, "judge_skipped": reason or None}``: ``errors`` lists the replays that failed (no
    text to compare); ``judge`` (`judge.judge`) says which side is the reference's argmax chain, when the model
    is one the project generates (else ``judge_skipped`` says why no change was judged).
    """
    from llamatest.load.engine.pacing import run_load_sync  # the engine pulls aiohttp: only when a check runs

    chosen = pick(run, k, seed)
    out: dict[str, Any] = {"checked": 0, "changed": [], "errors": [], "skipped": None, "seed": seed}
    if not chosen:
        out["skipped"] = "no successful request kept its text (Target.keep_text) to compare"
        return out
    why = not_greedy(body_for(chosen[0].index))
    if why:
        out["skipped"] = why
        return out
    profile = Profile("synchronous", max_requests=len(chosen), duration_s=deadlines.deadline("replay"),
                      drain_timeout_s=0)
    # No server series: the replay is a text comparison, never summarized; the load run it checks has its own.
    alone = run_load_sync(replace(target, keep_text=True), profile, lambda j: body_for(chosen[j].index),
                          telemetry=False)
    cases = []
    for original, again in zip(chosen, alone.requests, strict=False):
        if not again.ok or again.text is None:
            out["errors"].append(f"request {original.index}: the replay failed ({again.error}: "
                                 f"{again.error_detail})")
            continue
        out["checked"] += 1
        if again.text != original.text:
            out["changed"].append({"index": original.index, "request_id": original.request_id,
                                   "under_load": original.text[:TEXT_CHARS], "alone": again.text[:TEXT_CHARS]})
            cases.append((body_for(original.index), original.text, again.text, _n_tokens(original, again)))
    out["judge_skipped"], entries = judge.judge_changes(target, cases)
    for change, entry in zip(out["changed"], entries, strict=False):
        change["judge"] = entry
    return out


def _n_tokens(*records: RequestRecord) -> int | None:
    """The tokens of the longer answer (the server's count; else what was asked for)."""
    counts = [request_metrics(r)["n_out"] or r.n_requested for r in records]
    return max((c for c in counts if c), default=None)


def stream_problems(run: RunRecord) -> list[str]:
    """One line per successful request whose stream was not valid: no ``[DONE]`` on an OpenAI route, or lines
    that were not UTF-8."""
    problems = []
    for r in run.requests:
        if not r.ok:
            continue
        if r.route in DONE_ROUTES and not any(e.kind == "done" for e in r.events):
            problems.append(f"request {r.index} ({r.request_id}): the stream ended without [DONE]")
        if r.invalid_utf8_lines:
            problems.append(f"request {r.index} ({r.request_id}): {r.invalid_utf8_lines} line(s) were not "
                            "valid UTF-8")
    return problems


def counter_agreement(run: RunRecord) -> dict[str, Any]:
    """The server's token counters against the client's counts, over the whole run (warmup included).

    ``{"judged": bool, "reason": why not, "rows": [{"counter", "server", "client", "agree"}]}``. The
    counters' baseline is the first ``/metrics`` scrape, taken before any request was sent.
    """
    sent = [r for r in run.requests if r.t_dispatched is not None]  # a dropped request never reached the server
    if not sent or not all(r.ok for r in sent):
        return {"judged": False, "reason": "not every request sent succeeded (a cut request may have generated "
                "tokens the client did not count)", "rows": []}
    t_first = min(r.t_dispatched for r in sent)
    block = server_block(run, (t_first, 0.0))
    first_t = min((answered(s) for s in run.telemetry if isinstance(s, dict)), default=None)
    if first_t is None or first_t > t_first:
        return {"judged": False, "reason": "no /metrics scrape answered before the first request", "rows": []}
    per = [request_metrics(r) for r in sent]
    if any(m["n_out"] is None or m["n_in"] is None for m in per):
        return {"judged": False, "reason": "a request has no server token count (usage or timings)", "rows": []}
    client = {"tokens_predicted_delta": sum(m["n_out"] for m in per),
              "prompt_tokens_delta": sum(m["n_in"] - (m["n_cached"] or 0) for m in per)}
    rows = []
    for counter, count in client.items():
        if counter in block:
            rows.append({"counter": counter.replace("_delta", "_total"), "server": block[counter], "client": count,
                         "agree": block[counter] == count})
    if not rows:
        return {"judged": False, "reason": "the server's /metrics has no token counters (start it with --metrics)",
                "rows": []}
    return {"judged": True, "reason": None, "rows": rows}


FLAGS = ("answer_changed_under_load", "invalid_stream", "counter_mismatch")


def assess(run: RunRecord, check: dict | None = None) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``(summary["answers"], the three flags)`` from the stream and counter checks of ``run`` and an
    ``answer_check`` result (None when no answer was sent again)."""
    problems = stream_problems(run)
    counters = counter_agreement(run)
    block = {"check": check, "stream_problems": problems, "counters": counters}
    changed = (check or {}).get("changed") or []
    counter_rows = [f"{r['counter']} moved by {r['server']:g}, the client counted {r['client']:g}"
                    for r in counters["rows"] if not r["agree"]]
    flags = {
        "answer_changed_under_load": _flag(bool(changed), _changed(check) if changed else _checked(check)),
        "invalid_stream": _flag(bool(problems), "; ".join(problems[:5]) + (" …" if len(problems) > 5 else "")
                                if problems else "every successful answer was a valid stream"),
        "counter_mismatch": _flag(bool(counter_rows), "; ".join(counter_rows) if counter_rows else (
            "the server's token counters agree with the client's counts" if counters["judged"]
            else f"not judged: {counters['reason']}")),
    }
    return block, flags


def _changed(check: dict) -> str:
    """The flag's detail: the changed requests, each with the reference's verdict when it judged them."""
    changed = check["changed"]
    said = [f"request {c['index']}: {judge.verdict(c['judge'])}" for c in changed[:10] if "judge" in c]
    why = check.get("judge_skipped")
    judged = f"; the reference: {'; '.join(said)}" if said else f"; not judged by the reference: {why}" if why else ""
    return (f"{len(changed)} of {check['checked']} answers differ when sent again alone: requests "
            + ", ".join(str(c["index"]) for c in changed[:10]) + judged)


def _checked(check: dict | None) -> str:
    if check is None:
        return "not checked (no answer was sent again)"
    if check["skipped"]:
        return f"not checked: {check['skipped']}"
    return f"{check['checked']} answers sent again alone were the same"
