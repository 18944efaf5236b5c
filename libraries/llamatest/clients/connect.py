"""Clients of the official SDKs bound to one server: its base URL, its key, no retries, a timeout."""

from __future__ import annotations

import functools
import importlib
import ssl
import sys
from dataclasses import dataclass, field
from importlib.metadata import version

import httpx2  # the SDKs' own HTTP client
import requests

from llamatest import deadlines
from llamatest.textutil import join_url

SDKS = ("openai", "anthropic")
# The SDKs refuse to start without a key; a server without --api-key ignores whatever is sent.
NO_KEY = "sk-no-key-required"


@dataclass(frozen=True)
class Endpoint:
    """Where and how an SDK client talks to a server.

    ``base_url`` is the server's root (``http://127.0.0.1:PORT``): the OpenAI client gets ``/v1`` added,
    the Anthropic client adds ``/v1/messages`` itself. ``strict`` turns on the SDKs' own validation of
    every answer against their pydantic models (``_strict_response_validation``), so a field of the
    wrong type fails with the SDK's validation message instead of being kept as it came. ``timeout`` None
    is the ``sdk_call`` deadline (`llamatest.deadlines`), scaled when the endpoint is made: once per call.
    """

    base_url: str
    api_key: str = field(default=NO_KEY, repr=False)  # a secret: never in a log line
    timeout: float | None = None
    strict: bool = False

    def __post_init__(self):
        object.__setattr__(self, "timeout", deadlines.or_default(self.timeout, "sdk_call"))

    def client(self, sdk: str, asynchronous: bool = False):
        """A new SDK client (``openai`` or ``anthropic``; ``AsyncOpenAI``/``AsyncAnthropic`` when asked)."""
        if sdk not in SDKS:
            raise ValueError(f"unknown SDK '{sdk}': expected one of {', '.join(SDKS)}")
        module = importlib.import_module(sdk)
        http = module.DefaultAsyncHttpxClient if asynchronous else module.DefaultHttpxClient
        options = {"api_key": self.api_key, "max_retries": 0, "timeout": self.timeout,
                   "_strict_response_validation": self.strict,
                   "http_client": http(timeout=self.timeout, verify=tls_context())}
        if sdk == "openai":
            cls = module.AsyncOpenAI if asynchronous else module.OpenAI
            return cls(base_url=join_url(self.base_url, "/v1"), **options)
        cls = module.AsyncAnthropic if asynchronous else module.Anthropic
        return cls(base_url=self.base_url, **options)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context every client shares: the one the SDKs would build (``httpx2``'s default), built once.
    Building it reads the CA bundle, about 35 ms, nearly all of a client's construction; a context keeps no
    connection of its own, so a new client per call still starts with no connection."""
    return httpx2.create_ssl_context()


def key_of(headers: dict) -> str | None:
    """The bearer key of a server's session headers (``Authorization: Bearer KEY``), None without one."""
    value = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
    scheme, _, key = str(value).partition(" ")
    return key.strip() or None if scheme.lower() == "bearer" else None


def served_model(base_url: str, api_key: str = NO_KEY) -> str:
    """The first model id the server lists in ``GET /v1/models``.

    The SDKs require ``model``; a call that does not name one asks for the model the server says it runs.
    """
    resp = requests.get(join_url(base_url, "/v1/models"), headers={"Authorization": f"Bearer {api_key}"},
                        timeout=deadlines.deadline("probe"))
    resp.raise_for_status()
    return resp.json()["data"][0]["id"]


def versions() -> dict[str, str]:
    """The installed SDK versions, ``{"openai": "3.57.0", "anthropic": "2.15.0"}`` (from their metadata: no import)."""
    return {name: version(name) for name in SDKS}


def loaded_sdks() -> dict:
    """The SDK modules imported so far, by name. Each SDK is imported when a client of it is first made
    (`Endpoint.client`), so a process that uses one does not pay the other's import (anthropic's: 1.3 s);
    an SDK's error or object comes from an SDK that is loaded."""
    return {name: sys.modules[name] for name in SDKS if name in sys.modules}
