"""Trace replay: requests sent on a recorded schedule, each with its exact prompt and output token counts.

A trace is a list of ``TraceRow`` (arrival offset in seconds, input tokens, output tokens, optional
session). Files are read in three shapes, told apart by their columns:

- this project's JSONL: ``{"offset_s": 0.25, "input_tokens": 120, "output_tokens": 32, "session": "a"}``;
- Mooncake-style JSONL: ``{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [...]}``
  (milliseconds; ``hash_ids`` are read and kept, not used to build prompts);
- BurstGPT-style CSV: ``Timestamp`` (seconds), ``Request tokens``, ``Response tokens`` (rows with 0 response
  tokens, failed requests in BurstGPT, are skipped and counted).

Offsets start at the first row (rows are sorted by time). A bad row raises ``TraceError`` with one line
naming the file, the line and the problem. ``bursty_trace`` makes the shipped trace at run time: a seeded
gamma arrival process (burstier than Poisson) with log-uniform token counts.

``TraceWorkload.body_maker`` returns a ``body_for`` with ``schedule(profile)``: the engine sends request ``i``
at ``offsets[i]`` (the rows inside the profile's ``duration_s``), with ``max_tokens`` = its output tokens and
``ignore_eos``; its prompt has exactly its input tokens (built with ``/tokenize``, ``datasets.exact_prompts``).
Rows of one session share their prompt's beginning (the shorter one is a prefix of the longer).
"""

from __future__ import annotations

import csv
import json
import math
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from llamatest.load.workloads import datasets, routes
from llamatest.load.workloads.bodies import RequestBodies, sampling_fields, with_fields


class TraceError(ValueError):
    """A trace that cannot be replayed; the message is one line: ``file:line: problem``."""


@dataclass(frozen=True)
class TraceRow:
    offset_s: float
    input_tokens: int
    output_tokens: int
    session: str | None = None
    hash_ids: tuple[int, ...] = ()

    def as_dict(self) -> dict:
        out = {"offset_s": self.offset_s, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens}
        if self.session is not None:
            out["session"] = self.session
        return out


# (offset column, scale to seconds, input column, output column, session column) per shape
_SHAPES = {
    "llamatest": ("offset_s", 1.0, "input_tokens", "output_tokens", "session"),
    "mooncake": ("timestamp", 0.001, "input_length", "output_length", None),
    "burstgpt": ("Timestamp", 1.0, "Request tokens", "Response tokens", None),
}


def _shape_of(keys, where: str) -> str:
    for name, (offset, _, n_in, n_out, _) in _SHAPES.items():
        if {offset, n_in, n_out} <= set(keys):
            return name
    known = "; ".join(f"{n}: {s[0]}, {s[2]}, {s[3]}" for n, s in _SHAPES.items())
    raise TraceError(f"{where}: columns {sorted(keys)} match no trace format ({known})")


def _number(value, what: str, where: str, *, integer: bool) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TraceError(f"{where}: {what} is not a number: {value!r}") from None
    if not math.isfinite(x) or x < 0 or (integer and x != int(x)):
        kind = "a whole number >= 0" if integer else "a number >= 0"
        raise TraceError(f"{where}: {what} must be {kind}; got {value!r}")
    return int(x) if integer else x


def _row(record: dict, shape: str, where: str) -> TraceRow | None:
    offset_key, scale, in_key, out_key, session_key = _SHAPES[shape]
    offset = _number(record.get(offset_key), offset_key, where, integer=False) * scale
    n_in = _number(record.get(in_key), in_key, where, integer=True)
    n_out = _number(record.get(out_key), out_key, where, integer=True)
    if n_out == 0 and shape == "burstgpt":
        return None  # a failed request in BurstGPT's log
    if n_in < 1 or n_out < 1:
        raise TraceError(f"{where}: {in_key} and {out_key} must be at least 1; got {n_in} and {n_out}")
    session = record.get(session_key) if session_key else None
    hash_ids = record.get("hash_ids") or ()
    if not isinstance(hash_ids, list | tuple):
        raise TraceError(f"{where}: hash_ids must be a list; got {hash_ids!r}")
    return TraceRow(offset, n_in, n_out, None if session is None else str(session), tuple(hash_ids))


def read_trace(path: str | Path) -> tuple[list[TraceRow], dict]:
    """The rows of the trace file ``path`` (JSONL or CSV, see the module documentation), sorted by time with
    offsets from the first row, and what was read: ``{"format", "rows", "skipped"}``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceError(f"{path}: cannot read the trace: {exc}") from None
    records = _csv_records(text) if path.suffix.lower() == ".csv" else _jsonl_records(text, path)
    rows: list[TraceRow] = []
    shape = None
    skipped = 0
    for line, record in records:
        where = f"{path}:{line}"
        shape = shape or _shape_of(record.keys(), where)
        row = _row(record, shape, where)
        if row is None:
            skipped += 1
        else:
            rows.append(row)
    if not rows:
        raise TraceError(f"{path}:1: the trace has no request to replay")
    rows.sort(key=lambda r: r.offset_s)
    start = rows[0].offset_s
    rows = [TraceRow(r.offset_s - start, r.input_tokens, r.output_tokens, r.session, r.hash_ids) for r in rows]
    return rows, {"format": shape, "rows": len(rows), "skipped": skipped, "file": str(path)}


def _jsonl_records(text: str, path: Path):
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError as exc:
            raise TraceError(f"{path}:{line}: not a JSON object: {exc}") from None
        if not isinstance(record, dict):
            raise TraceError(f"{path}:{line}: not a JSON object: {raw[:80]!r}")
        yield line, record


def _csv_records(text: str):
    reader = csv.DictReader(text.splitlines())
    for record in reader:
        yield reader.line_num, {k.strip(): v for k, v in record.items() if k is not None}


def write_trace(rows: list[TraceRow], path: str | Path) -> Path:
    """Writes ``rows`` as this project's JSONL; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r.as_dict()) + "\n" for r in rows), encoding="utf-8")
    return path


