"""What a failed request really ran into: requests and urllib3 bury the socket error a few levels deep."""

from __future__ import annotations

import requests
import urllib3


def causes(exc: BaseException) -> list[BaseException]:
    """The exception and everything it wraps (args, reason, cause, context), each once."""
    found: list[BaseException] = []
    todo = [exc]
    while todo:
        err = todo.pop()
        if any(err is f for f in found):
            continue
        found.append(err)
        todo += [a for a in (*err.args, getattr(err, "reason", None), err.__cause__, err.__context__)
                 if isinstance(a, BaseException)]
    return found


def is_refused(exc: BaseException) -> bool:
    """True when nothing listened: a ConnectionRefusedError somewhere in the chain."""
    return any(isinstance(e, ConnectionRefusedError) for e in causes(exc))


_TIMED_OUT = (TimeoutError, urllib3.exceptions.ReadTimeoutError, urllib3.exceptions.ConnectTimeoutError)


def failure_kind(exc: BaseException) -> str:
    """What a failed request ran into: ``refused``, ``timeout``, ``reset``, ``cut`` (closed before the answer
    was complete) or ``other``; each client words it for its own messages."""
    chain = causes(exc)
    # First: urllib3's NewConnectionError (a refused connection) is a subclass of ConnectTimeoutError.
    if is_refused(exc):
        return "refused"
    if isinstance(exc, requests.Timeout) or any(isinstance(e, _TIMED_OUT) for e in chain):
        return "timeout"
    if any(isinstance(e, ConnectionResetError) for e in chain):
        return "reset"
    if isinstance(exc, requests.exceptions.ChunkedEncodingError):
        return "cut"
    return "other"
