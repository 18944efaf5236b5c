"""The log block of a concurrent batch: the slot timeline as an inline SVG chart, and its tables.

One row per slot (busy stretches as bars, coloured and labelled by the request they served, ``t``
and the task id for a task of no request of the batch), one thin row per request (waiting for its
first chunk, then streaming; a cross where the client hung up), and, with ``/metrics``, a row with
``requests_deferred`` as a step line. Every text goes through `escape`.
"""

from __future__ import annotations

import math

from llamatest.concurrency.batch import Batch
from llamatest.concurrency.timeline import Interval, Timeline
from llamatest.htmllog import details, escape, labelled, table
from llamatest.streaming.logblock import batch_html, secs, stream_html

WIDTH, LEFT, RIGHT = 760, 70, 10
SLOT_ROW, REQUEST_ROW, METRIC_ROW, AXIS = 22, 11, 30, 26
MAX_REQUEST_ROWS = 40
MAX_STREAM_BLOCKS = 16
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#e15759",
           "#bab0ac")
GREY = "#999999"


def _colour(index: int | None) -> str:
    return GREY if index is None else PALETTE[index % len(PALETTE)]


class _Scale:
    def __init__(self, end: float):
        self.end = max(end, 1e-3)
        self.width = WIDTH - LEFT - RIGHT

    def x(self, t: float) -> float:
        return LEFT + max(0.0, min(t, self.end)) / self.end * self.width


def _ticks(end: float) -> list[float]:
    """About six round tick times from 0 to ``end``."""
    raw = max(end, 1e-3) / 6
    step = min((m * 10 ** math.floor(math.log10(raw)) for m in (1, 2, 5, 10)), key=lambda s: abs(s - raw))
    return [k * step for k in range(int(end / step) + 1)]


def _text(x: float, y: float, value: str, anchor: str = "start", size: int = 10, fill: str = "#222") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
            f'font-family="sans-serif">{escape(value)}</text>')


def _rect(x0: float, x1: float, y: float, h: float, fill: str, title: str, opacity: float = 1.0) -> str:
    return (f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0, 1.0):.1f}" height="{h:.1f}" fill="{fill}" '
            f'fill-opacity="{opacity}"><title>{escape(title)}</title></rect>')


def timeline_svg(tl: Timeline, intervals: list[Interval] | None = None,
                 request_intervals: dict[int, Interval] | None = None) -> str:
    """The chart of one timeline; an empty ``<svg>`` with a note when there is no sample.

    ``intervals`` and ``request_intervals`` are ``tl.intervals()`` and ``tl.request_intervals()``, for a
    caller that has them already (computed here when not given).
    """
    intervals = tl.intervals() if intervals is None else intervals
    request_intervals = tl.request_intervals(intervals) if request_intervals is None else request_intervals
    scale = _Scale(tl.end)
    slot_ids = sorted({state.id for sample in tl.slots for state in sample.slots})
    show_requests = 0 < len(tl.requests) <= MAX_REQUEST_ROWS
    n_request_rows = len(tl.requests) if show_requests else 0
    top = 26
    requests_top = top + len(slot_ids) * SLOT_ROW + (8 if n_request_rows else 0)
    metric_top = requests_top + n_request_rows * REQUEST_ROW + (8 if tl.metrics else 0)
    axis_top = metric_top + (METRIC_ROW if tl.metrics else 0) + 4
    height = axis_top + AXIS
    parts = [_text(4, 12, f"slot timeline: {tl.summary()}", size=11)]
    parts += _slot_rows(tl, scale, slot_ids, intervals, _owners(request_intervals), top)
    if show_requests:
        parts += _request_rows(tl, scale, requests_top)
    if tl.metrics:
        parts.append(_metric_row(tl, scale, metric_top))
    parts += _axis(tl, scale, top, axis_top)
    body = "".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" style="background:#fff;border:1px solid #ccc">{body}</svg>')


