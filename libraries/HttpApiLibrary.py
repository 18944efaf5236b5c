"""Robot facade of llamatest.http: what RequestsLibrary does not do for llama-server's JSON API."""

from __future__ import annotations

from robot.api.deco import keyword, library

from llamatest.http import checks
from llamatest.http.jsonpath import lookup
from llamatest.http.response import as_response, json_of


@library(scope="GLOBAL", version="0.2", doc_format="ROBOT")
class HttpApiLibrary:
    """JSON and error-object assertions for llama-server responses; requests go through RequestsLibrary.

    %TOC%

    = Sessions =

    Starting a server (``Start Preset Server`` of LlamaServerLibrary) creates a RequestsLibrary session
    named after the server's alias; the suite's own server is ``suite``. Send requests with
    RequestsLibrary's keywords and always state the status you expect:

    | ${resp} =    POST On Session    suite    /completion    json=${body}    expected_status=200
    | ${resp} =    POST On Session    suite    /completion    data={"prompt":    expected_status=any

    Every request of such a session has a deadline for the whole exchange (``timeout``, seconds,
    default 30), fails with one line such as ``POST /completion: no answer within 0.5 s`` or
    ``… connection refused``, is never retried, and is logged as one collapsed block holding the
    request body and the response headers and body.

    = Responses =

    The keywords below take the response a RequestsLibrary keyword returns (or a domain keyword that
    returns it). JSON keywords also take plain JSON data: a dict or list such as ``${resp.json()}``.

    = JSON paths =

    Paths are dotted, with list indices as numbers: ``data.0.meta.n_ctx_train``.
    An empty path means the whole document.

    = Example =

    | Negative N Predict Is Rejected
    |     VAR    &{body}    prompt=x    n_predict=${-5}
    |     ${resp} =    POST On Session    suite    /completion    json=${body}    expected_status=any
    |     Error Response Should Be    ${resp}    400    invalid_request_error    message_contains=n_predict
    """

    @keyword("Error Response Should Be")
    def error_response_should_be(self, resp, status: int, type: str, message: str | None = None,
                                 message_contains: str | None = None) -> None:
        """Checks a llama-server error: ``{"error": {"code": status, "type": type, "message": …}}``.

        The HTTP status must equal ``status`` and ``error.code``. ``message`` compares exactly,
        ``message_contains`` checks a substring; the message must always be a non-empty string.
        """
        checks.error_response_should_be(as_response(resp), status, type, message, message_contains)

    @keyword("Get Json Field")
    def get_json_field(self, resp_or_json, path: str):
        """Returns the value at a dotted ``path`` (``data.0.id``) of a response's JSON or of JSON data."""
        return lookup(json_of(resp_or_json), path)

    @keyword("Json Field Should Be")
    def json_field_should_be(self, resp_or_json, path: str, expected) -> None:
        """Compares exactly (``==``, and a bool never equals a number); no string conversion."""
        checks.json_field_should_be(json_of(resp_or_json), path, expected)

    @keyword("Json Field Should Be Of Type")
    def json_field_should_be_of_type(self, resp_or_json, path: str, type_name: str) -> None:
        """``type_name`` is one of ``str int float number bool list dict null``.

        ``int`` and ``number`` exclude booleans; ``number`` is an int or a float.
        """
        checks.json_field_should_be_of_type(json_of(resp_or_json), path, type_name)

    @keyword("Json Fields Should Exist")
    def json_fields_should_exist(self, resp_or_json, path_prefix: str, *names: str) -> None:
        """All ``names`` must be keys of the object at ``path_prefix`` (``""`` = the root)."""
        checks.json_fields_should_exist(json_of(resp_or_json), path_prefix, *names)

    @keyword("Header Should Be")
    def header_should_be(self, resp, name: str, expected: str) -> None:
        """Exact compare of a header value; the name is case-insensitive."""
        checks.header_should_be(as_response(resp), name, expected)

    @keyword("Media Type Should Be")
    def media_type_should_be(self, resp, expected: str) -> None:
        """The media type of ``Content-Type`` must be exactly ``expected`` (parameters such as charset aside).

        ``application/json; charset=utf-8`` passes for ``application/json``; ``application/jsonx`` does not.
        """
        checks.media_type_should_be(as_response(resp), expected)
