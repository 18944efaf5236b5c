"""The log blocks of streamed requests: one per request, one summary table per concurrent batch.

A numbered stream (``llamatest.streaming.exchange.number``) shows ``[exchange #12]`` in its summary line
(a batch: in its table) and carries its record, as every HTTP exchange block does (`llamatest.http.logblock`).
"""

from __future__ import annotations

from llamatest.htmllog import details, json_block, labelled, pre, table
from llamatest.http.exchanges import Exchange
from llamatest.http.logblock import record_html, suffix
from llamatest.streaming.result import StreamEvent, StreamResult


def stream_html(r: StreamResult, exchange: Exchange | None = None, name: str = "") -> str:
    """A collapsed block: summary table, request, plain body or raw events with arrival times, cut tail.

    ``name`` starts the summary line: in a batch, ``request 3``, as the chart and the table name it."""
    rows = [["url", r.url], ["status", r.status], ["content type", r.content_type or "–"],
            ["events", len(r.events)], ["comments", len(r.comments)], ["[DONE] markers", r.done_count],
            ["TTFT", secs(r.t_first_text)], ["total time", secs(r.t_end)], ["text length", f"{len(r.text):,} chars"]]
    if r.error:
        rows.append(["error", r.error])
    parts = [table(["", ""], rows), labelled("request", json_block(r.request_body))]
    if r.body is not None:
        parts.append(labelled("response body", json_block(r.body)))
    if r.events or r.comments:
        lines = sorted([(e.t, f"{e.t:8.3f}  {_event_lines(e)}") for e in r.events]
                       + [(t, f"{t:8.3f}  :") for t in r.comments], key=lambda pair: pair[0])
        parts.append(details(f"raw events ({len(r.events)})", pre("\n".join(line for _, line in lines))))
    if r.truncated_tail:
        parts.append(labelled("unterminated tail", pre(r.truncated_tail.decode("utf-8", "replace"))))
    status = r.status if r.status is not None else "no answer"
    summary = f"{name + ': ' if name else ''}{r.where} → {status} ({len(r.events)} events, {secs(r.t_end)})" \
              f"{suffix(exchange)}"
    return details(summary, "".join(parts)) + record_html(exchange)


def batch_html(where: str, results: list[StreamResult], wall_s: float,
               exchanges: list[Exchange] | None = None) -> str:
    """A collapsed summary table of concurrent requests, one row each; nothing per chunk.

    With ``exchanges`` (one per result), each row names its exchange and the block carries their records.
    """
    rows = [[i, r.status, len(r.events), r.done_count, secs(r.t_first_text), secs(r.t_end), len(r.text),
             r.error or ""] for i, r in enumerate(results)]
    headers = ["#", "status", "events", "[DONE]", "TTFT", "total", "text chars", "error"]
    if exchanges:
        headers.append("exchange")
        rows = [[*row, exchange.label] for row, exchange in zip(rows, exchanges, strict=True)]
    errors = sum(1 for r in results if r.error)
    numbers = f" [exchanges #{exchanges[0].id}–#{exchanges[-1].id}]" if exchanges else ""
    summary = f"{where} × {len(results)} concurrently ({errors} errors, {wall_s:.3f} s){numbers}"
    return details(summary, table(headers, rows)) + "".join(record_html(e) for e in exchanges or [])


def secs(t: float | None) -> str:
    return "–" if t is None else f"{t:.3f} s"


def _event_lines(event: StreamEvent) -> str:
    prefix = "" if event.event == "message" else f"event: {event.event} | "
    return prefix + " | ".join(f"data: {line}" for line in event.data.split("\n"))
