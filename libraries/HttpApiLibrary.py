"""Synchronous HTTP request/response keywords and JSON assertions for llama-server."""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

import requests
import urllib3
from robot.api import logger
from robot.api.deco import keyword, library
from robot.utils import DotDict

from llamatest.report import html as _htmllog
from llamatest.textutil import join_url, parse_json, short_repr

_NO_BODY = object()
_RESPONSE_KEYS = {"status", "headers", "text", "json", "elapsed", "method", "url"}
_TYPES = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, float),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class HttpApiLibrary:
    """Plain request/response keywords for llama-server's HTTP API, with JSON assertions.

    %TOC%

    = Usage =

    | ***** Settings *****
    | Library    HttpApiLibrary
    |
    | ***** Test Cases *****
    | Health Is Ok
    |     ${resp} =    GET From Server    ${BASE_URL}    /health
    |     Status Should Be    ${resp}    200
    |     Json Field Should Be    ${resp}    status    ok
    |
    | Negative N Predict Is Rejected
    |     ${resp} =    POST Json To Server    ${BASE_URL}    /completion    ${{ {"prompt": "x", "n_predict": -5} }}
    |     Error Response Should Be    ${resp}    400    invalid_request_error    message_contains=n_predict

    The base URL and the path are separate arguments; they are joined with exactly one slash.
    Every request has a deadline (``timeout``, seconds, default 30) covering the whole exchange.
    A timeout fails with ``GET /x: no answer within 30.0 s``; a refused connection fails with a
    one-line message naming the URL. Each exchange is logged as one collapsed block holding the
    request body and the response body.

    = Response =

    Request keywords return a ``DotDict``:
    | =Key=     | =Value=                                                  |
    | status    | HTTP status, ``int``                                     |
    | headers   | ``dict`` with lower-case header names                    |
    | text      | body as ``str``                                          |
    | json      | parsed body, or ``None`` when the body is not JSON       |
    | elapsed   | seconds for the whole exchange, ``float``                |
    | method    | e.g. ``POST``                                            |
    | url       | full request URL                                         |

    = JSON paths =

    Paths are dotted, with list indices as numbers: ``data.0.meta.n_ctx_train``.
    An empty path means the whole document. JSON keywords accept a response or a plain dict/list.
    """

    def __init__(self) -> None:
        self._session = requests.Session()

    # ---- requests -------------------------------------------------------------------------------------

    @keyword("GET From Server")
    def get_from_server(self, base: str, path: str, headers: dict | None = None, timeout: float = 30) -> DotDict:
        """Sends ``GET base/path`` and returns the response (see `Response`)."""
        return self._request("GET", base, path, headers=headers, timeout=timeout)

    @keyword("POST Json To Server")
    def post_json_to_server(self, base: str, path: str, body, headers: dict | None = None,
                            timeout: float = 30) -> DotDict:
        """Sends ``body`` (any JSON-able value) as JSON with ``POST base/path``."""
        return self._request("POST", base, path, json_body=body, headers=headers, timeout=timeout)

    @keyword("POST Raw Body To Server")
    def post_raw_body_to_server(self, base: str, path: str, data: str | bytes,
                                content_type: str = "application/json", headers: dict | None = None,
                                timeout: float = 30) -> DotDict:
        """Sends ``data`` exactly as given, e.g. malformed JSON."""
        all_headers = {"Content-Type": content_type, **(headers or {})}
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return self._request("POST", base, path, data=raw, headers=all_headers, timeout=timeout)

    @keyword("Send Request To Server")
    def send_request_to_server(self, method: str, base: str, path: str, body=None, headers: dict | None = None,
                               timeout: float = 30) -> DotDict:
        """Sends any method (``OPTIONS``, ``DELETE``, …); ``body`` is sent as JSON when given."""
        json_body = _NO_BODY if body is None else body
        return self._request(method.upper(), base, path, json_body=json_body, headers=headers, timeout=timeout)

    # ---- status and error assertions ------------------------------------------------------------------

    @keyword("Status Should Be")
    def status_should_be(self, resp: dict, expected: int) -> None:
        """Fails unless the HTTP status is ``expected``; the message shows the start of the body."""
        if resp["status"] != expected:
            raise AssertionError(f"{_where(resp)}: status was {resp['status']}, expected {expected}; "
                                 f"body: {resp['text'][:300]!r}")

    @keyword("Error Response Should Be")
    def error_response_should_be(self, resp: dict, status: int, type: str, message: str | None = None,
                                 message_contains: str | None = None) -> None:
        """Checks a llama-server error: ``{"error": {"code": status, "type": type, "message": …}}``.

        The HTTP status must equal ``status`` and ``error.code``. ``message`` compares exactly,
        ``message_contains`` checks a substring; the message must always be a non-empty string.
        """
        where = _where(resp)
        self.status_should_be(resp, status)
        body = resp["json"]
        if not isinstance(body, dict) or not isinstance(body.get("error"), dict):
            raise AssertionError(f'{where}: body is not {{"error": {{...}}}}: {resp["text"][:300]!r}')
        error = body["error"]
        for field, wanted in (("code", status), ("type", type)):
            if field not in error:
                raise AssertionError(f"{where}: error.{field} is missing; error has: {_names(error)}")
            if error[field] != wanted or isinstance(error[field], bool):
                raise AssertionError(f"{where}: error.{field} was {error[field]!r}, expected {wanted!r}")
        actual = error.get("message")
        if not isinstance(actual, str) or not actual:
            raise AssertionError(f"{where}: error.message should be a non-empty string, was {actual!r}")
        if message is not None and actual != message:
            raise AssertionError(f"{where}: error.message was {actual!r}, expected {message!r}")
        if message_contains is not None and message_contains not in actual:
            raise AssertionError(f"{where}: error.message {actual!r} does not contain {message_contains!r}")

    # ---- JSON assertions --------------------------------------------------------------------------------

    @keyword("Get Json Field")
    def get_json_field(self, resp_or_obj, path: str):
        """Returns the value at a dotted ``path`` (``data.0.id``) of a response's JSON or of a dict/list."""
        return _lookup(_json_of(resp_or_obj), path)

    @keyword("Json Field Should Be")
    def json_field_should_be(self, resp, path: str, expected) -> None:
        """Compares exactly (``==``, and a bool never equals a number); no string conversion."""
        value = _lookup(_json_of(resp), path)
        if value != expected or isinstance(value, bool) != isinstance(expected, bool):
            raise AssertionError(f"JSON field '{path}' was {value!r} ({_json_type(value)}), "
                                 f"expected {expected!r} ({_json_type(expected)})")

    @keyword("Json Field Should Be Of Type")
    def json_field_should_be_of_type(self, resp, path: str, type_name: str) -> None:
        """``type_name`` is one of ``str int float number bool list dict null``.

        ``int`` and ``number`` exclude booleans; ``number`` is an int or a float.
        """
        if type_name not in _TYPES:
            raise ValueError(f"unknown type name {type_name!r}; use one of: {', '.join(_TYPES)}")
        value = _lookup(_json_of(resp), path)
        if not _TYPES[type_name](value):
            raise AssertionError(f"JSON field '{path}' is {_json_type(value)} ({short_repr(value)}), "
                                 f"expected {type_name}")

    @keyword("Json Fields Should Exist")
    def json_fields_should_exist(self, resp, path_prefix: str, *names: str) -> None:
        """All ``names`` must be keys of the object at ``path_prefix`` (``""`` = the root)."""
        obj = _lookup(_json_of(resp), path_prefix)
        where = f"'{path_prefix}'" if path_prefix else "the root"
        if not isinstance(obj, dict):
            raise AssertionError(f"JSON value at {where} is {_json_type(obj)}, not an object")
        missing = [n for n in names if n not in obj]
        if missing:
            raise AssertionError(f"JSON object at {where} lacks {', '.join(map(repr, missing))}; "
                                 f"it has: {_names(obj)}")

    # ---- headers ----------------------------------------------------------------------------------------

    @keyword("Header Should Be")
    def header_should_be(self, resp: dict, name: str, expected: str) -> None:
        """Exact compare of a header value; the name is case-insensitive."""
        value = _header(resp, name)
        if value != expected:
            raise AssertionError(f"header {name!r} was {value!r}, expected {expected!r}")

    @keyword("Header Should Start With")
    def header_should_start_with(self, resp: dict, name: str, prefix: str) -> None:
        """E.g. ``Header Should Start With    ${resp}    Content-Type    application/json``."""
        value = _header(resp, name)
        if not value.startswith(prefix):
            raise AssertionError(f"header {name!r} was {value!r}, expected it to start with {prefix!r}")

    # ---- internals --------------------------------------------------------------------------------------

    def _request(self, method, base, path, json_body=_NO_BODY, data=None, headers=None, timeout=30.0):
        url = join_url(base, path)
        timeout = float(timeout)
        where = f"{method} {_path_of(url)}"
        request_html = _request_html(json_body, data)
        if json_body is not _NO_BODY:
            data = json.dumps(json_body).encode("utf-8")
            headers = {"Content-Type": "application/json", **(headers or {})}
        start = time.perf_counter()
        try:
            resp, raw = self._exchange(method, url, data, headers, timeout, start)
        except requests.Timeout:
            error = f"{where}: no answer within {timeout} s"
        except requests.ConnectionError as exc:
            # A read timeout while streaming the body arrives as a ConnectionError.
            if any(isinstance(e, (TimeoutError, urllib3.exceptions.ReadTimeoutError)) for e in _causes(exc)):
                error = f"{where}: no answer within {timeout} s"
            else:
                error = f"{method} {url}: {_connection_problem(exc)}"
        except requests.RequestException as exc:
            error = f"{method} {url}: {type(exc).__name__}: {exc}"
        else:
            error = None
        if error:
            logger.info(_htmllog.details(f"{where} → failed", request_html + _htmllog.pre(error)), html=True)
            raise AssertionError(error)

        elapsed = time.perf_counter() - start
        text = raw.decode(_charset(resp), errors="replace")
        result = DotDict(status=resp.status_code, headers={k.lower(): v for k, v in resp.headers.items()},
                         text=text, json=parse_json(text), elapsed=elapsed, method=method, url=url)
        self._log_exchange(where, result, request_html)
        return result

    def _exchange(self, method, url, data, headers, timeout, start):
        # requests' timeout bounds each socket wait; the loop bounds the whole body.
        with self._session.request(method, url, data=data, headers=headers, timeout=timeout, stream=True) as resp:
            chunks = []
            for chunk in resp.iter_content(65536):
                chunks.append(chunk)
                if time.perf_counter() - start > timeout:
                    raise requests.Timeout()
            return resp, b"".join(chunks)

    @staticmethod
    def _log_exchange(where, result, request_html):
        summary = f"{where} → {result.status} ({len(result.text):,} chars, {result.elapsed:.3f} s)"
        headers_html = _htmllog.details("response headers", _htmllog.table(["name", "value"],
                                                                           sorted(result.headers.items())))
        body_html = request_html + _htmllog.labelled("response", headers_html + _htmllog.json_block(result.text))
        logger.info(_htmllog.details(summary, body_html), html=True)


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _where(resp: dict) -> str:
    return f"{resp.get('method', '?')} {_path_of(resp.get('url', ''))}"


