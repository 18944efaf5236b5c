"""The typed HTTP response every assertion keyword works on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests

from llamatest.textutil import parse_json


@dataclass(frozen=True)
class Response:
    """One finished exchange: what a test asserts on, independent of the HTTP client that made it."""

    method: str
    url: str
    status: int
    text: str
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    elapsed: float = 0.0  # seconds for the whole exchange
    exchange_id: int | None = None  # the number of its log block (llamatest.http.exchanges)

    @property
    def json(self) -> Any:
        """The parsed body, or None when the body is not JSON."""
        return parse_json(self.text)

    @property
    def where(self) -> str:
        """``POST /completion``: how failure messages name the exchange."""
        return f"{self.method} {path_of(self.url)}"

    def header_tokens(self, name: str) -> list[str]:
        """The comma-separated values of header ``name``, stripped and lower-cased; [] when it is absent."""
        value = self.headers.get(name.lower())
        return [] if value is None else [part.strip().lower() for part in value.split(",")]

    @classmethod
    def from_requests(cls, resp: requests.Response) -> Response:
        return cls(method=resp.request.method if resp.request is not None else "?", url=resp.url,
                   status=resp.status_code, text=resp.text,
                   headers={k.lower(): v for k, v in resp.headers.items()},
                   elapsed=resp.elapsed.total_seconds(), exchange_id=getattr(resp, "exchange_id", None))


def as_response(value) -> Response:
    """A RequestsLibrary (requests) response or a `Response`; anything else is a caller's mistake."""
    if isinstance(value, Response):
        return value
    if isinstance(value, requests.Response):
        return Response.from_requests(value)
    raise TypeError(f"expected an HTTP response (from 'POST On Session', 'GET On Session' or a domain keyword), "
                    f"got {type(value).__name__}")


def json_of(value) -> Any:
    """The JSON document of a response, or the value itself when it already is JSON data."""
    if isinstance(value, (Response, requests.Response)):
        return as_response(value).json
    return value


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
