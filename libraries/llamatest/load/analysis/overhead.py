"""The latency a server adds outside its own accounting, on every load run (``summary["overhead"]`` and the
``server_overhead`` flag): the smoke's single-user check, at whatever load the run puts on the server.

Per successful measured request, ``overhead_ttft`` is the client's TTFT minus the server's ``timings.prompt_ms``
and ``overhead_decode`` its TPOT minus ``predicted_ms / predicted_n`` (``metrics.request_metrics``). On loopback
both are the HTTP layer and SSE framing: milliseconds, whatever the model. Two things a busy server does by
design are kept out of the check, so that what is left is latency the server adds only when busy:

- a request that had to wait for a slot (the client had more requests in flight than the server has slots when
  it was sent) waits outside ``prompt_ms``: its TTFT overhead is not judged (counted under ``queued``);
- a request that arrives while other slots decode waits for the step under way before its prompt is
  processed: its TTFT limit grows by one step, the p95 of the server's own time per generated token
  (``predicted_ms / predicted_n``) in the run.

The limits are the smoke's (``resources/load.resource``: 50 ms at p95 for TTFT, 2 ms for decode).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llamatest.load.analysis.metrics import intervals_of, telemetry_values
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
        in_flight = np.searchsorted(starts, r.t_dispatched, side="right") - np.searchsorted(ends, r.t_dispatched,
                                                                                             side="right")
        out.append(bool(in_flight <= slots))
    return out


def overhead_block(run: RunRecord, mets: list[dict], ttft_ms: float = TTFT_P95_MS,
                   decode_ms: float = DECODE_P95_MS) -> dict[str, Any]:
    """``{"ttft": {...}, "decode": {...}, "slots", "exceeded": [what]}``; ``mets`` are the ``request_metrics``
    of ``run.measured`` in order."""
    reqs = run.measured
    slots = slot_count(run)
    free = unqueued(reqs, slots)
    ok = [(m, f) for r, m, f in zip(reqs, mets, free, strict=True) if r.ok]
    step = _p95([m["server_predicted_ms"] / m["n_out"] for m, _ in ok if m["server_predicted_ms"] and m["n_out"]])
    ttft_limit = ttft_ms + (step or 0.0)
    ttft = [m["overhead_ttft"] for m, f in ok if f and m["overhead_ttft"] is not None]
    decode = [m["overhead_decode"] for m, _ in ok if m["overhead_decode"] is not None]
    block = {"slots": slots,
             "ttft": {"n": len(ttft), "p95_ms": _p95(ttft), "limit_ms": round(ttft_limit, 3),
                      "step_ms": step, "queued": sum(1 for _, f in ok if not f)},
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

    detail = (said(t, "TTFT - prompt_ms") + f" of the requests sent with a slot free ({t['queued']} queued for a "
              f"slot not judged; the limit includes one step, {t['step_ms'] or 0:.2f} ms); "
              + said(d, "TPOT - predicted_ms / predicted_n"))
    return bool(block["exceeded"]), detail
