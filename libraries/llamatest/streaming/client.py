"""The streamed-request client: one aiohttp request read as Server-Sent Events, every event timed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp

from llamatest import deadlines
from llamatest.streaming.result import StreamEvent, StreamResult
from llamatest.streaming.sse import SSEComment, SSEEvent, SSEParser, is_done
from llamatest.textutil import parse_json


def client_session(force_close: bool = False) -> aiohttp.ClientSession:
    """A session for streamed requests: no connection cap and no aiohttp timeout (each request has its deadline).

    ``force_close``: a connection per request, as separate users have; no keep-alive connection is reused, so
    no request lands on a connection the server is closing.
    """
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, force_close=force_close),
                                 timeout=aiohttp.ClientTimeout(total=None))


async def stream_one(session: aiohttp.ClientSession, url: str, body: Any, headers: dict | None = None,
                     deadline_s: float | None = None, method: str = "POST") -> StreamResult:
    """Sends ``body`` as JSON and records the answer, an event stream or a plain body.

    ``deadline_s`` (default: the ``stream`` deadline) covers connect, headers and the whole body. Never raises
    for timeouts or transport errors: they go to ``error``, so concurrent requests keep their own results.
    """
    deadline_s = deadlines.or_default(deadline_s, "stream")
    r = StreamResult(url=url, method=method, request_body=body, t0=time.perf_counter())

    def now() -> float:
        return time.perf_counter() - r.t0

    parser = None
    try:
        async with asyncio.timeout(deadline_s):
            async with session.request(method, url, json=body, headers=headers) as resp:
                r.t_headers = now()
                r.status = resp.status
                r.headers = {k.lower(): v for k, v in resp.headers.items()}
                if r.media_type == "text/event-stream":
                    parser = SSEParser()
                    async for chunk in resp.content.iter_any():
                        for item in parser.feed(chunk, now()):
                            _record(r, item)
                else:
                    r.body = (await resp.read()).decode("utf-8", errors="replace")
                    r.json_body = parse_json(r.body)
    except TimeoutError:
        r.error = f"no complete answer within {float(deadline_s)} s ({len(r.events)} events received)"
    except aiohttp.ClientPayloadError:
        r.error = f"connection closed before the response was complete ({len(r.events)} events received)"
    except (aiohttp.ClientError, OSError) as exc:
        r.error = f"transport error: {type(exc).__name__}: {exc}".splitlines()[0]
    except Exception as exc:  # one bad request must not sink a concurrent batch
        r.error = f"unexpected error: {type(exc).__name__}: {exc}".splitlines()[0]
    r.t_end = now()
    if parser is not None:
        parser.close(r.t_end)
        r.truncated_tail = parser.trailing
        r.invalid_utf8_lines = parser.invalid_utf8_lines
        if parser.trailing and not r.error:
            r.error = f"stream ended inside an event ({len(parser.trailing)} bytes unterminated)"
    return r


def _record(r: StreamResult, item: SSEEvent | SSEComment) -> None:
    if isinstance(item, SSEComment):
        r.comments.append(item.t)
    else:
        obj = None if is_done(item) else parse_json(item.data)
        r.events.append(StreamEvent(t=item.t, event=item.event, data=item.data, json=obj))
