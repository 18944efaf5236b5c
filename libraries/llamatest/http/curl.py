"""An exchange record (``llamatest.http.exchanges``) as a ``curl`` command that sends the same request.

The command sends the method, the URL, the headers the record kept and the body byte for byte
(``--data-binary``, single-quoted for the shell, or from a file when the body is long, binary or holds a
character a shell argument cannot). A redacted key becomes ``$LLAMA_API_KEY``, and a stream is read with
``-N`` so that events show as they arrive. ``-i`` prints the status line and headers of the answer.
"""

from __future__ import annotations

import re
import shlex

from llamatest.http.exchanges import record_body

INLINE_LIMIT = 2000  # bytes of body written into the command; a longer body goes to a file
KEY_VARIABLE = "LLAMA_API_KEY"
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def body_inline(body: bytes) -> str | None:
    """The body as text for the command line, or None when it belongs in a file."""
    if len(body) > INLINE_LIMIT:
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if _UNPRINTABLE.search(text) else text


def curl_command(record: dict, body_file: str | None = None, then: dict | None = None) -> str:
    """The command, one option per line; ``body_file`` is where the body is when it is not inline.

    ``then``: the record of a request sent on the same connection right after this one's answer; ``--next``
    sends it in the same curl run, with ``-v`` so that curl says whether it could reuse the connection.
    """
    lines = _request_lines(record, body_file)
    if then is None:
        return " \\\n  ".join(lines)
    following = _request_lines(then, None)
    lines[0] = lines[0].replace("curl -sS", "curl -v -sS", 1)
    return " \\\n  ".join([*lines, "--next " + following[0].removeprefix("curl "), *following[1:]])


def _request_lines(record: dict, body_file: str | None) -> list[str]:
    body = record_body(record)
    has_body = body is not None or "body_bytes" in record
    first = ["curl", "-sS", "-i"] + (["-N"] if record.get("stream") else [])
    first += _method_options(record["method"], has_body)
    lines = [" ".join(first) + " " + shlex.quote(record["url"])]
    headers = record.get("headers", {})
    lines += [f"-H {_header(name, value)}" for name, value in headers.items()]
    if has_body and not any(name.lower() == "content-type" for name in headers):
        lines.append("-H 'Content-Type:'")  # the request had none; curl would add a form type of its own
    if body is not None and body_file is None and body_inline(body) is not None:
        lines.append(f"--data-binary {shlex.quote(body_inline(body))}")
    elif has_body:
        lines.append(f"--data-binary @{shlex.quote(body_file or 'BODY')}")
    return lines


def _method_options(method: str, has_body: bool) -> list[str]:
    if method == "HEAD":
        return ["--head"]  # -X HEAD would wait for a body that never comes
    if (method == "GET" and not has_body) or (method == "POST" and has_body):
        return []  # what curl sends anyway
    return ["-X", method]


def _header(name: str, value: str) -> str:
    if "<redacted>" not in value:
        return shlex.quote(f"{name}: {value}")
    # Double quotes, so that the shell puts the key in; everything else in them is escaped.
    before, _, after = f"{name}: {value}".partition("<redacted>")
    return f'"{_double_quoted(before)}${KEY_VARIABLE}{_double_quoted(after)}"'


def _double_quoted(text: str) -> str:
    return re.sub(r'(["\\$`])', r"\\\1", text)
