"""The verdict on the noise sent beside a load run (``engine.hostile``'s record): pure, from plain data.

The noise passes when every hostile request got its documented outcome (``workloads.noise.EXPECTED``: the status
and error type the pinned server gives, or the client's own hang-up), the server answered ``GET /health`` with 200
afterwards, and the sink counted exactly one fetch per media request the server answered. What the measured
traffic went through beside the noise is judged by the run's own checks (its SLO, its answers), not here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from llamatest.load.analysis import verdicts
from llamatest.load.workloads.noise import EXPECTED, GAVE_UP, MEDIA_KINDS

# Flags that compare the server's own counters with the client's count of the measured requests: the server counts the
# noise's requests and tokens too (a media chat, a dropped stream), so beside noise they say nothing about the server.
# server_overhead judges the TTFT of requests sent with a slot free by the client's count: a noise request may hold it.
SPOILED_FLAGS = ("counter_mismatch", "server_disagrees", "server_overhead")


def set_aside_spoiled_flags(summary: dict[str, Any]) -> list[str]:
    """Clears the `SPOILED_FLAGS` set in a summary of a run with noise, each keeping its figures in its detail;
    returns their names."""
    cleared = []
    for name in SPOILED_FLAGS:
        flag = (summary.get("flags") or {}).get(name)
        if flag and flag.get("set"):
            summary["flags"][name] = {**flag, "set": False, "detail": "not judged beside noise (the server counts "
                                      f"the noise's requests and tokens too): {flag.get('detail', '')}"}
            cleared.append(name)
    return cleared


def label(outcome: dict[str, Any]) -> str:
    """What one request got, in words: ``401 authentication_error``, ``200, then dropped_by_client``,
    ``client_gave_up``, ``transport_error``…"""
    if outcome["status"] is None:
        return outcome["outcome"]
    head = f"{outcome['status']} {outcome['error_type'] or '(no error object)'}"
    return head if outcome["outcome"] == "answered" else f"{head}, then {outcome['outcome']}"


def as_documented(outcome: dict[str, Any]) -> bool:
    """The request got what its kind's `EXPECTED` says."""
    expected = EXPECTED[outcome["kind"]]
    if outcome["outcome"] != expected.outcome:
        return False
    return expected.outcome == GAVE_UP or (outcome["status"], outcome["error_type"]) == (expected.status,
                                                                                           expected.error_type)


def verdict(record: dict[str, Any]) -> dict[str, Any]:
    """``{"ok", "problems", "kinds": {kind: {sent, as_documented, expected, got}}, "skipped", "health_status",
    "fetches": {"asked", "counted"}}`` of a noise record."""
    outcomes = record.get("outcomes") or []
    problems = []
    kinds: dict[str, dict[str, Any]] = {}
    for o in outcomes:
        row = kinds.setdefault(o["kind"], {"sent": 0, "as_documented": 0, "expected": EXPECTED[o["kind"]].describe(),
                                           "got": Counter()})
        row["sent"] += 1
        row["got"][label(o)] += 1
        if as_documented(o):
            row["as_documented"] += 1
        else:
            problems.append(f"{o['kind']} at {o['t']:g} s got {label(o)}, documented: {row['expected']}"
                            + (f" ({o['detail'] or o['message']})" if o["detail"] or o["message"] else ""))
    if not outcomes:
        problems.append("no noise request was sent (every kind skipped, or a rate too low for the duration)")
    health = record.get("health_status")
    if health != 200:
        problems.append(f"GET /health after the noise answered {health if health is not None else 'nothing'}, not 200")
    asked = sum(1 for o in outcomes if o["kind"] in MEDIA_KINDS and o["status"] is not None)
    counted = int(record.get("fetched") or 0)
    if asked != counted:
        problems.append(f"the server was asked to fetch {asked} media URL(s) and the sink counted {counted} fetch(es)")
    for row in kinds.values():
        row["got"] = dict(row["got"])
    return {"ok": not problems, "problems": problems, "kinds": kinds, "skipped": dict(record.get("skipped") or {}),
            "health_status": health, "fetches": {"asked": asked, "counted": counted}, "spec": record.get("spec")}


def lines(block: dict[str, Any]) -> list[str]:
    """The verdict as text: one line per kind sent or skipped, then the health, the fetches and the problems."""
    out = [f"noise: {'as documented' if block['ok'] else 'NOT as documented'}"]
    for kind, row in block["kinds"].items():
        got = ", ".join(f"{n} × {what}" for what, n in row["got"].items())
        out.append(f"  {kind}: {row['as_documented']}/{row['sent']} as documented ({row['expected']}); got {got}")
    out += [f"  {kind}: skipped, {reason}" for kind, reason in block["skipped"].items()]
    out.append(f"  /health afterwards: {block['health_status']}; media fetches asked {block['fetches']['asked']}, "
               f"counted by the sink {block['fetches']['counted']}")
    out += [f"  problem: {p}" for p in block["problems"]]
    return out


def skipped_exactly(summary: dict, name: str, kinds: tuple[str, ...]) -> dict[str, str]:
    """Fails unless the run's noise skipped exactly ``kinds``; returns each skipped kind's reason."""
    skipped = (summary.get("noise") or {}).get("skipped", {})
    if sorted(skipped) != sorted(kinds):
        reasons = "; ".join(f"{k}: {r}" for k, r in skipped.items())
        raise AssertionError(f"load run '{name}': the noise skipped {', '.join(sorted(skipped)) or 'no kind'}, not "
                             f"{', '.join(sorted(kinds)) or 'no kind'} ({reasons})")
    return skipped


def noise_as_documented(summary: dict, name: str) -> dict[str, Any]:
    """Fails with the problems unless the run's noise verdict holds; returns the verdict. A run whose only problems
    are noise requests left without an answer beside a machine-side validity flag is not judged."""
    block = summary.get("noise")
    if block is None:
        raise AssertionError(f"load run '{name}' sent no noise: give noise=… (e.g. noise=rate=2) to Run Load Profile")
    if block["ok"]:
        return block
    message = f"load run '{name}': the noise beside it was not answered as documented: " + "; ".join(block["problems"])
    if all(" got no_answer" in p for p in block["problems"]):
        verdicts.judge(summary, name, message)
    raise AssertionError(message)
