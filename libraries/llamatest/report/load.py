"""The log block of a load run: headline table, throughput, validity flags, verdicts, charts. Nothing per request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llamatest.htmllog import details, escape, json_block, labelled, png, table
from llamatest.load.analysis.validity import MACHINE_SIDE
from llamatest.load.output.textreport import lost_text, node_label

HEADLINE = ("ttft_ms", "server_prompt_ms", "overhead_ttft_ms", "ttfo_ms", "tpot_ms", "itl_chunk_ms", "itl_token_ms",
            "e2e_ms", "e2e_from_schedule_ms", "client_queue_ms", "max_stall_ms", "n_in", "n_out")


SHOWN = ("p50", "p90", "p95", "p99")  # the percentiles the table shows (p99.9 is in summary.json)


def fmt(value: Any, digits: int = 1) -> str:
    """A number for a table cell; None (undefined, or too few samples) is a dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _with_ci(dist: dict, name: str) -> str:
    ci = (dist.get("ci") or {}).get(name)
    value = fmt(dist.get(name))
    return f"{value} [{fmt(ci[0])}, {fmt(ci[1])}]" if ci and dist.get(name) is not None else value


def metrics_table(summary: dict) -> str:
    """One row per headline metric: n, mean, p50/p95/p99 with their 95 % bootstrap intervals, and why one is
    missing."""
    rows = []
    for name in HEADLINE:
        dist = _dict(_dict(summary).get("metrics")).get(name)
        if not dist:
            continue
        missing = "; ".join(f"{k}: {v}" for k, v in (dist.get("missing") or {}).items() if k in SHOWN)
        rows.append([name, dist.get("n"), fmt(dist.get("mean")), _with_ci(dist, "p50"), fmt(dist.get("p90")),
                     _with_ci(dist, "p95"), _with_ci(dist, "p99"), fmt(dist.get("max")), missing])
    return table(["metric", "n", "mean", "p50 [95% CI]", "p90", "p95 [95% CI]", "p99 [95% CI]", "max", "missing"],
                 rows)


def throughput_table(summary: dict) -> str:
    """The window (after warmup, requests started inside it) and wall (first dispatch to last close) variants."""
    tp = _dict(summary.get("throughput"))
    names = ("duration_s", "request_throughput", "output_throughput", "total_token_throughput", "goodput",
             "goodput_ratio")
    rows = [[name, fmt(_dict(tp.get("window")).get(name), 3), fmt(_dict(tp.get("wall")).get(name), 3)]
            for name in names]
    rows += [[name, fmt(tp.get(name), 3), ""] for name in ("peak_output_tps", "concurrency_mean",
                                                           "peak_concurrency", "achieved_rate", "target_rate",
                                                           "error_rate")]
    return table(["", "window", "wall"], rows)


def counts_table(summary: dict) -> str:
    counts = _dict(summary.get("counts"))
    rows = [[k, fmt(v)] for k, v in counts.items() if not isinstance(v, dict)]
    rows += [[f"error: {k}", v] for k, v in (counts.get("errors_by_class") or {}).items()]
    rows += [[f"outcome: {k}", v] for k, v in (counts.get("outcomes") or {}).items()]
    return table(["count", "value"], rows)


def server_table(summary: dict) -> str:
    """What the server's own /metrics said over the run: counter deltas and gauge maxima, beside the client's
    numbers (e.g. tokens predicted against the requests' output tokens)."""
    server = summary.get("server") or {}
    rows = [[name, fmt(value, 3)] for name, value in sorted(server.items()) if isinstance(value, int | float)]
    return table(["server telemetry (/metrics, /slots)", "value"], rows)


def _mean_max(values: Any) -> str:
    x = [v for v in values or [] if isinstance(v, int | float)]
    return f"{fmt(sum(x) / len(x), 2)} / {fmt(max(x), 2)}" if x else "–"


def server_series_table(summary: dict) -> str:
    """The server's own series beside the client's (mean / max over the samples), or why there is none, and the
    overhead outside the server's timings."""
    block = _dict(summary.get("server_series"))
    series = block.get("series")
    if not series:
        rows = [["server series", f"none: {block.get('reason') or 'not in this summary'}"]]
    else:
        both = [(p or 0) + (d or 0) for p, d in zip(series["processing"], series["deferred"], strict=True)]
        rows = [["samples (about one a second)", len(series["t"])],
                ["requests in flight: client / server processing + deferred",
                 f"{_mean_max(series['client_in_flight'])} | {_mean_max(both)}"],
                ["output tok/s: client / server (tokens_predicted_total)",
                 f"{_mean_max(series['client_tps'])} | {_mean_max(series['predicted_tps'])}"],
                ["KV cache in use (share)", _mean_max(series.get("kv_used_ratio"))],
                ["prompt tok/s processed / from the cache",
                 f"{_mean_max(series['prompt_tps'])} | {_mean_max(series['cached_tps'])}"]]
    over = _dict(summary.get("overhead"))
    for name in ("ttft", "decode"):
        x = _dict(over.get(name))
        if x:
            rows.append([f"overhead_{name} p95 / limit (ms, n)", f"{fmt(x.get('p95_ms'), 2)} / "
                                                                 f"{fmt(x.get('limit_ms'), 2)} (n={x.get('n')})"])
    return table(["the server's own series (mean / max)", "value"], rows)


