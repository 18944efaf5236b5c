"""Robot facade of llamatest.http: what RequestsLibrary does not do for llama-server's JSON API."""

from __future__ import annotations

import requests
from robot.api import logger
from robot.api.deco import keyword, library
from robot.api.types import Secret

from llamatest.http import checks, jsondata, keepalive, unix_socket
from llamatest.http.exchanges import label_of, naming, with_label
from llamatest.http.explain import head, status_mismatch
from llamatest.http.jsonpath import lookup
from llamatest.http.response import Response, as_response, json_of
from llamatest.textutil import join_url
from llamatest.unicode import token_bytes_text, token_text_mismatches
from robot_glue import open_session, server_base_url, server_headers


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

    = API keys =

    ``Open Session With Key`` opens a session that sends a key with every request. Pass the key
    as a Robot ``Secret`` (``${API_KEY: Secret}    %{LLAMATEST_API_KEY=…}``): neither the key nor the
    header carrying it is written to the log.

    | Open Session With Key    keyed    ${API_KEY}
    | ${resp} =    GET On Session    keyed    /props    expected_status=200
    | Open Session With Key    raw    ${API_KEY}    header=X-Api-Key    scheme=${EMPTY}

    = Responses =

    The keywords below take the response a RequestsLibrary keyword returns (or a domain keyword that
    returns it). JSON keywords also take plain JSON data: a dict or list such as ``${resp.json()}``.

    = Failures =

    Every exchange is logged as one block whose summary line ends with its number, ``[exchange #12]``.
    A failure names the exchange it judged the same way, so the block can be found in the log: a
    status mismatch (``expected_status`` of RequestsLibrary's keywords, `Error Response Should Be`)
    reads ``POST /detokenize: status was 500, expected 200; error server_error: "…" [exchange #12]``,
    quoting the server's error type and message or the first 300 characters of any other body. JSON
    data taken from a response (``${resp.json()}``, ``${out}[generation_settings]``) is traced back to
    the newest recent exchange whose answer holds it.

    = JSON paths =

    Paths are dotted, with list indices as numbers: ``data.0.meta.n_ctx_train``.
    An empty path means the whole document.

    = Connection reuse =

    `Send Two Requests On One Connection` sends a request and, as soon as its answer is complete, a
    second one on the same TCP connection (a raw socket: no client that reconnects by itself). Its
    result has ``first`` and ``second`` (responses the keywords above take; ``second`` is ``None``
    when the server did not answer) and ``error`` (why not).

    = Example =

    | Negative N Predict Is Rejected
    |     VAR    &{body}    prompt=x    n_predict=${-5}
    |     ${resp} =    POST On Session    suite    /completion    json=${body}    expected_status=any
    |     Error Response Should Be    ${resp}    400    invalid_request_error    message_contains=n_predict
    """

    @keyword("Open Session With Key")
    def open_session_with_key(self, alias: str, key: Secret | str, server: str = "suite",
                              header: str = "Authorization", scheme: str = "Bearer") -> None:
        """Opens the RequestsLibrary session ``alias`` to the server ``server`` that sends ``key`` with every request.

        The header is ``header: scheme key`` (``Authorization: Bearer KEY`` by default); an empty
        ``scheme`` sends the key alone (``X-Api-Key: KEY``). The key is never logged.
        """
        value = key.value if isinstance(key, Secret) else key
        open_session(alias, server_base_url(server), headers={header: f"{scheme} {value}" if scheme else value})

    @keyword("Key In Another Case")
    def key_in_another_case(self, key: Secret) -> Secret:
        """Returns ``key`` with the case of every letter swapped, as a secret too; fails for a key without letters."""
        swapped = key.value.swapcase()
        if swapped == key.value:
            raise AssertionError("the key has no letters: no key in another case can be made of it")
        return Secret(swapped)

    @keyword("Error Response Should Be")
    def error_response_should_be(self, resp, status: int, type: str, message: str | None = None,
                                 message_contains: str | None = None) -> None:
        """Checks a llama-server error: ``{"error": {"code": status, "type": type, "message": …}}``.

        The HTTP status must equal ``status`` and ``error.code``. ``message`` compares exactly,
        ``message_contains`` checks a substring; the message must always be a non-empty string.
        """
        with naming(resp):
            checks.error_response_should_be(as_response(resp), status, type, message, message_contains)

    @keyword("Get Json Field")
    def get_json_field(self, resp_or_json, path: str):
        """Returns the value at a dotted ``path`` (``data.0.id``) of a response's JSON or of JSON data."""
        with naming(resp_or_json):
            return lookup(_document(resp_or_json), path)

    @keyword("Values Of Each")
    def values_of_each(self, items: list, path: str, missing=jsondata._FAIL) -> list:
        """The value at dotted ``path`` (``status.value``, ``top_probs.0.id``) of every item, in order.

        Items are JSON objects or objects with attributes (``${page.data}``, stream results). With ``missing``
        given, a missing key or a ``null`` on the way gives ``missing`` instead of failing."""
        return jsondata.values_of_each(items, path, missing)

    @keyword("Fields Of Each")
    def fields_of_each(self, items: list, *paths: str) -> list:
        """For every item, a dict of its values at the dotted ``paths`` keyed by path, in order: ``Fields Of Each
        ${adapters}    id    scale`` gives ``[{"id": 0, "scale": 1.0}, …]``, with every other field left out."""
        return jsondata.fields_of_each(items, *paths)

    @keyword("Items Having Key")
    def items_having_key(self, items: list, key: str) -> list:
        """The JSON objects of ``items`` that have ``key``, in order."""
        return jsondata.items_having(items, key)

    @keyword("Items Where")
    def items_where(self, items: list, path: str, value) -> list:
        """The items whose value at dotted ``path`` equals ``value`` (``==``), in order."""
        return jsondata.items_where(items, path, value)

    @keyword("Field In Index Order")
    def field_in_index_order(self, results: list, field: str) -> list:
        """The ``field`` of results carrying an ``index`` (rerank, embeddings), ordered by that index."""
        return jsondata.in_index_order(results, field)

    @keyword("Headers With Lower Case Names")
    def headers_with_lower_case_names(self, headers) -> dict:
        """The headers (a mapping) with their names in lower case."""
        return jsondata.lower_case_names(headers)

    @keyword("Totals Of Each")
    def totals_of_each(self, items: list, list_key: str, field: str) -> list:
        """For every item, the sum of ``field`` over the objects in its list ``list_key`` (``top_probs``, ``prob``)."""
        return jsondata.totals_of_each(items, list_key, field)

    @keyword("Lengths Of Each")
    def lengths_of_each(self, items: list, path: str = "") -> list:
        """The length of the value at dotted ``path`` of every item (``embedding``; empty: of the item itself), in
        order."""
        return jsondata.lengths_of_each(items, path)

    @keyword("Values Starting With")
    def values_starting_with(self, values: list, prefix: str) -> list:
        """The strings of ``values`` that start with ``prefix``, in order; fails on a value that is not a string."""
        return jsondata.starting_with(values, prefix)

    @keyword("First Value Of Each")
    def first_value_of_each(self, objects: list) -> list:
        """The first value of every JSON object of ``objects`` (``{"URL": {…}}`` gives ``{…}``), in order; fails on
        an empty object."""
        return jsondata.first_value_of_each(objects)

    @keyword("Text Of Token Bytes")
    def text_of_token_bytes(self, entries: list) -> str:
        """The ``bytes`` of every entry of a ``completion_probabilities`` list (or ``logprobs.content``) joined and
        decoded as UTF-8: the text they spell. Fails when the joined bytes are not valid UTF-8."""
        return token_bytes_text(entries)

    @keyword("Parsed Json")
    def parsed_json(self, text: str):
        """The value of the JSON ``text`` (a body or a part of one written in a test as JSON); fails on text that is
        not JSON."""
        return jsondata.parsed(text)

    @keyword("Text Before")
    def text_before(self, text: str, stop: str) -> str:
        """The part of ``text`` before the first occurrence of ``stop`` (what a stop word leaves of an answer);
        fails when ``text`` does not contain ``stop``."""
        return jsondata.text_before(text, stop)

    @keyword("Distinct Values")
    def distinct_values(self, values: list) -> list:
        """The values without repeats, in the order they first appear."""
        return jsondata.distinct_values(values)

    @keyword("Common Prefix Length")
    def common_prefix_length(self, first: list, second: list) -> int:
        """How many leading items the lists ``first`` and ``second`` share (token ids of two prompts)."""
        return jsondata.common_prefix_length(first, second)

    @keyword("Every Value Should Be")
    def every_value_should_be(self, values: list, expected) -> None:
        """Every value of ``values`` equals ``expected`` (``==``; an empty list passes)."""
        jsondata.every_value_should_be(values, expected)

    @keyword("Json Keys Should Be")
    def json_keys_should_be(self, resp_or_json, *keys: str) -> None:
        """The JSON object (a response's JSON, or JSON data) has exactly ``keys``, in any order."""
        with naming(resp_or_json):
            jsondata.keys_should_be(_document(resp_or_json), *keys)

    @keyword("Values Should Count From Zero")
    def values_should_count_from_zero(self, values: list, count: int | None = None) -> None:
        """``values`` are ``0, 1, 2, …`` in order (indexes of choices, results, …): ``count`` of them when given."""
        jsondata.should_count_from_zero(values, count)

    @keyword("Values Should Be Sorted")
    def values_should_be_sorted(self, values: list, descending: bool = False, strictly: bool = False) -> None:
        """``values`` rise (``descending=${True}``: fall), equal neighbours allowed unless ``strictly=${True}``."""
        jsondata.should_be_sorted(values, descending, strictly)

    @keyword("Json Field Should Be")
    def json_field_should_be(self, resp_or_json, path: str, expected) -> None:
        """Compares exactly (``==``, and a bool never equals a number); no string conversion."""
        with naming(resp_or_json):
            checks.json_field_should_be(_document(resp_or_json), path, expected)

    @keyword("Json Field Should Be Of Type")
    def json_field_should_be_of_type(self, resp_or_json, path: str, type_name: str) -> None:
        """``type_name`` is one of ``str int float number bool list dict null``.

        ``int`` and ``number`` exclude booleans; ``number`` is an int or a float.
        """
        with naming(resp_or_json):
            checks.json_field_should_be_of_type(_document(resp_or_json), path, type_name)

    @keyword("Json Fields Should Exist")
    def json_fields_should_exist(self, resp_or_json, path_prefix: str, *names: str) -> None:
        """All ``names`` must be keys of the object at ``path_prefix`` (``""`` = the root)."""
        with naming(resp_or_json):
            checks.json_fields_should_exist(_document(resp_or_json), path_prefix, *names)

    @keyword("Token Texts Should Match Their Bytes")
    def token_texts_should_match_their_bytes(self, resp_or_json, only_valid_utf8: bool = False) -> None:
        """Every ``{token, bytes}`` entry of ``completion_probabilities`` (and of its ``top_logprobs``/``top_probs``)
        has the text its bytes decode to: invalid bytes as U+FFFD, an unfinished character at the end left out.

        With ``only_valid_utf8=True`` only the entries whose bytes are complete, valid UTF-8 are checked.
        Takes a response, a JSON document, or a list of them (e.g. the events of a stream).
        """
        mismatches = token_text_mismatches(json_of(resp_or_json), only_valid_utf8)
        if mismatches:
            raise AssertionError(with_label(f"{len(mismatches)} token text(s) do not match their bytes; "
                                            f"first: {mismatches[0]}", label_of(resp_or_json)))

    @keyword("Header Should Be")
    def header_should_be(self, resp, name: str, expected: str) -> None:
        """Exact compare of a header value; the name is case-insensitive."""
        with naming(resp):
            checks.header_should_be(as_response(resp), name, expected)

    @keyword("Header Should Contain Token")
    def header_should_contain_token(self, resp, name: str, token: str) -> None:
        """``token`` must be one of the comma-separated values of header ``name``, compared case-insensitively.

        ``Access-Control-Allow-Headers: Authorization, Content-Type`` contains ``authorization``; ``*`` does not.
        """
        with naming(resp):
            checks.header_should_contain_token(as_response(resp), name, token)

    @keyword("Header Should Be Absent")
    def header_should_be_absent(self, resp, name: str) -> None:
        """Fails if the response has the header ``name`` (case-insensitive)."""
        with naming(resp):
            checks.header_should_be_absent(as_response(resp), name)

    @keyword("Media Type Should Be")
    def media_type_should_be(self, resp, expected: str) -> None:
        """The media type of ``Content-Type`` must be exactly ``expected`` (parameters such as charset aside).

        ``application/json; charset=utf-8`` passes for ``application/json``; ``application/jsonx`` does not.
        """
        with naming(resp):
            checks.media_type_should_be(as_response(resp), expected)

    @keyword("Send Two Requests On One Connection")
    def send_two_requests_on_one_connection(self, path: str, body=None, method: str = "POST", then: str = "/health",
                                            expected_status: int = 200, server: str = "suite",
                                            timeout: float | None = None):
        """Sends ``method path`` with ``body`` (a dict is sent as JSON), then ``GET then`` on the same connection.

        Fails when the first answer does not arrive whole within ``timeout`` or its status is not
        ``expected_status``; what became of the second request is checked with `Second Request Should Be Answered`.
        """
        base = server_base_url(server)
        reuse = keepalive.two_requests(base, (method, path, body), ("GET", then, None), timeout=timeout,
                                       headers=server_headers(server))
        reuse = keepalive.numbered(reuse, body, join_url(base, then))
        logger.info(keepalive.reuse_html(reuse), html=True)
        first = reuse.first
        if first.status != int(expected_status):
            message = status_mismatch(first.where, first.status, int(expected_status), first.text)
            raise AssertionError(with_label(message, label_of(first)))
        return reuse

    @keyword("Request Over Unix Socket")
    def request_over_unix_socket(self, socket_path: str, method: str, path: str, body=None,
                                 expected_status: int | str = 200, timeout: float | None = None) -> Response:
        """Sends ``method path`` (a dict ``body`` as JSON) to a server listening on the Unix socket
        ``socket_path`` (``--host …/x.sock``) and returns the answer, which the keywords above take.

        Fails when the status is not ``expected_status`` (``any`` accepts every status).
        """
        resp = unix_socket.request(socket_path, method.upper(), path, body, timeout=timeout)
        logger.info(f"{resp.where} over {socket_path}: {resp.status} {head(resp.text)}")
        if str(expected_status).lower() != "any" and resp.status != int(expected_status):
            raise AssertionError(status_mismatch(resp.where, resp.status, int(expected_status), resp.text))
        return resp

    @keyword("Second Request Should Be Answered")
    def second_request_should_be_answered(self, reuse, status: int = 200, unless_announced: bool = False) -> None:
        """Fails unless the request sent after the first answer, on the same connection, got an answer with
        ``status``. The message says what the first answer's headers promised and when the server closed.
        ``unless_announced=${True}`` also accepts no answer when the first answer said ``Connection: close``."""
        with naming(reuse.second or reuse.first):
            keepalive.second_request_should_be_answered(reuse, status, unless_announced)


def _document(value):
    """The JSON of a response or JSON data as it is; a response whose body is not JSON fails here, quoting it."""
    doc = json_of(value)
    if doc is None and isinstance(value, (Response, requests.Response)):
        resp = as_response(value)
        if resp.text.strip() != "null":
            raise AssertionError(f"{resp.where}: the body is not JSON: {head(resp.text) if resp.text else '(empty)'}")
    return doc
