"""The log block of a fuzz run: one summary line and one table, a row per kind of answer."""

from __future__ import annotations

from llamatest.fuzz.run import FuzzSummary, Outcome
from llamatest.htmllog import details, table

COLUMNS = ["answer", "requests", "first request (index: mutation)", "its answer", "slowest"]


def summary_line(summary: FuzzSummary) -> str:
    counts = ", ".join(f"{n} × {label}" for label, n in summary.statuses.most_common())
    bound = {"count": "", "time": f"; stopped at the {summary.max_seconds:g} s bound",
             "server gone": "; stopped: the server refused a connection"}[summary.stopped_by]
    return (f"fuzz POST {summary.url}: {summary.sent} of {summary.count} mutated requests in "
            f"{summary.elapsed:.1f} s (seed {summary.seed}){bound}: {counts or 'none sent'}")


def summary_html(summary: FuzzSummary) -> str:
    """One collapsed block: the summary line, then a row per answer kind in first-seen order."""
    groups: dict[str, list[Outcome]] = {}
    known = {id(o) for o in summary.known_5xx}
    for outcome in summary.outcomes:
        label = outcome.label + (" (documented)" if id(outcome) in known else "")
        groups.setdefault(label, []).append(outcome)
    rows = [[label, len(group), describe(group[0]), answer(group[0]), f"{max(o.elapsed for o in group):.3f} s"]
            for label, group in groups.items()]
    return details(summary_line(summary), table(COLUMNS, rows))


def describe(outcome: Outcome) -> str:
    mutation = outcome.mutation
    return f"{mutation.index}: {mutation.detail or '+'.join(mutation.kinds)} → {mutation.excerpt()}"


def answer(outcome: Outcome) -> str:
    if outcome.failure:
        return outcome.failure
    if outcome.error_type or outcome.message:
        return f"{outcome.error_type or 'no JSON error'}: {outcome.message}"[:300]
    return ""


def findings(outcomes: list[Outcome], limit: int = 10) -> str:
    """One line per outcome (at most ``limit``), for a failure message: how to reproduce and what came back."""
    lines = [f"#{o.mutation.index} ({o.mutation.detail}): {o.failure or f'{o.status} {answer(o)}'} "
             f"— body {o.mutation.excerpt()}" for o in outcomes[:limit]]
    if len(outcomes) > limit:
        lines.append(f"… and {len(outcomes) - limit} more")
    return "\n".join(lines)
