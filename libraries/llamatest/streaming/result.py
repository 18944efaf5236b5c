"""What one streamed request recorded: every event with its arrival time, and what derives from them.

All times are seconds from the start of the request (``t0``, a ``time.perf_counter()`` value, says
when that was, so results of concurrent requests can be put on one timeline). Derived values are
properties computed from ``events``: a load engine can keep the raw event log and read TTFT, gaps
and text from it without a second copy.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from llamatest.textutil import media_type

DONE = "[DONE]"


@dataclass(frozen=True)
class StreamEvent:
    """One dispatched SSE event: arrival time, event type, data and its parsed JSON (``None`` if none)."""

    t: float
    event: str
    data: str
    json: Any = None

    @property
    def is_done(self) -> bool:
        """The OpenAI end-of-stream marker ``data: [DONE]``."""
        return self.data == DONE


@dataclass
class StreamResult:
    """One streamed request and its answer; see the StreamingLibrary documentation for the fields."""

    url: str
    method: str = "POST"
    request_body: Any = None
    t0: float = 0.0
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    events: list[StreamEvent] = field(default_factory=list)
    comments: list[float] = field(default_factory=list)  # arrival times of ":" lines
    t_headers: float | None = None
    t_end: float | None = None
    body: str | None = None  # the whole body when the answer is not an event stream
    json_body: Any = None
    error: str | None = None
    truncated_tail: bytes = b""
    invalid_utf8_lines: int = 0  # stream lines that were not valid UTF-8
    exchange_id: int | None = None  # the number of its log block, once logged (llamatest.http.exchanges)

    @property
    def where(self) -> str:
        """``POST /completion``: how failure messages and the log name the request."""
        return f"{self.method} {urlsplit(self.url).path or '/'}"

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def media_type(self) -> str:
        return media_type(self.content_type)

    @property
    def done_count(self) -> int:
        return sum(1 for e in self.events if e.is_done)

    @property
    def ended_with_done(self) -> bool:
        return bool(self.events) and self.events[-1].is_done

    @property
    def t_first_event(self) -> float | None:
        return self.events[0].t if self.events else None

    @property
    def text(self) -> str:
        return "".join(text for _, text in self.text_events())

    @property
    def t_first_text(self) -> float | None:
        """Time to first token: the first event carrying non-empty text."""
        texts = self.text_events()
        return texts[0][0] if texts else None

    @property
    def gaps(self) -> list[float]:
        """Times between successive text-bearing events (inter-token latencies)."""
        return [b[0] - a[0] for a, b in itertools.pairwise(self.text_events())]

    def text_events(self) -> list[tuple[float, str]]:
        """``(t, text)`` of every event carrying non-empty generated text, in arrival order."""
        pairs = ((e.t, chunk_text(e.json)) for e in self.events)
        return [(t, text) for t, text in pairs if text]


def chunk_text(obj: Any) -> str | None:
    """Generated text of one chunk: OAI chat ``choices[0].delta.content``, OAI completion
    ``choices[0].text``, or native ``/completion`` ``content``."""
    if not isinstance(obj, dict):
        return None
    choices = obj.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        choice = choices[0]
        value = choice["delta"].get("content") if isinstance(choice.get("delta"), dict) else choice.get("text")
    else:
        value = obj.get("content")
    return value if isinstance(value, str) else None