def workers_table(summary: dict) -> str:
    """The Ray workers of a sharded run: the node each ran on, its share of the measured requests, and for a
    worker that was lost what the driver knew of it ("" for a run in one process)."""
    workers = [w for w in _dict(summary.get("run")).get("workers") or [] if isinstance(w, dict)]
    if len(workers) < 2:
        return ""
    rows = [[w.get("id"), node_label(w), f"{w.get('host')} / {w.get('pid')}", w.get("scheduled"),
             w.get("measured"), fmt(100 * (w.get("share") or 0), 1), w.get("succeeded"),
             f"lost {lost_text(w)}" if w.get("lost") else ""] for w in workers]
    return labelled("workers (Ray)", table(["worker", "node", "host / pid", "scheduled", "measured", "share %",
                                            "succeeded", "lost"], rows))


def flags_table(summary: dict) -> str:
    """Every validity flag, set or not, with the numbers behind it."""
    rows = [[name, "SET" if _dict(flag).get("set") else "clear", _dict(flag).get("detail", "")]
            for name, flag in _dict(summary.get("flags")).items()]
    return table(["validity flag", "state", "detail"], rows)


def comparison_table(label: str, cmp: dict) -> str:
    """One row per compared metric with its verdict and why (a note when it could not be judged)."""
    rows = []
    for name, m in _dict(cmp.get("metrics")).items():
        m = _dict(m)
        ci = m.get("ci") or [None, None]
        rows.append([name, m.get("verdict"), fmt(m.get("reference")), fmt(m.get("current")), fmt(m.get("delta")),
                     f"[{fmt(ci[0])}, {fmt(ci[1])}]", fmt(m.get("tol")), m.get("direction", ""), m.get("note") or ""])
    body = table(["metric", "verdict", "reference", "current", "Δ (positive = worse)", "95% CI of Δ", "tolerance",
                  "better", "note"], rows)
    if cmp.get("note"):
        body = escape(cmp["note"]) + body
    return labelled(f"{label}: {cmp.get('verdict')}", body)


def load_run_html(load_run: Any) -> str:
    """The whole block of one run (``pipeline.LoadRun``): open summary, collapsed details."""
    s = _dict(load_run.summary)
    ident = _dict(s.get("run"))
    dataset, server, counts = _dict(ident.get("dataset")), _dict(ident.get("server")), _dict(s.get("counts"))
    head = table(["", ""], [
        ["profile", ident.get("profile_text") or _dict(s.get("profile")).get("kind", "")],
        ["dataset", f"{dataset.get('name')} ({dataset.get('count')} prompts, "
                    f"hash {str(dataset.get('hash') or '')[:12]})"],
        ["server", f"{server.get('build_info', '')}, model {Path(str(server.get('model_path') or '')).name}"],
        ["workers", len(ident.get("workers") or [])],
        ["config key", ident.get("config_key", "")],
        ["results", str(load_run.outdir)],
    ])
    parts = [head, labelled("latency (ms) and token counts; percentiles numpy 'linear'", metrics_table(s)),
             labelled("throughput (per second)", throughput_table(s)), workers_table(s),
             labelled("validity", flags_table(s)),
             labelled("the server watched from inside (/metrics, /slots) against the client", server_series_table(s)),
             details("server telemetry over the run (includes warmup requests)", server_table(s))]
    for key, cmp in load_run.comparisons.items():
        label = f"against baseline '{load_run.baseline_name}'" if key == "baseline" else "against the previous run"
        parts.append(comparison_table(label, cmp))
    if not load_run.comparisons:
        parts.append(labelled("comparison", escape("no earlier run with the same configuration key, no baseline")))
    parts += [png(Path(p).read_bytes(), Path(p).stem, width=800) for p in load_run.charts]
    compat = getattr(load_run, "compat", None)
    if compat:
        parts.append(details("the same requests as other tools measure them (vLLM, guidellm, genai-perf)",
                             compat_table(compat)))
    parts += [details("counts", counts_table(s)), details("definitions", definitions_table(s)),
              details("summary.json (without samples)", json_block(_without_samples(s)))]
    return details(f"load run '{load_run.name}': {counts.get('succeeded')} succeeded, "
                   f"{counts.get('errored')} errors, {counts.get('dropped')} dropped",
                   "".join(parts), open_=True)


