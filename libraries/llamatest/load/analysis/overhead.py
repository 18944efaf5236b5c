"""The latency a server adds outside its own accounting, on every load run (``summary["overhead"]`` and the
``server_overhead`` flag): the smoke's single-user check, at whatever load the run puts on the server.

Per successful measured request, ``overhead_ttft`` is the client's TTFT minus the server's ``timings.prompt_ms``
and ``overhead_decode`` its TPOT minus the server's own time per generated token
(``timings.predicted_per_token_ms``; ``metrics.request_metrics``). On loopback both are the HTTP layer and SSE
framing: milliseconds, whatever the model. Two waits a busy server imposes by design are taken out, so that what
is left is latency the server adds only when busy:

- a request that had to wait for a slot (the client had more requests in flight than the server has slots when
  it was sent) waits outside ``prompt_ms`` for as long as other requests hold the slots: its TTFT overhead is not
  judged (counted under ``queued``);
- a request that arrives while the server runs a step for other slots (a decode, or another request's prompt:
  a second or more on a slow machine) starts its prompt when that step ends, which the next token of another
  stream marks: that wait (``step_wait``) is taken out of its TTFT overhead, up to the longest step the server's
  own timings give one of the requests then in flight (its ``prompt_ms``, or its time per token), so that a
  token held back on its way to the client (a proxy) does not pass for a step.

The limits are the smoke's (``resources/load.resource``: 50 ms at p95 for TTFT, 2 ms for decode).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llamatest.load.analysis.metrics import end_of, intervals_of, telemetry_values
from llamatest.load.engine.record import RequestRecord, RunRecord

TTFT_P95_MS = 50.0
DECODE_P95_MS = 2.0


def _p95(values: list[float]) -> float | None:
    return float(np.percentile(values, 95, method="linear")) if values else None


def slot_count(run: RunRecord) -> int | None:
    """The server's slots: from ``/slots`` when it was scraped, else what the caller put in ``run.meta``."""
    for s in run.telemetry:
        if isinstance(s, dict) and s.get("slots"):
            return int(telemetry_values({"slots": s["slots"]})["slots_count"])
    total = (run.meta or {}).get("total_slots")
    return int(total) if total else None


def unqueued(reqs: list[RequestRecord], slots: int | None) -> list[bool]:
    """For each request, whether a slot was free when it was sent: the client had at most ``slots`` requests in
    flight then, itself included (the server frees a slot before the client sees the stream end). With no slot
    count, none is (their TTFT overhead is then not judged)."""
    if slots is None:
        return [False] * len(reqs)
    spans = intervals_of(reqs)
    starts = np.sort([a for a, _ in spans])
    ends = np.sort([b for _, b in spans])
    out = []
    for r in reqs:
        if r.t_dispatched is None:
            out.append(False)
            continue
        x = r.t_dispatched
        out.append(bool(np.searchsorted(starts, x, side="right") - np.searchsorted(ends, x, side="right") <= slots))
    return out


def _server_step_ms(m: dict) -> float:
    """The longest step a request can have made others wait for, by the server's own timings: its prompt, or one
    of its decode steps (TPOT less the decode overhead is the server's time per token)."""
    per_token = m["tpot"] - m["overhead_decode"] if m["tpot"] is not None and m["overhead_decode"] is not None else 0
    return max(m["server_prompt_ms"] or 0.0, per_token)


def step_waits(reqs: list[RequestRecord], mets: list[dict]) -> list[float]:
    """For each request (ms), from its sending to the next token of another stream, when that came before its own
    first token (the end of the step under way when it arrived), at most the longest step the server says one of
    the requests then in flight took: a token held back on its way (a proxy) is not a step. 0 when none came."""
    arrivals = sorted((e.t, r.index) for r in reqs for e in r.token_events)
    times = np.asarray([t for t, _ in arrivals], dtype=float)
    # each request's span in flight (NaN where unknown: never in flight) and step, once: a run has thousands
    steps = np.asarray([_server_step_ms(m) for m in mets], dtype=float)
    starts = np.asarray([np.nan if r.t_dispatched is None else r.t_dispatched for r in reqs], dtype=float)
    ends = np.asarray([np.nan if (finish := end_of(r)) is None else finish for r in reqs], dtype=float)
    out = []
    for i, r in enumerate(reqs):
        tokens = r.token_events
        if r.t_dispatched is None or not tokens:
            out.append(0.0)
            continue
        x = r.t_dispatched
        j = int(np.searchsorted(times, x))
        while j < len(arrivals) and arrivals[j][1] == r.index:
            j += 1
        end = arrivals[j][0] if j < len(arrivals) and arrivals[j][0] < tokens[0].t else x
        held = (starts <= x) & (x <= ends)  # the others in flight when it was sent
        held[i] = False
        longest = float(steps[held].max()) if held.any() else 0.0
        out.append(min((end - x) * 1000.0, longest))
    return out


def overhead_block(run: RunRecord, mets: list[dict], ttft_ms: float = TTFT_P95_MS,
                   decode_ms: float = DECODE_P95_MS) -> dict[str, Any]:
    """``{"slots", "ttft": {...}, "decode": {...}, "exceeded": [what]}``; ``mets`` are the ``request_metrics``
    of ``run.measured`` in order."""
    reqs = run.measured
    slots = slot_count(run)
    rows = [(m, free, wait) for r, m, free, wait in zip(reqs, mets, unqueued(reqs, slots), step_waits(reqs, mets),
                                                          strict=True) if r.ok]
    ttft = [m["overhead_ttft"] - wait for m, free, wait in rows if free and m["overhead_ttft"] is not None]
    decode = [m["overhead_decode"] for m, _, _ in rows if m["overhead_decode"] is not None]
    waits = [wait for _, free, wait in rows if free]
    block = {"slots": slots,
             "ttft": {"n": len(ttft), "p95_ms": _p95(ttft), "limit_ms": ttft_ms, "queued": sum(1 for r in rows
                                                                                                if not r[1]),
                      "step_wait_p95_ms": _p95(waits)},
             "decode": {"n": len(decode), "p95_ms": _p95(decode), "limit_ms": decode_ms}}
    block["exceeded"] = [name for name in ("ttft", "decode")
                         if block[name]["p95_ms"] is not None and block[name]["p95_ms"] > block[name]["limit_ms"]]
    return block


def flag_detail(block: dict[str, Any]) -> tuple[bool, str]:
    """``(set, detail)`` of the ``server_overhead`` flag from an `overhead_block`."""
    t, d = block["ttft"], block["decode"]
    if not t["n"] and not d["n"]:
        why = "no slot count (no /slots, no props)" if block["slots"] is None else "no request with server timings"
        return False, f"not judged: {why}"

    def said(x: dict, what: str) -> str:
        value = "–" if x["p95_ms"] is None else f"{x['p95_ms']:.2f}"
        return f"{what} p95 {value} ms (limit {x['limit_ms']:g} ms, n={x['n']})"

    wait = t["step_wait_p95_ms"]
    detail = (said(t, "TTFT - prompt_ms - the step under way") + f" of the requests sent with a slot free "
              f"({t['queued']} queued for a slot not judged; step waits p95 {0.0 if wait is None else wait:.2f} "
              f"ms); " + said(d, "TPOT - predicted_per_token_ms"))
    return bool(block["exceeded"]), detail
