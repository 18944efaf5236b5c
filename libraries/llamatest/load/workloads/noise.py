"""Hostile traffic sent beside a load profile (the noise workload): what each hostile client sends, when, and what
the pinned llama-server answers it.

Kinds (`KINDS`), each with its documented outcome (`EXPECTED`), derived from the server's source (build 11434):

- ``wrong_key``, ``missing_key``: a chat request with a wrong ``Authorization`` or none; 401
  ``authentication_error`` (server-http.cpp, ``middleware_validate_api_key``). Only on a server that has a key.
- ``malformed_json``: a chat body cut inside a string; 400 ``invalid_request_error`` (the JSON parser's message).
- ``over_context``: one chat message of 40 characters per token of the slot context (no vocabulary has a token
  that long); 400 ``exceed_context_size_error``.
- ``over_size``: a body one byte over cpp-httplib's ``CPPHTTPLIB_PAYLOAD_MAX_LENGTH`` (100 MiB; llama.cpp's build of
  cpp-httplib does not change it), streamed from one repeated block; 413 with an empty body (server-http.cpp's
  error handler fills only 404s), so no error type.
- ``slowloris``: a connection that sends its request headers one byte a second and gives up after
  ``slowloris_s``; the server waits (its read timeout, ``--timeout``, is 3600 s by default): no answer.
- ``dropped_stream``: a streamed chat that the client hangs up on after its first content event; 200, then dropped.
- ``media_url``, ``media_missing``: a chat whose image URL points at the run's sink on 127.0.0.1 (a
  ``llamatest.media.MediaFixture``): the image is fetched and answered (200), a missing one is refused with 500
  ``server_error`` ("Failed to download image", server-common.cpp ``handle_media``). Each is one fetch the sink
  counts. Only on a server with an image projector (``modalities.vision`` in ``/props``): any such server fetches
  ``http(s)://`` URLs, no flag allows or forbids it.

`NoiseSpec` bounds the noise like any load: a rate, a count and the run's duration. `plan` turns a spec and what
the server is (`ServerFacts`) into send offsets, one kind after the other, and the kinds skipped with the reason.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

KINDS = ("wrong_key", "missing_key", "malformed_json", "over_context", "over_size", "slowloris", "dropped_stream",
         "media_url", "media_missing")
KEY_KINDS = ("wrong_key", "missing_key")
MEDIA_KINDS = ("media_url", "media_missing")
CHAT = "/v1/chat/completions"
BODY_LIMIT = 100 * 1024 * 1024  # cpp-httplib's CPPHTTPLIB_PAYLOAD_MAX_LENGTH: 413 beyond it
CHARS_PER_TOKEN = 40  # one word of 40 letters x per token of the context: more tokens than the context, any vocabulary
DROPPED = "dropped_by_client"  # a stream the client hung up on, as designed
GAVE_UP = "client_gave_up"  # a slowloris connection the client closed after slowloris_s without an answer


@dataclass(frozen=True)
class Expected:
    """What a kind gets: an HTTP status and error type (None: no error object), or an outcome of the client's."""

    status: int | None = None
    error_type: str | None = None
    outcome: str = "answered"

    def describe(self) -> str:
        if self.outcome == GAVE_UP:
            return "no answer; the client gives up"
        head = f"{self.status} {self.error_type or '(no error object)'}"
        return f"{head}, then dropped by the client" if self.outcome == DROPPED else head


EXPECTED: dict[str, Expected] = {
    "wrong_key": Expected(401, "authentication_error"),
    "missing_key": Expected(401, "authentication_error"),
    "malformed_json": Expected(400, "invalid_request_error"),
    "over_context": Expected(400, "exceed_context_size_error"),
    "over_size": Expected(413, None),
    "slowloris": Expected(outcome=GAVE_UP),
    "dropped_stream": Expected(200, None, DROPPED),
    "media_url": Expected(200, None),
    "media_missing": Expected(500, "server_error"),
}


@dataclass(frozen=True)
class NoiseSpec:
    """How much noise: ``rate`` requests/s (evenly spaced), at most ``max_count`` of them, within ``duration_s`` (the
    run's warm-up and measured time, set by the run), of ``kinds`` in turn. A slowloris connection lasts
    ``slowloris_s``. Bad values raise ``ValueError`` naming the field and the fix."""

    rate: float = 1.0
    max_count: int = 40
    duration_s: float = 10.0
    kinds: tuple[str, ...] = KINDS
    slowloris_s: float = 5.0

    def __post_init__(self) -> None:
        if isinstance(self.kinds, str | list):
            object.__setattr__(self, "kinds", tuple(self.kinds.split(",") if isinstance(self.kinds, str)
                                                    else self.kinds))
        _validate(self)

    @classmethod
    def parse(cls, text: str, duration_s: float) -> NoiseSpec:
        """``"rate=2 max=30 kinds=wrong_key,slowloris slowloris=4"`` (every part optional), for a run of
        ``duration_s``."""
        names = {"rate": "rate", "max": "max_count", "kinds": "kinds", "slowloris": "slowloris_s"}
        values: dict = {}
        for part in str(text).split():
            key, sep, value = part.partition("=")
            if not sep or key not in names:
                raise ValueError(f"noise part {part!r}: write NAME=VALUE with NAME one of {', '.join(names)}, "
                                 "e.g. 'rate=2 max=30'")
            values[names[key]] = value if key == "kinds" else _number(key, value)
        return cls(duration_s=duration_s, **values)

    def as_dict(self) -> dict:
        return {"rate": self.rate, "max_count": self.max_count, "duration_s": self.duration_s,
                "kinds": list(self.kinds), "slowloris_s": self.slowloris_s}

    def describe(self) -> str:
        return (f"{self.rate:g}/s, at most {self.max_count} in {self.duration_s:g} s, kinds "
                f"{', '.join(self.kinds)}")