def compat_table(compat: dict) -> str:
    """The same requests measured as other tools define TTFT, ITL, TPOT and E2E: p50 / p95 of each."""
    rows = []
    for tool, view in compat.items():
        m = view.get("metrics") or {}
        view_summary = {"metrics": m}
        rows.append([tool, *(f"{fmt(_p(view_summary, k, 'p50'))} / {fmt(_p(view_summary, k, 'p95'))}"
                             for k in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms")),
                     fmt((view.get("throughput") or {}).get("output_throughput"))])
    notes = [[tool, name, text] for tool, view in compat.items()
             for name, text in (view.get("definitions") or {}).items()]
    return table(["tool", "TTFT p50 / p95", "ITL p50 / p95", "TPOT p50 / p95", "E2E p50 / p95", "output tok/s"],
                 rows) + details("their definitions", table(["tool", "metric", "definition"], notes))


def definitions_table(summary: dict) -> str:
    return table(["metric", "definition"], list(_dict(summary.get("definitions")).items()))


def _dict(value: Any) -> dict:
    """``value`` when it is a dict, else an empty one: a section may be missing or null in a summary file."""
    return value if isinstance(value, dict) else {}


def _without_samples(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "samples"}


def _p(summary: dict, metric: str, stat: str) -> Any:
    return _dict(_dict(_dict(summary).get("metrics")).get(metric)).get(stat)


def overhead_state(summary: dict) -> str:
    """The ``server_overhead`` flag of one run or sweep level: clear, exceeded, or not judged (a machine-side flag
    spoiled the run), with its figures."""
    flags = _dict(summary.get("flags"))
    flag = _dict(flags.get("server_overhead"))
    if not flag:
        return "–"
    if not flag.get("set"):
        return f"ok: {flag.get('detail', '')}"
    spoiled = [name for name in MACHINE_SIDE if _dict(flags.get(name)).get("set")]
    head = f"not judged ({', '.join(spoiled)})" if spoiled else "EXCEEDED"
    return f"{head}: {flag.get('detail', '')}"


def sweep_html(sweep_run: Any) -> str:
    """The block of a sweep or capacity search (``pipeline.SweepRun``): one row per point, the charts."""
    rows = []
    for point in sweep_run.points:
        s = _dict(point.get("summary"))
        tp = _dict(s.get("throughput"))
        verdict = "meets SLO" if point.get("meets") else "; ".join(point.get("violations") or [])
        if "valid" in point:
            reasons = "; ".join(point.get("invalid_because") or ["not run"])
            verdict = "valid" if point["valid"] else f"invalid: {reasons}"
        rows.append([point.get("kind", sweep_run.result.get("axis", "")), fmt(point.get("load"), 3),
                     fmt(tp.get("achieved_rate"), 3), fmt(_p(s, "ttft_ms", "p50")), fmt(_p(s, "ttft_ms", "p95")),
                     fmt(_p(s, "tpot_ms", "p50"), 2), fmt(_p(s, "e2e_ms", "p95")),
                     fmt(_dict(tp.get("window")).get("output_throughput")), fmt(tp.get("error_rate"), 3), verdict,
                     overhead_state(s)])
    parts = [table(["point", "load", "achieved req/s", "TTFT p50", "TTFT p95", "TPOT p50", "E2E p95",
                    "output tok/s", "error rate", "state", "overhead outside the server's timings"], rows)]
    result = sweep_run.result
    if sweep_run.kind == "capacity":
        parts.insert(0, labelled(f"capacity under SLO ({result.get('axis')}): {fmt(result.get('capacity'), 3)}",
                                 escape(f"bracket {result.get('bracket')}, SLO {result.get('slo')}. "
                                        f"{result.get('note') or ''}")))
    elif result.get("note"):
        parts.append(escape(result["note"]))
    previous = sweep_run.previous
    parts.append(labelled("previous comparable", escape(f"from {previous.get('started_at')}, drawn dashed"
                                                        if previous else "none: the charts show this run alone")))
    parts += [png(Path(p).read_bytes(), Path(p).stem, width=800) for p in sweep_run.charts]
    return details(f"load {sweep_run.kind} '{sweep_run.name}': {len(sweep_run.points)} points", "".join(parts),
                   open_=True)