def _slot_rows(tl: Timeline, scale: _Scale, slot_ids: list[int], intervals: list[Interval],
               owner: dict, top: int) -> list[str]:
    """One row per slot: its busy intervals (coloured by request) and the no-idle-slot probes above."""
    parts = []
    for row, slot_id in enumerate(slot_ids):
        y = top + row * SLOT_ROW
        parts.append(_text(LEFT - 6, y + 15, f"slot {slot_id}", anchor="end"))
        parts.append(f'<line x1="{LEFT}" y1="{y + SLOT_ROW - 2}" x2="{WIDTH - RIGHT}" y2="{y + SLOT_ROW - 2}" '
                     f'stroke="#ddd"/>')
    for interval in intervals:
        y = top + slot_ids.index(interval.slot) * SLOT_ROW + 2
        index = owner.get(interval)
        x0, x1 = scale.x(interval.start), scale.x(interval.until)
        label = f"r{index}" if index is not None else f"t{interval.id_task}"
        decoded = "" if interval.n_decoded is None else f", {interval.n_decoded} tokens decoded when last seen"
        who = f"request {index}" if index is not None else "no request of this batch"
        parts.append(_rect(x0, x1, y, SLOT_ROW - 6, _colour(index),
                           f"slot {interval.slot}, task {interval.id_task} ({who}): busy from "
                           f"{interval.start:.3f} s, last seen busy {interval.end:.3f} s{decoded}"))
        if x1 - x0 >= 8 * len(label):
            parts.append(_text((x0 + x1) / 2, y + 12, label, anchor="middle", fill="#fff"))
    for probe in tl.probes:
        x = scale.x(probe.t)
        fill = "#d62728" if probe.status == 503 else "#2ca02c"
        parts.append(f'<circle cx="{x:.1f}" cy="{top - 6}" r="3" fill="{fill}"><title>'
                     f'{escape(f"GET /slots?fail_on_no_slot=1 → {probe.status} at {probe.t:.3f} s")}</title></circle>')
    return parts


def _request_rows(tl: Timeline, scale: _Scale, requests_top: int) -> list[str]:
    """One thin row per request: sent to first chunk, first chunk to end, and where the client hung up."""
    parts = []
    for row, span in enumerate(tl.requests):
        y = requests_top + row * REQUEST_ROW
        parts.append(_text(LEFT - 6, y + 9, f"req {span.index}", anchor="end", size=9))
        if span.sent is None:
            continue
        end = span.end if span.end is not None else tl.end
        first = span.first if span.first is not None else end
        parts.append(_rect(scale.x(span.sent), scale.x(first), y + 4, 2, _colour(span.index),
                           f"request {span.index}: sent {span.sent:.3f} s, first chunk {secs(span.first)}"))
        if span.first is not None:
            parts.append(_rect(scale.x(first), scale.x(end), y + 1, REQUEST_ROW - 3, _colour(span.index),
                               f"request {span.index}: first chunk {first:.3f} s, ended {end:.3f} s"
                               + ("" if span.slot is None else f", slot {span.slot}"), opacity=0.6))
        if span.abandoned is not None:
            x = scale.x(span.abandoned)
            parts.append(f'<path d="M{x - 3:.1f},{y + 1} l6,8 m0,-8 l-6,8" stroke="#d62728" stroke-width="1.5">'
                         f'<title>{escape(f"client hung up at {span.abandoned:.3f} s")}</title></path>')
    return parts


def _axis(tl: Timeline, scale: _Scale, top: int, axis_top: int) -> list[str]:
    """The time axis: a tick per slot sample (the sampling density), labelled ticks, the end of the requests."""
    parts = [f'<line x1="{LEFT}" y1="{axis_top}" x2="{WIDTH - RIGHT}" y2="{axis_top}" stroke="#444"/>']
    for sample in tl.slots:
        x = scale.x(sample.t)
        parts.append(f'<line x1="{x:.1f}" y1="{axis_top}" x2="{x:.1f}" y2="{axis_top + 3}" stroke="#aaa"/>')
    for t in _ticks(scale.end):
        x = scale.x(t)
        parts.append(f'<line x1="{x:.1f}" y1="{axis_top}" x2="{x:.1f}" y2="{axis_top + 6}" stroke="#444"/>')
        parts.append(_text(x, axis_top + 17, f"{t:g} s", anchor="middle", size=9))
    if tl.requests_done is not None:
        x = scale.x(tl.requests_done)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{axis_top}" stroke="#444" '
                     f'stroke-dasharray="3,3"><title>the last request ended</title></line>')
    return parts


