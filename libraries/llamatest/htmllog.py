"""The HTML primitives every log block of log.html is made of: escaping, collapsed blocks, tables, images.

One bad tag breaks the whole log, so all text is escaped here, in one place, and this module is
unit-tested with hostile input. Functions taking `*_html` expect HTML made by the other functions of
this module. It sits at the bottom of the package (it imports nothing of ours): each layer builds its
own blocks from it (``http.logblock``, ``streaming.logblock``, ``concurrency.chart``), and ``report``
the bug reports and load reports above them.
"""

from __future__ import annotations

import base64
import html
import json
import re

MAX_CHARS = 50_000
_SURROGATES = re.compile("[\ud800-\udfff]")
_CELL = 'style="border:1px solid #ccc;padding:2px 6px;text-align:left"'


def escape(text: object) -> str:
    """Escape any value for HTML text or attribute use."""
    # Lone surrogates cannot be written as UTF-8 and would break writing the log.
    return html.escape(_SURROGATES.sub("\ufffd", str(text)), quote=True)


def details(summary: str, body_html: str, open_: bool = False) -> str:
    """A collapsible block; `summary` is plain text."""
    attr = " open" if open_ else ""
    return f"<details{attr}><summary>{escape(summary)}</summary>{body_html}</details>"


def pre(text: str) -> str:
    """Preformatted, escaped text, cut at MAX_CHARS with a note giving the full length."""
    text = str(text)
    note = ""
    if len(text) > MAX_CHARS:
        note = f"\n… truncated, {len(text):,} chars in all"
        text = text[:MAX_CHARS]
    return f'<pre style="white-space:pre-wrap">{escape(text + note)}</pre>'


def json_block(obj_or_text: object) -> str:
    """Pretty JSON when the value is JSON (or JSON text), else the text as is."""
    if isinstance(obj_or_text, bytes):
        obj_or_text = obj_or_text.decode("utf-8", errors="replace")
    if isinstance(obj_or_text, str):
        try:
            obj = json.loads(obj_or_text)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than Python parses
            return pre(obj_or_text)
    else:
        obj = obj_or_text
    try:
        return pre(json.dumps(obj, indent=2, ensure_ascii=False))
    except (TypeError, ValueError):
        return pre(repr(obj))
    except RecursionError:  # repr() would fail the same way
        return pre(f"(a {type(obj).__name__} nested too deeply to show)")


def table(headers: list, rows: list) -> str:
    """A small bordered table; every cell is escaped."""
    head = "".join(f"<th {_CELL}>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td {_CELL}>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table style="border-collapse:collapse"><tr>{head}</tr>{body}</table>'


def labelled(label: str, body_html: str) -> str:
    """A bold plain-text label on a line of its own, above the body (a block, or plain text that would
    otherwise run into the label)."""
    return f"<div><div><b>{escape(label)}</b></div>{body_html}</div>"


def png(data: bytes, alt: str, width: int | None = None) -> str:
    """An inline PNG (base64 data URI): log.html stays one self-contained file."""
    size = f' width="{int(width)}"' if width else ""
    return f'<img src="data:image/png;base64,{base64.b64encode(data).decode("ascii")}" alt="{escape(alt)}"{size}>'
