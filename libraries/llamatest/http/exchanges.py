"""The numbered exchanges of a run: ``exchange #12`` names one log block, in the log and in failures.

Every exchange that is logged (a RequestsLibrary request, a stream, a connection-reuse probe) gets the
next number of the process, which is one robot run, so a number names one block of its log.html. The
block also carries the exchange's ``record`` (method, URL, the request headers that matter, with keys
redacted, the body, the status and the head of the answer) as JSON, so that tools reading output.xml
can replay it (``llamatest.report.bugs`` writes it as a ``curl`` command).

A failure names the exchange it judged: a response or stream result knows its number
(``exchange_id``); a JSON document taken from one (``${resp.json()}``, ``${result.json_body}``) is
looked up among the recent exchanges, newest first, by content.
"""

from __future__ import annotations

import base64
import itertools
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from llamatest.textutil import parse_json

# Exchanges whose answers a failure can still name (older ones are in the log only). A failure parses their
# answers again, so the bounds keep a failing check inside a polling loop cheap.
RECENT = 32
MAX_RECORDED_BODY = 1 << 20  # larger request bodies are not copied into the record (only their size)
MAX_KEPT_ANSWER = 1 << 20  # larger answers are not kept for naming (a failure on them names no exchange)
ANSWER_HEAD = 2000  # characters of the answer kept in the record, for a bug report's "actual"
MAX_DEPTH = 8  # how deep a JSON value is looked for inside an answer
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "proxy-authorization", "cookie"})
# Headers every client adds by itself; a reproduction does not need them.
CLIENT_HEADERS = frozenset({"user-agent", "accept-encoding", "connection", "content-length", "host"})

_ids = itertools.count(1)
_recent: deque[Exchange] = deque(maxlen=RECENT)


@dataclass(frozen=True)
class Exchange:
    """One logged request and what became of it."""

    id: int
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)  # what a reproduction needs; secrets redacted
    body: bytes | None = None
    status: int | None = None
    stream: bool = False
    error: str | None = None  # no complete answer: why
    answer: str = ""  # the answer's body (or its raw events), cut to ANSWER_HEAD in the record
    follows: int | None = None  # sent on the connection of that exchange, right after its answer
    # The JSON documents of the answer (body, events); a callable so that nothing is parsed until a failure.
    documents: Callable[[], list] = field(default=list, repr=False, compare=False)

    @property
    def label(self) -> str:
        return label(self.id)

    def record(self) -> dict:
        """The JSON-ready record of the exchange, as the log block carries it."""
        rec: dict[str, Any] = {"id": self.id, "method": self.method, "url": self.url, "headers": self.headers}
        if self.body is not None:
            rec.update(body_fields(self.body))
        rec["status"] = self.status
        if self.stream:
            rec["stream"] = True
        if self.error:
            rec["error"] = self.error
        if self.answer:
            rec["answer"] = self.answer[:ANSWER_HEAD]
        if self.follows is not None:
            rec["follows"] = self.follows
        return rec


def label(exchange_id: int) -> str:
    """``exchange #12``: how the log block and the failure messages name an exchange."""
    return f"exchange #{exchange_id}"


def register(method: str, url: str, headers: Mapping[str, str] | None = None, body: bytes | str | None = None,
             **outcome) -> Exchange:
    """A new exchange with the next number, kept among the recent ones; ``outcome`` as in `Exchange`."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    elif not isinstance(body, bytes):
        body = None  # a file or a generator was streamed: nothing to record
    for field_name in ("answer", "error"):
        if outcome.get(field_name):
            outcome[field_name] = without_keys(outcome[field_name], headers or {})
    exchange = Exchange(next(_ids), method.upper(), url, request_headers(headers or {}), body or None, **outcome)
    _recent.append(exchange)
    return exchange


def request_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers a reproduction needs: no client defaults, and the value of a key never."""
    kept = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower in CLIENT_HEADERS or (lower == "accept" and value == "*/*"):
            continue
        kept[name] = redacted(value) if lower in SECRET_HEADERS else str(value)
    return kept


def without_keys(text: str, headers: Mapping[str, str]) -> str:
    """``text`` with every key the request sent replaced by ``<redacted>`` (an answer may echo a key)."""
    for name, value in headers.items():
        if name.lower() in SECRET_HEADERS:
            key = str(value).partition(" ")[2] or str(value)
            if len(key) >= 4:  # a shorter "key" would redact ordinary text
                text = text.replace(key, "<redacted>")
    return text


def redacted(value: str) -> str:
    """``Bearer sk-123`` → ``Bearer <redacted>``: the scheme says how the key was sent, the key stays out."""
    scheme, _, rest = str(value).partition(" ")
    return f"{scheme} <redacted>" if rest else "<redacted>"


def body_fields(body: bytes) -> dict:
    """The body as the record holds it: UTF-8 text, base64 for other bytes, only its size when too large."""
    if len(body) > MAX_RECORDED_BODY:
        return {"body_bytes": len(body)}
    try:
        return {"body": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"body_base64": base64.b64encode(body).decode("ascii")}


def record_body(record: dict) -> bytes | None:
    """The body bytes of a record (``None`` without a body or when it was too large to record)."""
    if "body" in record:
        return record["body"].encode("utf-8")
    if "body_base64" in record:
        return base64.b64decode(record["body_base64"])
    return None


def recent(exchange_id: int) -> Exchange | None:
    """A recent exchange by its number."""
    return next((e for e in reversed(_recent) if e.id == exchange_id), None)


# ---- naming the exchange a failure judged --------------------------------------------------------------


def label_of(value: Any) -> str | None:
    """The label of the exchange ``value`` came from: a response, a stream result or JSON data taken from one."""
    if isinstance(value, (dict, list)):
        found = find(value)
        return found.label if found else None
    exchange_id = getattr(value, "exchange_id", None)
    return label(exchange_id) if isinstance(exchange_id, int) else None


def find(doc: Any) -> Exchange | None:
    """The newest recent exchange whose answer is ``doc`` or holds it; ``None`` for an empty value."""
    if not doc:
        return None  # {} or [] is in too many answers to tell
    for exchange in reversed(_recent):
        if any(_holds(candidate, doc, 0) for candidate in exchange.documents()):
            return exchange
    return None


def _holds(candidate: Any, doc: Any, depth: int) -> bool:
    if candidate == doc:
        return True
    if depth >= MAX_DEPTH:
        return False
    children = candidate.values() if isinstance(candidate, dict) else candidate if isinstance(candidate, list) else ()
    return any(_holds(child, doc, depth + 1) for child in children)


def with_label(message: str, exchange_label: str | None) -> str:
    """``message [exchange #12]``, once."""
    if not exchange_label or exchange_label in message:
        return message
    return f"{message} [{exchange_label}]"


@contextmanager
def naming(value: Any) -> Iterator[None]:
    """Adds the label of the exchange ``value`` came from to an assertion failure raised inside."""
    try:
        yield
    except AssertionError as exc:
        message = str(exc)
        labelled = with_label(message, label_of(value))
        if labelled == message:
            raise
        raise AssertionError(labelled) from None


def json_documents(text: str) -> Callable[[], list]:
    """The `Exchange.documents` of a plain answer: its body parsed, on demand (nothing for a huge body)."""
    if len(text) > MAX_KEPT_ANSWER:
        return list

    def parse() -> list:
        doc = parse_json(text)
        return [] if doc is None else [doc]

    return parse