def _metric_row(tl: Timeline, scale: _Scale, top: float) -> str:
    values = [(m.t, m.values.get("requests_deferred", 0.0)) for m in tl.metrics]
    most = max((v for _, v in values), default=0.0)
    high = max(most, 1.0)
    bottom = top + METRIC_ROW - 4
    points, last_y = [], bottom
    for t, v in values:
        y = bottom - v / high * (METRIC_ROW - 10)
        points.append(f"{scale.x(t):.1f},{last_y:.1f} {scale.x(t):.1f},{y:.1f}")
        last_y = y
    points.append(f"{scale.x(tl.end):.1f},{last_y:.1f}")
    return (_text(LEFT - 6, top + 12, "deferred", anchor="end", size=9)
            + _text(LEFT - 6, top + 22, f"max {most:g}", anchor="end", size=9)
            + f'<polyline points="{" ".join(points)}" fill="none" stroke="#e15759" stroke-width="1.5">'
            f'<title>llamacpp:requests_deferred (max {most:g})</title></polyline>')


def _owners(request_intervals: dict[int, Interval]) -> dict[Interval, int]:
    """The request each busy interval served (an interval serves at most one)."""
    return {interval: index for index, interval in request_intervals.items()}


def batch_report_html(batch: Batch) -> str:
    """The chart (visible) and a collapsed block: request table, slot intervals, metrics, failed polls,
    and the first requests' own blocks. Nothing per chunk."""
    tl = batch.timeline
    errors = sum(1 for i in batch.served() if batch.results[i].error)
    parts = [batch_html(batch.where, batch.results, batch.wall_s)]
    if batch.abandoned:
        parts.append(labelled("abandoned by the client as planned",
                              table(["request", "events read", "hung up at"],
                                    [[i, len(batch.results[i].events), secs(tl.requests[i].abandoned if tl else None)]
                                     for i in batch.abandoned])))
    if tl is not None:
        intervals = tl.intervals()
        request_intervals = tl.request_intervals(intervals)
        owner = _owners(request_intervals)
        rows = [[iv.slot, iv.id_task, owner.get(iv, "–"), f"{iv.start:.3f}", f"{iv.end:.3f}",
                 "–" if iv.n_decoded is None else iv.n_decoded] for iv in intervals]
        parts.append(labelled(f"busy slots ({len(rows)} stretches)",
                              table(["slot", "task", "request", "first seen busy (s)", "last seen busy (s)",
                                     "n_decoded"], rows)))
        if tl.metrics:
            names = ("requests_processing", "requests_deferred", "tokens_predicted_total", "prompt_tokens_total")
            rows = [[name, _g(tl.metrics[0].values.get(name)), _g(tl.metric_max(name)),
                     _g(tl.metrics[-1].values.get(name))] for name in names]
            parts.append(labelled(f"/metrics ({len(tl.metrics)} samples)",
                                  table(["llamacpp:", "first", "max", "last"], rows)))
        if tl.probes:
            parts.append(labelled("/slots?fail_on_no_slot=1 while every slot looked busy",
                                  table(["t (s)", "status"], [[f"{p.t:.3f}", p.status] for p in tl.probes])))
        if tl.errors:
            parts.append(labelled(f"failed polls ({len(tl.errors)})",
                                  table(["t (s)", "error"], [[f"{t:.3f}", e] for t, e in tl.errors[:20]])))
    shown = [i for i in range(len(batch)) if i < MAX_STREAM_BLOCKS or batch.results[i].error]
    blocks = "".join(stream_html(batch.results[i], name=f"request {i}") for i in shown[:MAX_STREAM_BLOCKS * 2])
    parts.append(details(f"the requests ({len(shown)} of {len(batch)})", blocks))
    summary = (f"{batch.where} × {len(batch)} concurrently: {errors} errors, {len(batch.abandoned)} abandoned, "
               f"{batch.wall_s:.3f} s" + (f"; {tl.summary()}" if tl else ""))
    chart = timeline_svg(tl, intervals, request_intervals) if tl is not None else ""
    return f"<div>{chart}{details(summary, ''.join(parts))}</div>"


def _g(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"
