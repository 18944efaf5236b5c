"""One SDK call, sync or async, plain or streamed, under a deadline, recorded as a `Call`.

A method is named by its path on the client (``chat.completions.create``, ``messages.stream``). A streamed
call of a ``create`` method passes ``stream=True`` and reads the SDK's iterator to its end; a method named
``….stream`` is one of the SDKs' stream helpers (``client.chat.completions.stream(...)``,
``client.messages.stream(...)``, ``client.responses.stream(...)``): its events are read inside its
context manager, then its final object is asked for (``get_final_completion()``, …).

Whatever the call raises (an SDK status, connection or validation error, ``LengthFinishReasonError``, or
an SDK helper's own ``TypeError`` on an event it cannot read) is recorded, never raised: the caller
decides whether the call had to fail; a method the client does not have raises at once. The async calls enforce the
endpoint's timeout on the whole call (connect, headers, every event), because nothing else can stop a
coroutine; the sync calls rely on the SDK's own timeout, which `missed_deadline` words like the others.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from llamatest.clients.connect import Endpoint, loaded_sdks

# A stream helper's final object, by the helper's name.
FINAL = {"chat.completions.stream": "get_final_completion", "beta.chat.completions.stream": "get_final_completion",
         "responses.stream": "get_final_response", "messages.stream": "get_final_message"}


class CallTimeout(TimeoutError):
    """An async SDK call that did not end within its deadline."""


@dataclass
class Call:
    """What an SDK call sent and got: the typed result, the streamed events, or the exception it raised."""

    sdk: str
    method: str
    arguments: dict
    streamed: bool = False
    asynchronous: bool = False
    result: Any = None  # the typed answer, or a stream helper's final object
    events: list = field(default_factory=list)  # the typed events of a stream, in order
    error: BaseException | None = None
    elapsed: float = 0.0
    deadline: float | None = None  # the seconds the call had

    @property
    def helper(self) -> bool:
        """Whether the method is one of the SDKs' stream helpers (``….stream``)."""
        return self.method.endswith(".stream")


def resolve(client, method: str):
    """The bound SDK method ``method`` (a dotted path such as ``chat.completions.create``) of ``client``."""
    target = client
    for part in method.split("."):
        if part.startswith("_") or not hasattr(target, part):
            raise ValueError(f"the {type(client).__name__} client has no method '{method}' (no '{part}')")
        target = getattr(target, part)
    return target


def with_model(function, arguments: dict, model: Callable[[], str] | None) -> dict:
    """``arguments`` with ``model`` filled in by ``model()`` when the method takes one and none is given."""
    if model is None or "model" in arguments or "model" not in inspect.signature(function).parameters:
        return dict(arguments)
    return {"model": model(), **arguments}


def call(endpoint: Endpoint, sdk: str, method: str, arguments: dict, stream: bool = False,
         model: Callable[[], str] | None = None) -> Call:
    """Makes one sync SDK call on a new client and returns its record (``model``: see `with_model`)."""
    client = endpoint.client(sdk)
    function = resolve(client, method)
    arguments = with_model(function, arguments, model)
    record = Call(sdk, method, arguments, streamed=stream or method.endswith(".stream"), deadline=endpoint.timeout)
    start = time.perf_counter()
    try:
        with client:
            if record.helper:
                with function(**arguments) as manager:
                    record.events.extend(manager)
                    record.result = getattr(manager, FINAL[method])()
            elif record.streamed:
                with function(**arguments, stream=True) as events:
                    record.events.extend(events)
            else:
                record.result = function(**arguments)
    except Exception as exc:  # noqa: BLE001 - what the application would see is the finding
        record.error = exc
    record.elapsed = time.perf_counter() - start
    return record


async def call_async(endpoint: Endpoint, sdk: str, method: str, arguments: dict, stream: bool = False,
                     model: Callable[[], str] | None = None) -> Call:
    """Makes one SDK call on a new async client (``AsyncOpenAI``, ``AsyncAnthropic``) within the endpoint's timeout."""
    async with endpoint.client(sdk, asynchronous=True) as client:
        return await call_on(client, endpoint.timeout, sdk, method, arguments, stream, model)


async def call_on(client, timeout: float, sdk: str, method: str, arguments: dict, stream: bool = False,
                  model: Callable[[], str] | None = None) -> Call:
    """Makes one SDK call on an existing async client within ``timeout`` seconds; returns its record."""
    function = resolve(client, method)
    arguments = with_model(function, arguments, model)
    record = Call(sdk, method, arguments, streamed=stream or method.endswith(".stream"), asynchronous=True,
                  deadline=timeout)
    start = time.perf_counter()
    try:
        await asyncio.wait_for(_run_async(function, record), timeout)
    except TimeoutError:
        record.error = CallTimeout(f"{sdk} {method}: no complete answer within {timeout:g} s "
                                   f"({len(record.events)} events received)")
    except Exception as exc:  # noqa: BLE001 - as in `call`
        record.error = exc
    record.elapsed = time.perf_counter() - start
    return record


def missed_deadline(record: Call) -> str | None:
    """``no complete answer within N s`` when the SDK's own timeout ended the call (its ``APITimeoutError``
    says only "Request timed out."), else None: the words every missed deadline uses, so that
    `TimingVerdictListener` judges it like the others."""
    if isinstance(record.error, tuple(sdk.APITimeoutError for sdk in loaded_sdks().values())):
        return f"no complete answer within {record.deadline:g} s"
    return None


async def _run_async(function, record: Call) -> None:
    if record.helper:
        async with function(**record.arguments) as manager:
            async for event in manager:
                record.events.append(event)
            record.result = await getattr(manager, FINAL[record.method])()
    elif record.streamed:
        events = await function(**record.arguments, stream=True)
        async with events:
            async for event in events:
                record.events.append(event)
    else:
        record.result = await function(**record.arguments)


async def concurrent_calls(endpoint: Endpoint, sdk: str, method: str, argument_list: list[dict],
                           stream: bool = True, model: Callable[[], str] | None = None) -> list[Call]:
    """Makes one async call per argument dict, all at once on one shared async client (as an application
    serving many users would), each within the endpoint's timeout; returns the records in order."""
    async with endpoint.client(sdk, asynchronous=True) as client:
        return list(await asyncio.gather(*(call_on(client, endpoint.timeout, sdk, method, arguments, stream, model)
                                           for arguments in argument_list)))
