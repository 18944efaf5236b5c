"""Incremental Server-Sent Events parser following the WHATWG event-stream rules.

Pure code, no I/O: feed it the bytes as they arrive, with the time they arrived.
https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_BOM = b"\xef\xbb\xbf"
_LINE_END = re.compile(rb"\r\n|\r|\n")


@dataclass
class SSEEvent:
    event: str
    data: str
    id: str | None
    t: float


@dataclass
class SSEComment:
    text: str
    t: float


def data_lines(text: str, prefix: str = "data:") -> list[str]:
    """What follows ``prefix`` on every line of a whole event-stream body that starts with it, in order."""
    return [line[len(prefix):] for line in text.splitlines() if line.startswith(prefix)]


def json_of_data_lines(text: str, prefix: str = "data: ") -> list:
    """The JSON of every ``data_lines`` payload of ``text``, in order; a payload that is not JSON fails."""
    return [json.loads(line) for line in data_lines(text, prefix)]


def is_done(event: SSEEvent) -> bool:
    """True for the OpenAI end-of-stream marker `data: [DONE]`."""
    return event.data == "[DONE]"


class SSEParser:
    """Turns a byte stream into `SSEEvent` and `SSEComment` items, in arrival order.

    Lines are split on bytes before decoding, so a multi-byte UTF-8 character cut
    between two reads is decoded whole. After `close()`, `trailing` holds the bytes
    of an event that never got its terminating blank line (the spec discards it).
    With `keep_raw=False` the raw lines are not kept (less work per line for a
    client that never reads `trailing`): `trailing` then holds only the last,
    unterminated line.
    """

    def __init__(self, keep_raw: bool = True) -> None:
        self._keep_raw = keep_raw
        self._buf = b""  # bytes of the current, not yet terminated line
        self._bom_checked = False
        self._after_cr = False  # last line ended with a bare CR: a following LF belongs to it
        self._event_type = ""
        self._data: list[str] = []
        self._last_id: str | None = None  # per spec the id persists across events
        self._event_raw = bytearray()  # raw lines since the last dispatch, for `trailing`
        self._has_fields = False
        self.trailing = b""
        self.invalid_utf8_lines = 0  # lines that were not valid UTF-8 (decoded with U+FFFD instead)

    def feed(self, chunk: bytes, t: float) -> list[SSEEvent | SSEComment]:
        buf = self._buf + chunk
        if not self._bom_checked:
            if len(buf) < len(_BOM) and _BOM.startswith(buf):
                self._buf = buf  # may still become a BOM
                return []
            if buf.startswith(_BOM):
                buf = buf[len(_BOM):]
            self._bom_checked = True
        if self._after_cr and buf:
            if buf.startswith(b"\n"):
                buf = buf[1:]
            self._after_cr = False

        items: list[SSEEvent | SSEComment] = []
        pos = 0
        keep_raw = self._keep_raw
        while match := _LINE_END.search(buf, pos):
            line = buf[pos:match.start()]
            if keep_raw:
                self._event_raw += buf[pos:match.end()]
            pos = match.end()
            # A CR that ends the buffer may be the first half of CRLF; the line is complete either way.
            if match.group() == b"\r" and pos == len(buf):
                self._after_cr = True
            item = self._process_line(self._decode(line), t)
            if item is not None:
                items.append(item)
        self._buf = buf[pos:]
        return items

    def _decode(self, line: bytes) -> str:
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            self.invalid_utf8_lines += 1
            return line.decode("utf-8", errors="replace")

    def close(self, t: float | None = None) -> list[SSEEvent | SSEComment]:
        """End of stream: an unterminated event is discarded, but reported in `trailing`."""
        if self._buf or self._has_fields:
            self.trailing = bytes(self._event_raw) + self._buf
        self._buf = b""
        self._event_raw = bytearray()
        self._has_fields = False
        self._data = []
        self._event_type = ""
        return []

    def _process_line(self, line: str, t: float) -> SSEEvent | SSEComment | None:
        if line == "":
            return self._dispatch(t)
        if line.startswith(":"):
            if not self._has_fields and self._keep_raw:
                self._event_raw = bytearray()  # a comment alone is not part of an event
            return SSEComment(_strip_one_space(line[1:]), t)
        self._has_fields = True
        name, colon, value = line.partition(":")
        value = _strip_one_space(value) if colon else ""
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event_type = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        # "retry" and unknown fields do not matter to a test client.
        return None

    def _dispatch(self, t: float) -> SSEEvent | None:
        event = None
        if self._data:
            event = SSEEvent(self._event_type or "message", "\n".join(self._data), self._last_id, t)
        self._data = []
        self._event_type = ""
        if self._keep_raw:
            self._event_raw = bytearray()
        self._has_fields = False
        return event


def _strip_one_space(value: str) -> str:
    return value[1:] if value.startswith(" ") else value
