"""Checks of a workload run: what the server must have done for each kind of workload. Each returns the list
of problems (empty when the run is right), every one naming the request and its figures.

- ``history_reuse_problems``: each later turn of a conversation reused at least the previous turn's prompt
  from the prompt cache (llama-server's README, ``cache_prompt``: "Re-use KV cache from a previous request
  if possible. This way the common prefix does not have to be re-processed").
- ``prefix_reuse_problems``: with a shared system prompt, at most one request per slot missed it.
- ``trace_problems``: every replayed request had exactly its row's prompt and output tokens.
- ``inputs_problems``: an embeddings or rerank route's throughput counts every input of every request.
"""

from __future__ import annotations

from llamatest.load.engine.record import RunRecord

# How many examples a problem list shows.
EXAMPLES = 5


def history_reuse_problems(run: RunRecord, measured: dict, slack: int = 0) -> list[str]:
    """Turn t (t >= 1) of every session whose turn t-1 succeeded: cached tokens >= prompt tokens of turn t-1
    minus ``slack`` (tokens the recorded answer may merge with across the boundary)."""
    prompt = {(r.session, r.turn): measured[r.index][0]["n_in"] for r in run.requests if r.ok and r.turn is not None}
    problems = []
    checked = 0
    for r in run.measured:
        before = prompt.get((r.session, (r.turn or 0) - 1))
        if not r.ok or not r.turn or before is None:
            continue
        checked += 1
        cached = measured[r.index][0]["n_cached"]
        if cached is None or cached < before - slack:
            problems.append(f"session {r.session} turn {r.turn}: {cached} cached tokens, the previous turn's prompt "
                            f"was {before} tokens")
    if not checked:
        return ["no later turn to check: the run needs sessions of 2 turns or more that succeeded"]
    return _summed(problems, checked, "later turns")


def prefix_reuse_problems(run: RunRecord, measured: dict, prefix_tokens: int, slots: int) -> list[str]:
    """At most ``slots`` measured requests (the first on each slot) cached fewer than ``prefix_tokens``."""
    ok = [r for r in run.measured if r.ok]
    missed = [(r.index, measured[r.index][0]["n_cached"]) for r in ok
              if (measured[r.index][0]["n_cached"] or 0) < prefix_tokens]
    if not ok:
        return ["no request succeeded"]
    if len(missed) <= slots:
        return []
    shown = ", ".join(f"request {i}: {c}" for i, c in missed[:EXAMPLES])
    return [f"{len(missed)} of {len(ok)} requests cached fewer than the {prefix_tokens} tokens of the shared prefix "
            f"(at most {slots}, one per slot, may miss): {shown}"]


def trace_problems(run: RunRecord, measured: dict) -> list[str]:
    problems = []
    rows = [r for r in run.measured if r.n_prompt_expected is not None]
    for r in rows:
        m = measured[r.index][0]
        if not r.ok:
            problems.append(f"request {r.index}: {r.error} ({r.error_detail})")
        elif (m["n_in"], m["n_out"]) != (r.n_prompt_expected, r.n_requested):
            problems.append(f"request {r.index}: {m['n_in']} prompt and {m['n_out']} output tokens, the trace row "
                            f"asked for {r.n_prompt_expected} and {r.n_requested}")
    if not rows:
        return ["no replayed request: the run has no trace rows"]
    return _summed(problems, len(rows), "trace rows")


def inputs_problems(summary: dict, route: str, inputs: int) -> list[str]:
    """``route`` answered every request, and its inputs/s is ``inputs`` x its requests/s (no TTFT)."""
    block = ((summary.get("workload") or {}).get("routes") or {}).get(route)
    if block is None:
        return [f"the run sent nothing to {route}"]
    problems = []
    if block["succeeded"] != block["attempted"] or not block["attempted"]:
        problems.append(f"{route}: {block['succeeded']} of {block['attempted']} requests answered "
                        f"({block['errors_by_class']})")
    rps, ips = block.get("requests_per_s"), block.get("inputs_per_s")
    if rps is None or ips is None or abs(ips - inputs * rps) > 1e-9 * max(1.0, ips):
        problems.append(f"{route}: {ips} inputs/s for {rps} requests/s of {inputs} inputs")
    if "ttft_ms_p50" in block:
        problems.append(f"{route} answers in one body: it has no TTFT, yet one was reported")
    return problems


def _summed(problems: list[str], checked: int, what: str) -> list[str]:
    if not problems:
        return []
    head = f"{len(problems)} of {checked} {what} are wrong"
    return [head + ": " + "; ".join(problems[:EXAMPLES]) + ("; ..." if len(problems) > EXAMPLES else "")]


def turn_table(summary: dict) -> str:
    """Per turn: requests, TTFT p50, mean prompt and cached tokens, cached ratio (plain text, one line each)."""
    rows = (summary.get("workload") or {}).get("turns") or []
    lines = ["turn  requests  ttft_p50_ms  prompt_tokens  cached_tokens  cached_ratio"]
    for t in rows:
        lines.append(f"{t['turn'] + 1:>4}  {t['requests']:>8}  {_f(t['ttft_ms_p50'], 1):>11}  "
                     f"{_f(t['prompt_tokens_mean'], 1):>13}  {_f(t['cached_tokens_mean'], 1):>13}  "
                     f"{_f(t['cached_ratio'], 3):>12}")
    return "\n".join(lines)


def _f(x: float | None, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"
