"""PNG charts of a load run, with the previous comparable run and a named baseline overlaid.

A run's charts (``drawing.charts`` draws them all into a folder, ``drawing.draw_beside`` in worker processes),
800 x 450 px, 100 dpi, matplotlib's Agg renderer through ``matplotlib.figure.Figure``, so no global pyplot state:

- ``latency_percentiles.png``: TTFT, TPOT and E2E p50/p95/p99 bars; previous and baseline as hatched,
  paler bars beside the current ones; SLO lines when ``summary["slo"]`` sets them;
- ``distributions.png``: empirical CDFs of TTFT and ITL (per token, else per chunk) from the samples;
- ``timeseries.png``: per second, output tokens/s, requests in flight and errors;
- ``server_series.png`` (when the run has a server series): the server's /metrics against the client's own
  counts on one time axis: requests in flight against processing + deferred, output tok/s against the rate of
  ``tokens_predicted_total``, the KV cache in use and the prompt tokens taken from the server's cache;
- ``timeline.png`` (when ``requests`` is given): one bar per request from dispatch to close, a mark at its
  first token, errors in red, dropped requests as crosses at their scheduled time;
- ``sweep_latency.png`` and ``sweep_throughput.png`` (when ``sweep`` is given): latency percentiles and
  throughput against the load, with the previous and baseline sweeps as dashed and dotted curves.

A missing value (a percentile with too few samples, a metric the run lacks) is not drawn and the title
says so; a chart with nothing at all to show (no time series, no requests) is not written. The same input
gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from llamatest.load.analysis.sweep import parse_slo_key

WIDTH_IN, HEIGHT_IN, DPI = 8.0, 4.5, 100
STYLES = {
    "current": {"color": "#4e79a7", "alpha": 0.95, "hatch": None, "ls": "-"},
    "previous": {"color": "#f28e2b", "alpha": 0.55, "hatch": "//", "ls": "--"},
    "baseline": {"color": "#59a14f", "alpha": 0.55, "hatch": "..", "ls": ":"},
}
LATENCIES = (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"), ("e2e_ms", "E2E"))
PERCENTILES = ("p50", "p95", "p99")
SLO_COLOUR, ERROR_COLOUR, WARMUP_COLOUR = "#e15759", "#e15759", "#bab0ac"
MAX_TIMELINE_ROWS = 400
MAX_ECDF_POINTS = 2000


def _figure(rows: int = 1, cols: int = 1, **kw: Any) -> tuple[Figure, Any]:
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    axes = fig.subplots(rows, cols, squeeze=False, **kw)
    return fig, axes


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return path


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _dig(obj: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(part)
    return obj


def _baseline_label(baseline: Mapping[str, Any], name: str | None) -> str:
    name = name or _dig(baseline, "baseline", "name") or _dig(baseline, "run", "server_build")
    return f"baseline: {name}" if name else "baseline"


def _series(summary: Mapping[str, Any] | None, previous: Mapping[str, Any] | None,
            baseline: Mapping[str, Any] | None, baseline_name: str | None) -> list[tuple[str, str, Any]]:
    """(style key, legend label, data) for each run that is there, current first."""
    out = []
    if summary is not None:
        out.append(("current", "current", summary))
    if previous is not None:
        out.append(("previous", "previous", previous))
    if baseline is not None:
        out.append(("baseline", _baseline_label(baseline if isinstance(baseline, Mapping) else {}, baseline_name),
                    baseline))
    return out


def _legend_patches(series: list[tuple[str, str, Any]]) -> list[Patch]:
    return [Patch(facecolor=STYLES[k]["color"], alpha=STYLES[k]["alpha"], hatch=STYLES[k]["hatch"],
                  edgecolor="#333333", label=label) for k, label, _ in series]


def _legend_lines(series: list[tuple[str, str, Any]]) -> list[Line2D]:
    return [Line2D([], [], color=STYLES[k]["color"], ls=STYLES[k]["ls"], label=label) for k, label, _ in series]


def _slo_lines(slo: Any, metric: str) -> list[tuple[float, str]]:
    """SLO limits for ``metric`` (``"ttft_ms"``): keys ``ttft_ms`` (any percentile) or ``ttft_p95_ms``."""
    lines = []
    for key, value in (slo or {}).items() if isinstance(slo, Mapping) else ():
        limit = _number(value)
        if limit is None:
            continue
        if key == metric:
            lines.append((limit, "SLO"))
            continue
        try:
            name, stat = parse_slo_key(str(key))
        except ValueError:
            continue  # not a latency limit this chart draws
        if name == metric and stat.startswith("p"):
            lines.append((limit, f"SLO {stat.replace('_', '.')}"))
    return sorted(lines)


def _draw_slo(ax: Any, slo: Any, metric: str) -> None:
    for limit, label in _slo_lines(slo, metric):
        ax.axhline(limit, color=SLO_COLOUR, ls="--", lw=1)
        ax.annotate(label, (1.0, limit), xycoords=("axes fraction", "data"), xytext=(-2, 2),
                    textcoords="offset points", ha="right", va="bottom", fontsize=7, color=SLO_COLOUR)


# --- (a) latency percentiles ----------------------------------------------------------------------------------


def _bar_value(ms: float) -> str:
    """1,250 rather than 1.25e+03; three significant digits below 100 ms."""
    return f"{ms:,.0f}" if abs(ms) >= 100 else f"{ms:.3g}"


def latency_chart(summary: Mapping[str, Any], path: Path, *, previous: Mapping[str, Any] | None = None,
                  baseline: Mapping[str, Any] | None = None, baseline_name: str | None = None) -> Path:
    """TTFT, TPOT and E2E p50/p95/p99 as bars with their values, one colour per run, SLO lines on top."""
    series = _series(summary, previous, baseline, baseline_name)
    fig, axes = _figure(1, len(LATENCIES))
    missing = []
    width = 0.8 / len(series)
    for ax, (metric, title) in zip(axes[0], LATENCIES, strict=True):
        for j, (key, label, data) in enumerate(series):
            style = STYLES[key]
            for i, p in enumerate(PERCENTILES):
                value = _number(_dig(data, "metrics", metric, p))
                if value is None:
                    missing.append(f"{label} {title} {p}")
                    continue
                bars = ax.bar(i - 0.4 + width * (j + 0.5), value, width, color=style["color"], alpha=style["alpha"],
                              hatch=style["hatch"], edgecolor="#333333", linewidth=0.5)
                # the value on each bar: a 0 ms p50 (tokens coalesced into one read) is otherwise no bar at all
                ax.bar_label(bars, fmt=_bar_value, fontsize=7)
        _draw_slo(ax, summary.get("slo"), metric)
        ax.set_xticks(range(len(PERCENTILES)), PERCENTILES)
        ax.set_xlim(-0.6, len(PERCENTILES) - 0.4)
        ax.set_title(title, fontsize=10)
        ax.tick_params(labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("ms")
    fig.legend(handles=_legend_patches(series), loc="lower center", ncol=len(series), fontsize=8, frameon=False)
    heading = "Latency percentiles"
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        heading += f"\nnot drawn (too few samples or not measured): {shown}"
    fig.suptitle(heading, fontsize=9)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.82 if missing else 0.87, bottom=0.17, wspace=0.3)
    return _save(fig, path)


# --- (b) distributions ----------------------------------------------------------------------------------------


def _samples(summary: Any, *names: str) -> tuple[str | None, np.ndarray]:
    for name in names:
        raw = _dig(summary, "samples", name)
        if isinstance(raw, list):
            flat = []
            stack = [raw]
            while stack:
                item = stack.pop()
                if isinstance(item, list | tuple):
                    stack.extend(item)
                elif _number(item) is not None:
                    flat.append(float(item))
            if flat:
                return name, np.sort(np.asarray(flat))
    return None, np.asarray([], dtype=float)


def _ecdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = len(values)
    if n > MAX_ECDF_POINTS:
        y = np.linspace(1 / n, 1.0, MAX_ECDF_POINTS)
        return np.quantile(values, y), y
    return values, np.arange(1, n + 1) / n


def distribution_chart(summary: Mapping[str, Any], path: Path, *, previous: Mapping[str, Any] | None = None,
                       baseline: Mapping[str, Any] | None = None, baseline_name: str | None = None) -> Path:
    """Empirical CDFs of TTFT and ITL per token (per chunk when per-token samples are missing)."""
    series = _series(summary, previous, baseline, baseline_name)
    fig, axes = _figure(1, 2)
    panels = (("TTFT", ("ttft_ms",)), ("ITL", ("itl_token_ms", "itl_chunk_ms")))
    for ax, (title, names) in zip(axes[0], panels, strict=True):
        absent, used = [], set()
        for key, label, data in series:
            name, values = _samples(data, *names)
            if not len(values):
                absent.append(label)
                continue
            used.add(name)
            x, y = _ecdf(values)
            style = STYLES[key]
            ax.step(x, y, where="post", color=style["color"], ls=style["ls"], lw=1.4,
                    label=f"{label} (n={len(values)})")
        if used == {"itl_chunk_ms"}:
            title += " per chunk"
        elif "itl_token_ms" in used:
            title += " per token"
        if absent:
            title += f"\nno samples: {', '.join(absent)}"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("ms", fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="lower right")
        else:
            ax.text(0.5, 0.5, "no samples", ha="center", va="center", transform=ax.transAxes, fontsize=9)
    axes[0][0].set_ylabel("fraction of requests ≤ x", fontsize=8)
    fig.suptitle("Latency distributions (empirical CDF)", fontsize=10)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.82, bottom=0.12, wspace=0.2)
    return _save(fig, path)


# --- (c) time series ------------------------------------------------------------------------------------------


def _timeseries(data: Any, field: str) -> tuple[np.ndarray, np.ndarray]:
    rows = [r for r in (_dig(data, "timeseries") or []) if isinstance(r, Mapping) and _number(r.get("t")) is not None]
    window = _dig(data, "window") or [0.0]
    start = _number(window[0]) or 0.0  # runs differ in set-up and warmup time: align them at the measured window
    t = np.asarray([float(r["t"]) - start for r in rows], dtype=float)
    v = np.asarray([_number(r.get(field)) if _number(r.get(field)) is not None else np.nan for r in rows], dtype=float)
    return t, v


def timeseries_chart(summary: Mapping[str, Any], path: Path, *, previous: Mapping[str, Any] | None = None,
                     baseline: Mapping[str, Any] | None = None, baseline_name: str | None = None) -> Path | None:
    """Output tokens/s, requests in flight and errors per second; None when the run has no time series."""
    if not len(_timeseries(summary, "output_tps")[0]):
        return None
    series = _series(summary, previous, baseline, baseline_name)
    fig, axes = _figure(3, 1, sharex=True)
    panels = (("output_tps", "output tok/s"), ("in_flight", "in flight"), ("errors", "errors"))
    for ax, (field, label) in zip(axes[:, 0], panels, strict=True):
        for key, _name, data in series:
            t, v = _timeseries(data, field)
            if not len(t) or np.all(np.isnan(v)):
                continue
            style = STYLES[key]
            if field == "errors" and key == "current":
                ax.bar(t + 0.5, np.nan_to_num(v), 0.9, color=ERROR_COLOUR, alpha=0.8)
            elif field != "errors":  # each value holds for its whole second
                ax.step(np.append(t, t[-1] + 1), np.append(v, v[-1]), where="post", color=style["color"],
                        ls=style["ls"], lw=1.3 if key == "current" else 1.0)
        ax.set_ylabel(label, fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    axes[-1][0].set_xlabel("seconds from the start of the measurement window", fontsize=8)
    fig.legend(handles=_legend_lines(series), loc="upper right", ncol=len(series), fontsize=7, frameon=False)
    fig.suptitle("Per second", fontsize=10, x=0.08, ha="left")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.9, bottom=0.1, hspace=0.15)
    return _save(fig, path)


# --- (c') the server's own series beside the client's ---------------------------------------------------------

SERVER_COLOUR = "#b07aa1"
# (panel label, the client's field or None, the server's fields summed, the server's legend)
SERVER_PANELS = (("requests", "client_in_flight", ("processing", "deferred"), "server processing + deferred"),
                 ("output tok/s", "client_tps", ("predicted_tps",), "server tokens_predicted_total rate"),
                 ("KV used", None, ("kv_used_ratio",), "server KV cache in use (share)"),
                 ("prompt tok/s", None, ("cached_tps",), "server prompt tokens from its cache"))


def _server_values(series: Mapping[str, Any], fields: Sequence[str]) -> np.ndarray | None:
    columns = [series.get(f) for f in fields]
    if any(c is None for c in columns):
        return None
    return np.sum([[np.nan if x is None else float(x) for x in c] for c in columns], axis=0)


def server_chart(summary: Mapping[str, Any], path: Path) -> Path | None:
    """The server's /metrics series against the client's own on one time axis (requests in flight, output tok/s,
    KV cache in use, prompt-cache hits); None when the run has no server series (``server_series.reason``)."""
    series = _dig(summary, "server_series", "series")
    if not series or not series.get("t"):
        return None
    start = _number((_dig(summary, "window") or [0.0])[0]) or 0.0
    t = np.asarray(series["t"], dtype=float) - start
    fig, axes = _figure(len(SERVER_PANELS), 1, sharex=True)
    for ax, (label, client, fields, server_label) in zip(axes[:, 0], SERVER_PANELS, strict=True):
        server = _server_values(series, fields)
        if client is not None:
            values = np.asarray([np.nan if x is None else x for x in series[client]], dtype=float)
            ax.step(t, values, where="pre", color=STYLES["current"]["color"], lw=1.3, label="client")
        if server is not None:
            ax.step(t, server, where="pre", color=SERVER_COLOUR, lw=1.3, ls="--", label=server_label)
        if fields == ("cached_tps",) and series.get("prompt_tps") is not None:
            ax.step(t, _server_values(series, ("prompt_tps",)), where="pre", color=SERVER_COLOUR, lw=0.8, ls=":",
                    label="server prompt tokens processed")
        ax.set_ylabel(label, fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
        if ax.get_lines():
            ax.legend(fontsize=6, loc="upper right", frameon=False)
        else:
            ax.text(0.5, 0.5, "not reported by this server", transform=ax.transAxes, ha="center", fontsize=8)
    axes[-1][0].set_xlabel("seconds from the start of the measurement window (a value holds since the sample "
                           "before)", fontsize=8)
    fig.suptitle("The server's own /metrics (dashed) against the client (solid), per scrape", fontsize=10, x=0.08,
                 ha="left")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.92, bottom=0.1, hspace=0.15)
    return _save(fig, path)


# --- (d) request timeline -------------------------------------------------------------------------------------


def _field(record: Any, name: str) -> Any:
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)


def _first_token(record: Any) -> float | None:
    for event in _field(record, "events") or []:
        kind, n_chars = _field(event, "kind"), _field(event, "n_chars") or 0
        if kind in ("content", "reasoning", "tool_call") and n_chars > 0:
            return _number(_field(event, "t"))
    return None


def _end(record: Any) -> float | None:
    for name in ("t_closed", "t_done"):
        value = _number(_field(record, name))
        if value is not None:
            return value
    times = [_number(_field(e, "t")) for e in _field(record, "events") or []]
    times = [t for t in times if t is not None]
    return max(times) if times else _number(_field(record, "t_headers"))


def timeline_chart(requests: Sequence[Any], path: Path, *, window: Any = None) -> Path | None:
    """One horizontal bar per request, dispatch to close, over the shaded measurement ``window``
    (``[start, end]`` seconds); None when there is no request."""
    records = sorted(requests, key=lambda r: (_number(_field(r, "t_scheduled")) or 0.0, _field(r, "index") or 0))
    if not records:
        return None
    total = len(records)
    if total > MAX_TIMELINE_ROWS:
        picks = np.linspace(0, total - 1, MAX_TIMELINE_ROWS).round().astype(int)
        records = [records[i] for i in sorted(set(picks.tolist()))]
    fig, axes = _figure()
    ax = axes[0][0]
    lw = max(0.6, min(6.0, 250 / len(records)))
    bars: dict[str, list[tuple[int, float, float]]] = {"ok": [], "error": [], "warmup": []}
    firsts, dropped = [], []
    for y, r in enumerate(records):
        start = _number(_field(r, "t_dispatched"))
        if start is None:
            scheduled = _number(_field(r, "t_scheduled"))
            if scheduled is not None:
                dropped.append((scheduled, y))
            continue
        end = _end(r)
        end = start if end is None else max(end, start)
        kind = "warmup" if _field(r, "phase") == "warmup" else ("error" if _field(r, "error") else "ok")
        bars[kind].append((y, start, end))
        first = _first_token(r)
        if first is not None:
            firsts.append((first, y))
    colours = {"ok": STYLES["current"]["color"], "error": ERROR_COLOUR, "warmup": WARMUP_COLOUR}
    handles = []
    for kind, rows in bars.items():
        if rows:
            y, x0, x1 = zip(*rows, strict=True)
            ax.hlines(y, x0, x1, colors=colours[kind], lw=lw)
            handles.append(Line2D([], [], color=colours[kind], lw=4, label={"ok": "request", "error": "error",
                                                                             "warmup": "warmup"}[kind]))
    if firsts:
        x, y = zip(*firsts, strict=True)
        ax.plot(x, y, ls="none", marker="|", color="#222222", ms=max(3.0, lw * 1.6))
        handles.append(Line2D([], [], ls="none", marker="|", color="#222222", label="first token"))
    if dropped:
        x, y = zip(*dropped, strict=True)
        ax.plot(x, y, ls="none", marker="x", color=ERROR_COLOUR, ms=4)
        handles.append(Line2D([], [], ls="none", marker="x", color=ERROR_COLOUR, label="dropped"))
    if isinstance(window, list | tuple) and len(window) == 2 and all(_number(w) is not None for w in window):
        ax.axvspan(window[0], window[1], color="#eeeeee", zorder=0)
        handles.append(Patch(facecolor="#eeeeee", label="measurement window"))
    ax.invert_yaxis()
    ax.set_xlabel("seconds from start", fontsize=8)
    ax.set_ylabel("request (schedule order)", fontsize=8)
    ax.tick_params(labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    if handles:
        ax.legend(handles=handles, fontsize=7, loc="upper right")
    title = f"Request timeline ({total} requests"
    title += f", every {total / len(records):.1f}th shown)" if total > len(records) else ")"
    ax.set_title(title, fontsize=10)
    fig.subplots_adjust(left=0.09, right=0.98, top=0.9, bottom=0.12)
    return _save(fig, path)


# --- (e) sweep ------------------------------------------------------------------------------------------------


def _load_of(summary: Mapping[str, Any]) -> float | None:
    profile = summary.get("profile") or {}
    kind = profile.get("kind")
    if kind == "rate":
        return _number(profile.get("rate"))
    if kind == "concurrency":
        return _number(profile.get("users"))
    if kind == "synchronous":
        return 1.0
    return _number(_dig(summary, "throughput", "achieved_rate"))


def _points(raw: Any) -> list[tuple[float, Mapping[str, Any]]]:
    """Sweep points as (load, summary), sorted by load; a point is a summary, ``{"load", "summary"}`` or
    ``(load, summary)``; points without a load are left out."""
    points = []
    for item in raw or []:
        if isinstance(item, tuple | list) and len(item) == 2:
            load, summary = _number(item[0]), item[1]
        elif isinstance(item, Mapping) and "summary" in item:
            load, summary = _number(item.get("load")), item["summary"]
        else:
            load, summary = None, item
        if isinstance(summary, Mapping):
            load = load if load is not None else _load_of(summary)
            if load is not None:
                points.append((load, summary))
    return sorted(points, key=lambda p: p[0])


def _sweeps(sweep: Any, baseline_name: str | None) -> list[tuple[str, str, list]]:
    if isinstance(sweep, Mapping):
        cur, prev, base = sweep.get("current"), sweep.get("previous"), sweep.get("baseline")
        baseline_name = baseline_name or sweep.get("baseline_name")
    else:
        cur, prev, base = sweep, None, None
    out = [("current", "current", _points(cur))]
    if prev:
        out.append(("previous", "previous", _points(prev)))
    if base:
        first = _points(base)
        label = _baseline_label(first[0][1] if first else {}, baseline_name)
        out.append(("baseline", label, first))
    return [s for s in out if s[2]]


def _load_label(points: list[tuple[float, Mapping[str, Any]]]) -> str:
    kinds = {_dig(s, "profile", "kind") for _, s in points}
    if kinds == {"rate"}:
        return "offered rate (req/s)"
    if kinds <= {"concurrency", "synchronous"}:
        return "concurrent users"
    return "load"


def sweep_charts(sweep: Any, latency_path: Path, throughput_path: Path, *, slo: Any = None,
                 baseline_name: str | None = None) -> list[Path]:
    """Latency percentiles vs load and throughput vs load; [] when no point has a load value."""
    series = _sweeps(sweep, baseline_name)
    if not series:
        return []
    xlabel = _load_label(series[0][2])
    return [_save(_sweep_latency_figure(series, xlabel, slo), latency_path),
            _save(_sweep_throughput_figure(series, xlabel), throughput_path)]


def _sweep_latency_figure(series: list, xlabel: str, slo: Any) -> Figure:
    markers = {"p50": "o", "p95": "^"}
    fig, axes = _figure(1, len(LATENCIES))
    missing = 0
    for ax, (metric, title) in zip(axes[0], LATENCIES, strict=True):
        for key, _label, points in series:
            style = STYLES[key]
            for p, marker in markers.items():
                xs = [x for x, s in points]
                ys = [_number(_dig(s, "metrics", metric, p)) for _x, s in points]
                missing += sum(y is None for y in ys)
                ax.plot(xs, [np.nan if y is None else y for y in ys], color=style["color"], ls=style["ls"],
                        marker=marker, ms=4, lw=1.2)
        _draw_slo(ax, slo, metric)
        _sweep_axes(ax, title, xlabel)
    axes[0][0].set_ylabel("ms", fontsize=8)
    handles = _legend_lines([(k, label, None) for k, label, _ in series]) + [
        Line2D([], [], color="#555555", ls="none", marker=m, label=p) for p, m in markers.items()]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=7, frameon=False)
    heading = "Latency vs load" + (f"\n{missing} point(s) not drawn (too few samples)" if missing else "")
    fig.suptitle(heading, fontsize=9)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.83, bottom=0.2, wspace=0.3)
    return fig


def _sweep_throughput_figure(series: list, xlabel: str) -> Figure:
    fig, axes = _figure(1, 2)
    panels = ((("throughput", "window", "output_throughput"), "output tok/s"),
              (("throughput", "window", "request_throughput"), "requests/s"))
    for ax, (where, label) in zip(axes[0], panels, strict=True):
        for key, _label, points in series:
            style = STYLES[key]
            ys = [_number(_dig(s, *where)) for _x, s in points]
            ax.plot([x for x, _s in points], [np.nan if y is None else y for y in ys], color=style["color"],
                    ls=style["ls"], marker="o", ms=4, lw=1.2)
            goodput = [_number(_dig(s, "throughput", "window", "goodput")) for _x, s in points]
            if label == "requests/s" and key == "current" and any(g is not None for g in goodput):
                ax.plot([x for x, _s in points], [np.nan if g is None else g for g in goodput],
                        color=style["color"], ls="-.", marker="s", ms=3, lw=1, label="goodput")
        if label == "requests/s" and xlabel.startswith("offered rate"):
            xs = [x for x, _s in series[0][2]]
            ax.plot([0, max(xs)], [0, max(xs)], color="#999999", ls=":", lw=1, label="offered")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper left")
        _sweep_axes(ax, label, xlabel)
    fig.legend(handles=_legend_lines([(k, label, None) for k, label, _ in series]), loc="lower center",
               ncol=len(series), fontsize=7, frameon=False)
    fig.suptitle("Throughput vs load", fontsize=10)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.87, bottom=0.2, wspace=0.25)
    return fig


def _sweep_axes(ax, title: str, xlabel: str) -> None:
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.tick_params(labelsize=8)
    ax.grid(alpha=0.3)
