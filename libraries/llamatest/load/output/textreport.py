"""Plain-text views of a load run, a sweep and a comparison, for the command line (Robot's log gets HTML)."""

from __future__ import annotations

from typing import Any

from llamatest.load.analysis.soak import describe_leaks
from llamatest.load.analysis.trials import describe as describe_trials

SHOWN = ("ttft_ms", "tpot_ms", "itl_token_ms", "e2e_ms")
STATS = ("p50", "p95", "p99")


def fmt(value: Any, digits: int = 1) -> str:
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return "-" if value is None else str(value)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *rows]]


def node_label(worker: dict) -> str:
    """The Ray node a worker ran on, as the reports show it (its id's first 12 characters; "" when unknown)."""
    return str(worker.get("node_id") or "")[:12]


def lost_text(worker: dict) -> str:
    """When a lost worker was lost and what the driver knew of it then (`distributed.lost_shard`), as the reports
    show it after "lost"."""
    return (f"at {fmt(worker.get('lost_at_s'), 1)} s: sent {worker.get('sent')} by its last report, "
            f"{worker.get('answers_missing')} answers missing")


def worker_lines(workers: list) -> list[str]:
    """One line per Ray worker of a sharded run: its node, its share of the measured requests, or what was lost."""
    if len(workers) < 2:
        return []
    lines = ["workers:"]
    for w in workers:
        where = f"node {node_label(w) or '?'} ({w.get('host')}, pid {w.get('pid')})"
        if w.get("lost"):
            lines.append(f"  {w['id']}: {where} LOST {lost_text(w)}")
        else:
            lines.append(f"  {w['id']}: {where} {w.get('measured')} measured requests "
                         f"({fmt(100 * (w.get('share') or 0), 1)} %), {w.get('succeeded')} ok")
    return lines


def run_lines(load_run: Any) -> list[str]:
    """The summary of a ``pipeline.LoadRun``: counts, throughput, latency percentiles, flags, checks, verdicts."""
    s = load_run.summary
    ident = s.get("run") or {}
    counts = s.get("counts") or {}
    window = (s.get("throughput") or {}).get("window") or {}
    dataset = (ident.get("dataset") or {}).get("name")
    by_class = f" {counts['errors_by_class']}" if counts.get("errors_by_class") else ""
    lines = [f"run {load_run.name}: {ident.get('profile_text', '')}; dataset {dataset}",
             f"requests: {counts.get('succeeded', 0)} ok of {counts.get('attempted', 0)}, "
             f"{counts.get('errored', 0)} errors{by_class}, {counts.get('dropped', 0)} dropped",
             f"throughput: {fmt(window.get('request_throughput'), 2)} req/s, "
             f"{fmt(window.get('output_throughput'))} output tok/s"]
    metrics = s.get("metrics") or {}
    rows = [[name, *(fmt((metrics.get(name) or {}).get(st)) for st in STATS)] for name in SHOWN if name in metrics]
    lines += _table(["ms", *STATS], rows)
    if s.get("trials"):
        lines += trial_lines(s["trials"])
    flags = [f"  {n}: {f.get('detail')}" for n, f in (s.get("flags") or {}).items() if f.get("set")]
    lines += ["flags set:", *flags] if flags else ["flags: none set"]
    lines += worker_lines(ident.get("workers") or [])
    lines.append(series_line(s.get("server_series") or {}))
    answers = s.get("answers") or {}
    if answers.get("check"):
        check = answers["check"]
        lines.append(f"answers sent again alone: {check['checked']} checked, {len(check['changed'])} changed"
                     + (f" ({check['skipped']})" if check.get("skipped") else ""))
        for c in check["changed"][:5]:
            lines += [f"  request {c['index']} under load: {c['under_load'][:200]!r}",
                      f"  request {c['index']} alone:      {c['alone'][:200]!r}"]
    if s.get("resources"):
        lines.append(f"server resources against requests served: {describe_leaks(s['resources'])}")
    for against, cmp in load_run.comparisons.items():
        lines.append(f"verdict against {against}: {cmp['verdict']}"
                     + (f" ({cmp['note']})" if cmp.get("note") else ""))
    lines.append(f"files: {load_run.outdir}")
    return lines


def series_line(block: dict[str, Any]) -> str:
    """Whether the run kept the server's own /metrics series (server-series.jsonl), or why not."""
    series = block.get("series")
    if not series:
        return f"server series: none ({block.get('reason') or 'not in this summary'})"
    return f"server series: {len(series['t'])} /metrics samples (server_series in summary.json, server-series.jsonl)"


def trial_lines(block: dict[str, Any]) -> list[str]:
    rows = [[name, fmt(iv["mean"], 2), f"[{fmt(iv['lo'], 2)}, {fmt(iv['hi'], 2)}]",
             f"{fmt(iv['min'], 2)}..{fmt(iv['max'], 2)}"] for name, iv in block["intervals"].items()]
    return [describe_trials(block) + "; mean and 95 % interval between trials:",
            *_table(["figure", "mean", "95 % interval", "range"], rows)]


def sweep_lines(sweep_run: Any) -> list[str]:
    rows = []
    for p in sweep_run.points:
        s = p.get("summary") or {}
        m = s.get("metrics") or {}
        window = (s.get("throughput") or {}).get("window") or {}
        rows.append([p.get("kind", ""), fmt(p.get("load"), 2), fmt(window.get("request_throughput"), 2),
                     fmt((m.get("ttft_ms") or {}).get("p95")), fmt((m.get("tpot_ms") or {}).get("p95")),
                     "yes" if p.get("valid") else f"no: {'; '.join(p.get('invalid_because') or [])}"])
    return [f"sweep {sweep_run.name}:",
            *_table(["point", "load", "req/s", "TTFT p95 ms", "TPOT p95 ms", "valid"], rows),
            f"files: {sweep_run.outdir}"]


def comparison_lines(label: str, cmp: dict[str, Any]) -> list[str]:
    rows = [[name, m["verdict"], fmt(m.get("reference"), 2), fmt(m.get("current"), 2),
             f"[{fmt((m.get('ci') or [None, None])[0], 2)}, {fmt((m.get('ci') or [None, None])[1], 2)}]",
             m.get("basis") or ""] for name, m in cmp["metrics"].items()]
    head = f"{label}: {cmp['verdict']}" + (f" ({cmp['note']})" if cmp.get("note") else "")
    return [head, *_table(["figure", "verdict", "reference", "current", "95 % CI of Δ (+ = worse)", "basis"], rows)]