def _request_html(json_body, data) -> str:
    if json_body is not _NO_BODY:
        return _htmllog.labelled("request", _htmllog.json_block(json_body))
    if data is not None:
        return _htmllog.labelled("request (raw)", _htmllog.pre(data.decode("utf-8", errors="replace")))
    return ""


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception and everything it wraps: requests buries the socket error a few levels deep."""
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


def _connection_problem(exc: Exception) -> str:
    if any(isinstance(e, ConnectionRefusedError) for e in _causes(exc)):
        return "connection refused"
    return f"connection failed ({type(exc).__name__})"


def _charset(resp) -> str:
    # requests assumes ISO-8859-1 for text/* without a charset; llama-server speaks UTF-8.
    if "charset=" in resp.headers.get("Content-Type", "").lower() and resp.encoding:
        try:
            "".encode(resp.encoding)
            return resp.encoding
        except LookupError:
            pass
    return "utf-8"


def _json_of(resp_or_obj):
    if isinstance(resp_or_obj, dict) and _RESPONSE_KEYS <= resp_or_obj.keys():
        return resp_or_obj["json"]
    return resp_or_obj


def _lookup(doc, path: str):
    value = doc
    done: list[str] = []
    for segment in path.split(".") if path else []:
        here = ".".join(done) or "the root"
        if isinstance(value, dict):
            if segment not in value:
                raise AssertionError(f"JSON path '{path}': no key '{segment}' at {here}; "
                                     f"keys there: {_names(value)}")
            value = value[segment]
        elif isinstance(value, list):
            try:
                value = value[int(segment)]
            except ValueError:
                raise AssertionError(f"JSON path '{path}': {here} is a list, '{segment}' is not an index") from None
            except IndexError:
                raise AssertionError(f"JSON path '{path}': no index {segment} at {here} "
                                     f"(list of {len(value)} items)") from None
        else:
            raise AssertionError(f"JSON path '{path}': no '{segment}' at {here}, "
                                 f"which is {_json_type(value)} ({short_repr(value)})")
        done.append(segment)
    return value


def _header(resp: dict, name: str) -> str:
    headers = resp["headers"]
    if name.lower() not in headers:
        raise AssertionError(f"header {name!r} is missing; headers: {', '.join(sorted(headers)) or 'none'}")
    return headers[name.lower()]


def _json_type(value) -> str:
    for name in ("null", "bool", "int", "float", "str", "list", "dict"):
        if _TYPES[name](value):
            return name
    return type(value).__name__


def _names(obj: dict) -> str:
    return ", ".join(repr(k) for k in obj) or "no keys"