def _number(key: str, value: str) -> float | int:
    try:
        return int(value) if key == "max" else float(value)
    except ValueError:
        raise ValueError(f"noise {key}={value!r}: give a number, e.g. {key}=2") from None


def _validate(s: NoiseSpec) -> None:
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise ValueError(message)

    def positive(x) -> bool:
        return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) and x > 0

    need(positive(s.rate), f"noise rate must be a number > 0 (requests/s); got {s.rate!r}")
    need(isinstance(s.max_count, int) and not isinstance(s.max_count, bool) and s.max_count >= 1,
         f"noise max_count must be an int >= 1 (requests); got {s.max_count!r}")
    need(positive(s.duration_s), f"noise duration_s must be a number > 0 (seconds); got {s.duration_s!r}")
    need(positive(s.slowloris_s), f"noise slowloris_s must be a number > 0 (seconds); got {s.slowloris_s!r}")
    unknown = [k for k in s.kinds if k not in KINDS]
    need(bool(s.kinds) and not unknown, f"noise kinds must be some of {', '.join(KINDS)}; got unknown "
         f"{', '.join(map(repr, unknown)) or 'none (an empty list)'}")
    need(len(set(s.kinds)) == len(s.kinds), f"noise kinds are named twice: {', '.join(s.kinds)}")


@dataclass(frozen=True)
class ServerFacts:
    """What the noise needs to know of the server: whether it refuses requests without a key (and the key the run
    sends), its slot context, whether it has an image projector, and the sink's base URL (None: no sink)."""

    has_key: bool
    headers: dict = field(default_factory=dict)  # the run's own headers (its key); never recorded
    n_ctx: int = 0
    vision: bool = False
    sink_url: str | None = None


def skipped(spec: NoiseSpec, facts: ServerFacts) -> dict[str, str]:
    """The kinds of ``spec`` this server cannot be sent, each with the reason."""
    out = {}
    for kind in spec.kinds:
        if kind in KEY_KINDS and not facts.has_key:
            out[kind] = "the server has no API key (GET /props answers without one): any key is accepted"
        elif kind in MEDIA_KINDS and not facts.vision:
            out[kind] = "the server has no image projector (modalities.vision is false in /props): it fetches nothing"
        elif kind in MEDIA_KINDS and facts.sink_url is None:
            out[kind] = "no sink to count the server's fetches"
        elif kind == "over_context" and facts.n_ctx < 1:
            out[kind] = "the slot context is unknown (no default_generation_settings.n_ctx in /props)"
    return out


def plan(spec: NoiseSpec, facts: ServerFacts) -> tuple[list[tuple[float, str]], dict[str, str]]:
    """``([(send offset in seconds, kind)], {skipped kind: reason})``: evenly spaced at ``rate``, at most
    ``max_count``, before ``duration_s``; the kinds that can be sent take turns in the order given."""
    skip = skipped(spec, facts)
    kinds = [k for k in spec.kinds if k not in skip]
    if not kinds:
        return [], skip
    count = min(spec.max_count, math.ceil(spec.duration_s * spec.rate - 1e-9))
    return [(i / spec.rate, kinds[i % len(kinds)]) for i in range(count)], skip


@dataclass(frozen=True)
class NoiseRequest:
    """One hostile request: ``headers`` and ``body`` as sent to ``path`` (POST), plus ``pad_to`` (a body of that many
    bytes, streamed), ``stream`` (read until the first content event, then hang up) and ``fetch`` (the sink URL
    the server is asked to fetch)."""

    kind: str
    path: str
    headers: dict
    body: bytes = b""
    pad_to: int = 0
    stream: bool = False
    fetch: str | None = None


def _chat(content, **extra) -> bytes:
    return json.dumps({"messages": [{"role": "user", "content": content}], "max_tokens": 1, **extra}).encode()


def request(kind: str, index: int, facts: ServerFacts) -> NoiseRequest:
    """The request of ``kind``, the ``index``-th noise request of the run (it makes media URLs unique)."""
    base = {"Content-Type": "application/json", **facts.headers}
    keyless = {k: v for k, v in base.items() if k.lower() not in ("authorization", "x-api-key")}
    made = NoiseRequest(kind, CHAT, base, _chat("hello"))
    if kind == "wrong_key":
        return replace(made, headers={**keyless, "Authorization": "Bearer llamatest-wrong-key"})
    if kind == "missing_key":
        return replace(made, headers=keyless)
    if kind == "malformed_json":
        return replace(made, body=b'{"messages": [{"role": "user", "content": "hel')
    if kind == "over_context":
        return replace(made, body=_chat("x" * (CHARS_PER_TOKEN * facts.n_ctx)))
    if kind == "over_size":
        return replace(made, body=b"", pad_to=BODY_LIMIT + 1)
    if kind == "dropped_stream":
        return replace(made, body=_chat("tell me a long story", max_tokens=64, stream=True), stream=True)
    if kind in MEDIA_KINDS:
        path = "/image.png" if kind == "media_url" else "/no-such-image.png"
        url = f"{facts.sink_url}{path}?seed={index}&noise={index}"
        parts = [{"type": "text", "text": "what is this"}, {"type": "image_url", "image_url": {"url": url}}]
        return replace(made, body=_chat(parts), fetch=url)
    return made  # slowloris: the engine sends its headers itself, one byte a second
