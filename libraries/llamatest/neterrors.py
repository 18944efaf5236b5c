"""What a failed request really ran into: requests and urllib3 bury the socket error a few levels deep."""

from __future__ import annotations


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
