"""Robot facade of llamatest.clients: the official OpenAI and Anthropic SDKs against a suite's server."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest.clients import calls, views
from llamatest.clients import log as _log
from llamatest.clients.connect import NO_KEY, Endpoint, key_of, served_model, versions
from robot_glue import robot_variable, server_base_url, server_headers

SDK_NAMES = {"openai": "OpenAI", "anthropic": "Anthropic"}
# The call keywords, made for each SDK (see the bottom of this file): name, kind, async, what they return.
CALL_KINDS = {
    "{SDK} Call": ("call", False, "Calls ``method`` of the sync {SDK} client; returns the SDK's typed answer."),
    "{SDK} Call Should Fail": ("fail", False, "Calls like `{SDK} Call`; fails if the call succeeds, else returns "
                               "the exception it raised."),
    "{SDK} Stream": ("stream", False, "Streams ``method`` (a ``create`` method, or a stream helper such as "
                     "``chat.completions.stream`` or ``messages.stream``) through the sync {SDK} client to its "
                     "end; returns the ``Call``."),
    "{SDK} Stream Should Fail": ("stream-fail", False, "Streams like `{SDK} Stream`; fails if the stream ends "
                                 "without an exception, else returns the ``Call`` (``${{call.error}}``, "
                                 "``${{call.events}}``)."),
    "Async {SDK} Call": ("call", True, "Calls ``method`` of ``Async{SDK}`` within ``timeout``; returns the "
                         "typed answer."),
    "Async {SDK} Stream": ("stream", True, "Streams ``method`` through ``Async{SDK}`` (``async for``) within "
                           "``timeout``; returns the ``Call``."),
}


def _call_keyword(name: str, sdk: str, kind: str, asynchronous: bool, doc: str):
    """One call keyword (`CALL_KINDS`): a plain call returns the typed answer, a failing call the
    exception, a stream its ``Call``."""
    stream, fail = kind.startswith("stream"), kind.endswith("fail")

    def pick(record: calls.Call):
        return record if stream else record.error if fail else record.result

    if asynchronous:
        async def run(self, method: str, *, server: str = "suite", api_key: str | None = None,
                      strict: bool = False, timeout: float | None = None, **arguments):
            return pick(await self._async(sdk, method, stream, server, api_key, strict, timeout, arguments, fail))
    else:
        def run(self, method: str, *, server: str = "suite", api_key: str | None = None,
                strict: bool = False, timeout: float | None = None, **arguments):
            return pick(self._sync(sdk, method, stream, server, api_key, strict, timeout, arguments, fail))
    run.__name__ = run.__qualname__ = name.lower().replace(" ", "_")
    run.__doc__ = doc
    return keyword(name)(run)


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class ClientsLibrary:
    """Calls llama-server through the official ``openai`` and ``anthropic`` Python SDKs (the versions pinned
    in ``requirements.txt``) and returns the SDKs' own typed objects, so that a test asserts on what an
    application sees: ``${answer.choices[0].finish_reason}``, ``${message.usage.output_tokens}``.

    %TOC%

    = Methods =
    A keyword names the SDK method by its path on the client: ``chat.completions.create``,
    ``completions.create``, ``embeddings.create``, ``models.list``, ``responses.create``,
    ``messages.create``, ``messages.count_tokens``, and for streams also the SDKs' stream helpers
    ``chat.completions.stream``, ``responses.stream`` and ``messages.stream``. Every other named argument
    goes to the method as is (``messages=${MESSAGES}``, ``max_tokens=${4}``,
    ``extra_body=${{ {"temperature": 0} }}``). Without ``model`` the call names the first model the server
    lists in ``GET /v1/models``.

    = The client =
    Each call makes a new client bound to the server alias ``server`` (default ``suite``; a URL is used as
    is): the OpenAI client at ``BASE/v1``, the Anthropic client at ``BASE``, ``max_retries=0`` (a test
    sees the first failure), the ``timeout`` in seconds (without one, the ``sdk_call`` deadline of
    ``llamatest.deadlines``: 30 s on a quiet machine, longer while other processes hold the cores), and as
    key ``api_key`` if given, else the bearer
    key of the server's session (``$LLAMATEST_API_KEY`` for an external server), else a placeholder the
    SDKs accept. ``strict=${True}`` turns on the SDK's own validation of the answer against its pydantic
    models: a field of the wrong type then fails with the SDK's validation message
    (``APIResponseValidationError``) instead of being kept as it came.

    = Sync, async, streams =
    `OpenAI Call` and `Anthropic Call` use the sync clients; `Async OpenAI Call` and `Async Anthropic Call`
    the async ones, under a deadline of ``timeout`` for the whole call (a Robot timeout cannot stop a
    coroutine). The stream keywords read the SDK's iterator to its end (``stream=True`` is added for a
    ``create`` method) and return a ``Call``: ``${call.events}`` (the typed events, in order),
    ``${call.result}`` (a helper's final object: ``get_final_completion()``, ``get_final_message()``,
    ``get_final_response()``), ``${call.error}``, ``${call.elapsed}``.

    = Failures =
    A call that raises fails the keyword with the SDK's exception class and message. The ``… Should Fail``
    keywords turn this round: they fail when the call succeeds and return the exception, whose fields
    (``status_code``, ``type``, ``code``, ``param``, ``message``, ``body``) `SDK Error` gives as a dictionary.

    = Strictness =
    The SDKs are lenient readers: they keep unknown fields and, by default, do not check types.
    ``strict=${True}`` runs the SDK's own validation (pydantic's lax mode: ``"1"`` passes for ``1``).
    `Schema Deviations` validates an object's JSON against the SDK's model in pydantic's strict mode and
    lists every deviation; `Error Body Deviations` does the same for an error body; `Unknown Fields` lists
    the fields the SDK kept without knowing them.

    = Log =
    Each call is one collapsed block: the call as an application writes it, its arguments as JSON, and
    the typed result as JSON (the stream's events as the server sent them, the exception and its body).
    """

    def __init__(self):
        self._models: dict[tuple, str] = {}  # (suite, base URL, key) -> the served model id

    @keyword("Concurrent OpenAI Streams")
    async def concurrent_openai_streams(self, argument_list: list, method: str = "chat.completions.create", *,
                                        server: str = "suite", api_key: str | None = None, strict: bool = False,
                                        timeout: float | None = None) -> list:
        """Streams one ``method`` call per dictionary of ``argument_list``, all at once on one shared
        ``AsyncOpenAI`` client (``asyncio.gather``), each within ``timeout``; returns the ``Call`` records in
        order. Never fails on a single call: check each one's ``error``."""
        endpoint = self._endpoint(server, api_key, strict, timeout)
        model = self._model(endpoint)  # asked before the calls start, not by each of them
        records = await calls.concurrent_calls(endpoint, "openai", method, argument_list, stream=True,
                                               model=lambda: model)
        logger.info(_log.batch_html(records), html=True)
        return records

    # ----- reading typed objects -----
    @keyword("SDK Json")
    def sdk_json(self, value):
        """A typed SDK object (or a list of them) as JSON: the fields the answer set, by their wire names."""
        return views.as_json(value)

    @keyword("Schema Deviations")
    def schema_deviations(self, value) -> list:
        """How the JSON of a typed SDK object (or of each object of a list, such as ``${call.events}``) breaks
        the SDK's model in pydantic's strict mode (no coercion, every required field), one ``path: message
        (got value)`` line each; empty when it conforms. Stricter than ``strict=${True}``, which lets pydantic
        coerce (``"1"`` for ``1``)."""
        return views.schema_deviations(value)

    @keyword("Error Body Deviations")
    def error_body_deviations(self, error: BaseException) -> list:
        """How the body of an SDK status error breaks the SDK's error schema in strict mode (OpenAI's
        ``ErrorObject``, Anthropic's ``ErrorResponse``), as `Schema Deviations` gives them."""
        return views.error_body_deviations(error)

    @keyword("Unknown Fields")
    def unknown_fields(self, value) -> list:
        """The paths of the fields of a typed SDK object that its model does not declare (``timings``)."""
        return views.unknown_fields(value)

    @keyword("SDK Error")
    def sdk_error(self, error: BaseException) -> dict:
        """An SDK exception as a dictionary: ``class``, ``status``, ``type``, ``code``, ``param``, ``message``
        (the server's own message) and ``body``."""
        return views.error_view(error)

    @keyword("SDK Error Should Be")
    def sdk_error_should_be(self, error: BaseException, class_name: str, status: int | None = None,
                            type: str | None = None, message: str | None = None,  # noqa: A002 - the field's name
                            message_contains: str | None = None) -> None:
        """Checks an SDK exception: its class name (``BadRequestError``), HTTP ``status``, the error ``type``
        the SDK parsed, and the server's ``message`` (exactly, or containing ``message_contains``). Every
        difference is in the failure, with the body the SDK got."""
        wrong = views.error_mismatches(error, class_name, status, type, message, message_contains)
        if wrong:
            raise AssertionError("; ".join(wrong) + f"; body: {views.error_view(error)['body']}")

    @keyword("SDK Class Name")
    def sdk_class_name(self, value) -> str:
        """The name of the class of ``value`` (``ChatCompletion``; a generic class by its name alone:
        ``ParsedChatCompletion``)."""
        return views.class_name(value)

    @keyword("SDK Class Names")
    def sdk_class_names(self, values: list) -> list:
        """The distinct `SDK Class Name` of the items of ``values``, sorted: ``[ChatCompletionChunk]`` when all
        items are chunks."""
        return views.class_names(values)

    @keyword("Streamed Text")
    def streamed_text(self, call: calls.Call, index: int = 0) -> str:
        """The generated text of a streamed ``Call`` (choice ``index`` of OpenAI chunks)."""
        return views.streamed_text(call, index)

    @keyword("Server Events")
    def server_events(self, call: calls.Call) -> list:
        """The typed events of a streamed ``Call`` as the server sent them (a helper's chunks, not the
        events the helper makes up)."""
        return views.wire_events(call)

    @keyword("Event Types")
    def event_types(self, call: calls.Call, collapse: bool = False) -> list:
        """The ``type`` of every event the SDK gave (``object`` for OpenAI chunks), in order; with
        ``collapse=${True}`` consecutive repeats count once."""
        names = views.event_types(call)
        return views.runs(names) if collapse else names

    @keyword("Event Field Values")
    def event_field_values(self, call: calls.Call, name: str) -> list:
        """The top-level field ``name`` (``id``, ``created``, ``model``) of every server event that has it."""
        return views.field_values(call, name)

    @keyword("Decode Base64 Embedding")
    def decode_base64_embedding(self, text: str) -> list:
        """The float32 values of an embedding returned with ``encoding_format: base64``."""
        return views.decode_base64_embedding(text)

    @keyword("Served Model")
    def served_model(self, server: str = "suite", api_key: str | None = None) -> str:
        """The first model id the server lists in ``GET /v1/models``: what a call without ``model`` names."""
        return self._model(self._endpoint(server, api_key, False, None))

    @keyword("SDK Versions")
    def sdk_versions(self) -> str:
        """The installed SDK versions as one line: ``openai 3.57.0, anthropic 2.15.0``."""
        return ", ".join(f"{name} {version}" for name, version in versions().items())

    # ----- internals -----
    @staticmethod
    def _endpoint(server: str, api_key: str | None, strict: bool, timeout: float | None) -> Endpoint:
        key = api_key if api_key is not None else key_of(server_headers(server)) or NO_KEY
        return Endpoint(server_base_url(server), key, None if timeout is None else float(timeout), bool(strict))

    def _model(self, endpoint: Endpoint) -> str:
        """The served model id, asked once per suite and server (a port may serve another model later)."""
        key = (robot_variable("${SUITE NAME}"), endpoint.base_url, endpoint.api_key)
        if key not in self._models:
            self._models[key] = served_model(endpoint.base_url, endpoint.api_key)
        return self._models[key]

    def _sync(self, sdk, method, stream, server, api_key, strict, timeout, arguments, fail=False) -> calls.Call:
        endpoint = self._endpoint(server, api_key, strict, timeout)
        record = calls.call(endpoint, sdk, method, arguments, stream, model=lambda: self._model(endpoint))
        return _judged(record, fail, timeout)

    async def _async(self, sdk, method, stream, server, api_key, strict, timeout, arguments,
                     fail=False) -> calls.Call:
        endpoint = self._endpoint(server, api_key, strict, timeout)
        record = await calls.call_async(endpoint, sdk, method, arguments, stream, model=lambda: self._model(endpoint))
        return _judged(record, fail, timeout)


def _judged(record: calls.Call, should_fail: bool, timeout: float | None = None) -> calls.Call:
    """Logs the call and fails as asked: on an exception, or (``should_fail``) on none. A call that should fail
    with the ``timeout`` its test gave says it was answered within that time: a timing failure, which
    `TimingVerdictListener` does not judge on a busy machine (a client kept from starting its wait until the
    answer was there, beside CPU hogs)."""
    logger.info(_log.call_html(record), html=True)
    where = f"{record.sdk} {record.method}"
    if should_fail and record.error is None:
        within = "" if timeout is None else f" within {float(timeout):g} s, the timeout it was given"
        raise AssertionError(f"{where} was expected to raise an SDK error, but returned {_log.outcome(record)}"
                             f"{within}")
    if not should_fail and record.error is not None:
        missed = calls.missed_deadline(record)
        raise AssertionError(f"{where} raised {type(record.error).__name__}: {views.error_text(record.error)}"
                             + (f" ({missed})" if missed else ""))
    return record


for _sdk, _shown in SDK_NAMES.items():
    for _name, (_kind, _asynchronous, _doc) in CALL_KINDS.items():
        _method = _call_keyword(_name.format(SDK=_shown), _sdk, _kind, _asynchronous, _doc.format(SDK=_shown))
        setattr(ClientsLibrary, _method.__name__, _method)