def bursty_trace(n: int = 60, *, rate: float = 2.0, burstiness: float = 0.25, seed: int = 0,
                 input_tokens: tuple[int, int] = (32, 256), output_tokens: tuple[int, int] = (8, 64),
                 sessions: int = 8) -> list[TraceRow]:
    """``n`` rows at a mean ``rate`` per second: gamma gaps of shape ``burstiness`` (below 1: bursts and lulls),
    token counts log-uniform in the given ranges, each row in one of ``sessions`` sessions; seeded."""
    if not (isinstance(n, int) and n >= 1 and rate > 0 and burstiness > 0 and sessions >= 1):
        raise ValueError(f"need n >= 1, rate > 0, burstiness > 0, sessions >= 1; got {n}, {rate}, {burstiness}, "
                         f"{sessions}")
    rng = np.random.default_rng(seed)
    gaps = rng.gamma(burstiness, 1.0 / (burstiness * rate), size=n)
    offsets = np.concatenate([[0.0], np.cumsum(gaps[1:])])

    def log_uniform(low: int, high: int) -> np.ndarray:
        return np.rint(np.exp(rng.uniform(np.log(low), np.log(high), size=n))).astype(int)

    n_in, n_out = log_uniform(*input_tokens), log_uniform(*output_tokens)
    session = rng.integers(0, sessions, size=n)
    return [TraceRow(round(float(o), 6), int(i), int(m), f"s{int(s)}")
            for o, i, m, s in zip(offsets, n_in, n_out, session, strict=True)]


@dataclass(frozen=True)
class TraceWorkload:
    """A trace and one prompt per row of exactly its input tokens (``build_prompts``)."""

    rows: tuple[TraceRow, ...]
    prompts: tuple[str, ...]
    source: dict = field(default_factory=dict)
    warm: bool = True  # rows of one session share a prefix: reusing it is part of the replay

    def texts(self) -> list[str]:
        return list(self.prompts)

    def body_maker(self, *, route: str, max_tokens: int, cold: bool, extra: dict | None) -> TraceBodies:
        """``max_tokens`` is unused: every row asks for its own output tokens."""
        if route not in datasets.ROUTES:
            raise ValueError(f"a trace replays on {', '.join(datasets.ROUTES)}; got {route!r}")
        return TraceBodies(self, route, sampling_fields(cold, extra))


@dataclass(frozen=True)
class TraceBodies(RequestBodies):
    trace: TraceWorkload
    route: str
    fields: dict = field(default_factory=dict)

    def schedule(self, profile) -> tuple[list[float], tuple[float, float]]:
        """The rows' offsets inside the profile's ``duration_s`` (the trace's own time, no warmup) and the
        measured window: from 0 to the last of them. Request ``i`` is row ``i``: no warmup requests."""
        if profile.warmup_requests:
            raise ValueError("a trace replay sends its rows as they are: use warmup_requests=0")
        offsets = [r.offset_s for r in self.trace.rows if r.offset_s < profile.duration_s]
        return offsets, (0.0, max(offsets[-1], 1e-3))

    def __call__(self, index: int) -> dict:
        row = self.trace.rows[index % len(self.trace.rows)]
        body = routes.generation_body(self.route, self.trace.prompts[index % len(self.trace.prompts)],
                                      row.output_tokens)
        return with_fields(body, self.fields)

    def prompt_tokens_of(self, index: int) -> int:
        return self.trace.rows[index % len(self.trace.rows)].input_tokens


def build_prompts(base_url: str, rows: list[TraceRow], *, route: str = routes.CHAT, seed: int = 0,
                  headers: dict | None = None) -> TraceWorkload:
    """One prompt per row, of exactly its input tokens as ``route`` counts them; rows of one session open
    with that session's tag (``[s<session>]``) and filler drawn with (seed, session), the others with their
    own (``[r<row>]``)."""
    wanted = []
    for i, row in enumerate(rows):
        key = f"s{row.session}" if row.session is not None else f"r{i}"  # short: small prompts must hold it
        wanted.append((f"[{key}] ", row.input_tokens, zlib.crc32(f"{seed}:{key}".encode())))
    prompts = datasets.exact_prompts(base_url, wanted, route=route, headers=headers)
    return TraceWorkload(tuple(rows), tuple(prompts))
