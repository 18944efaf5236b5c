"""Test media, generated and never downloaded: images (PNG, JPEG, WebP through Pillow) and WAV audio (numpy).

Every image is a seeded pattern (the same `seed` gives the same pixels, different seeds differ), so two
requests that send the same image send the same bytes. Robot imports this module as a library: the names
in ``__all__`` are its keywords (``Image Data Uri    png    seed=3``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import shutil
import struct
import wave
import zlib
from pathlib import Path

import numpy as np
from aiohttp import web
from PIL import Image

from .http.loopback import LoopbackApp

__all__ = ["image_bytes", "image_base64", "image_data_uri", "wav_bytes", "wav_base64", "wav_data_uri",
           "start_media_fixture", "media_fixture_requests", "clear_media_fixture_requests", "stop_media_fixture",
           "huge_png_bytes", "hostile_image_data_uri", "lying_wav_bytes", "lying_wav_base64", "make_media_folder"]

FORMATS = {"png": ("PNG", "image/png"), "jpeg": ("JPEG", "image/jpeg"), "webp": ("WEBP", "image/webp")}
SAMPLE_RATE = 16000  # what mtmd's whisper preprocessor expects (it resamples anything else)


def _pattern(width: int, height: int, seed: int) -> Image.Image:
    """Blocks of seeded colours: distinct images for distinct seeds, and structure that survives JPEG."""
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 256, size=(4, 4, 3), dtype=np.uint8)
    pixels = np.kron(blocks, np.ones((-(-height // 4), -(-width // 4), 1), dtype=np.uint8))[:height, :width]
    return Image.fromarray(pixels, "RGB")


def image_bytes(kind: str = "png", seed: int = 0, width: int = 48, height: int = 40) -> bytes:
    """The encoded image (`kind` png, jpeg or webp) of the seeded pattern."""
    buffer = io.BytesIO()
    _pattern(int(width), int(height), int(seed)).save(buffer, FORMATS[kind.lower()][0])
    return buffer.getvalue()


def image_base64(kind: str = "png", seed: int = 0, width: int = 48, height: int = 40) -> str:
    """The image as plain base64 (no data URI prefix)."""
    return base64.b64encode(image_bytes(kind, seed, width, height)).decode("ascii")


def image_data_uri(kind: str = "png", seed: int = 0, width: int = 48, height: int = 40) -> str:
    """``data:image/KIND;base64,…`` of the image."""
    return f"data:{FORMATS[kind.lower()][1]};base64,{image_base64(kind, seed, width, height)}"


def wav_bytes(seconds: float = 1.0, frequency: float = 440.0, seed: int = 0) -> bytes:
    """A mono 16-bit WAV at 16 kHz: a sine of `frequency` plus seeded noise, `seconds` long."""
    n = int(float(seconds) * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    noise = np.random.default_rng(int(seed)).standard_normal(n) * 0.05
    samples = np.clip(0.5 * np.sin(2 * np.pi * float(frequency) * t) + noise, -1.0, 1.0)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes((samples * 32767).astype("<i2").tobytes())
    return buffer.getvalue()


def wav_base64(seconds: float = 1.0, frequency: float = 440.0, seed: int = 0) -> str:
    """The WAV as plain base64 (what OpenAI's ``input_audio.data`` carries)."""
    return base64.b64encode(wav_bytes(seconds, frequency, seed)).decode("ascii")


def wav_data_uri(seconds: float = 1.0, frequency: float = 440.0, seed: int = 0) -> str:
    """``data:audio/wav;base64,…`` of the WAV."""
    return f"data:audio/wav;base64,{wav_base64(seconds, frequency, seed)}"


# ----- a local media server on 127.0.0.1: what llama-server fetches when a request names an http:// URL -----
BIG_BYTES = 11 * 1024 * 1024  # over the 10 MB limit of server-common.cpp handle_media


# The trickle lasts just over handle_media's 10 s timeout: the least that tells a bound on the whole download (which
# would cut it) from one on each read (which a byte a second never reaches); its end comes half a second after 10 s.
TRICKLE_S = 10.5
TRICKLE_GAP_S = 1.0


class MediaFixture:
    """An aiohttp server on 127.0.0.1 (port 0) in a thread with its own event loop, recording every request.

    Routes: ``/image.png?seed=N`` (a generated PNG), ``/redirect`` (302 to ``/image.png``), ``/loop`` (302 to
    itself), ``/big`` (200 ``image/png`` of `BIG_BYTES`), ``/trickle`` (a byte every `TRICKLE_GAP_S` for
    `TRICKLE_S`, then the end of the body).
    """

    def __init__(self):
        self.requests: list[dict] = []
        self._ending = asyncio.Event()  # set by stop: an open trickle ends at once instead of holding the stop
        app = web.Application(middlewares=[self._record])
        app.router.add_get("/image.png", self._image)
        app.router.add_get("/redirect", self._redirect_to("/image.png"))
        app.router.add_get("/loop", self._redirect_to("/loop"))
        app.router.add_get("/big", self._big)
        app.router.add_get("/trickle", self._trickle)
        self._server = LoopbackApp(app, "media-fixture")
        self.url = self._server.url

    @web.middleware
    async def _record(self, request: web.Request, handler):
        self.requests.append({"method": request.method, "path": request.path, "query": request.query_string,
                              "headers": dict(request.headers), "peer": request.remote})
        return await handler(request)

    @staticmethod
    async def _image(request: web.Request) -> web.Response:
        return web.Response(body=image_bytes("png", int(request.query.get("seed", 0))), content_type="image/png")

    @staticmethod
    def _redirect_to(location: str):
        async def redirect(_request: web.Request) -> web.Response:
            raise web.HTTPFound(location)
        return redirect

    @staticmethod
    async def _big(_request: web.Request) -> web.Response:
        return web.Response(body=bytes(BIG_BYTES), content_type="image/png")

    async def _trickle(self, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "image/png"})
        await resp.prepare(request)
        loop = asyncio.get_running_loop()
        end = loop.time() + TRICKLE_S
        while (left := end - loop.time()) > 0 and not self._ending.is_set():
            await resp.write(b"\x89")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ending.wait(), min(TRICKLE_GAP_S, left))
        await resp.write(b"\x89")  # the last byte comes at the very end, so the body ends no sooner
        return resp

    async def _end(self) -> None:
        self._ending.set()

    def stop(self) -> None:
        """Ends an open trickle (aiohttp's shutdown would wait for it), then stops serving."""
        self._server.call(self._end())
        self._server.stop()


# by name: a suite's fixture ("suite") and one a folder set-up keeps for a case of its own ("trickle") run side by side
_fixtures: dict[str, MediaFixture] = {}


def start_media_fixture(name: str = "suite") -> str:
    """Starts the local media server ``name`` (see `MediaFixture`; one started before under that name is stopped)
    and returns its base URL, ``http://127.0.0.1:PORT``."""
    stop_media_fixture(name)
    _fixtures[name] = MediaFixture()
    return _fixtures[name].url


def media_fixture_requests(name: str = "suite") -> list[dict]:
    """The requests the media server ``name`` received since it started, in order: method, path, query, headers,
    peer."""
    if name not in _fixtures:
        raise AssertionError(f"the media fixture '{name}' is not running: call Start Media Fixture first")
    return list(_fixtures[name].requests)


def clear_media_fixture_requests(name: str = "suite") -> None:
    """Forgets the requests recorded so far."""
    media_fixture_requests(name)
    _fixtures[name].requests.clear()


def stop_media_fixture(name: str = "suite") -> None:
    """Stops the local media server ``name``, if it runs."""
    fixture = _fixtures.pop(name, None)
    if fixture is not None:
        fixture.stop()


# ----- hostile media: files that claim to be media and are not, or claim sizes they do not have -----
def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png_bytes(width: int = 50000, height: int = 50000) -> bytes:
    """A well-formed PNG header (signature, IHDR with a correct CRC) claiming `width` × `height` RGB pixels,
    followed by one row of compressed data and IEND: a decoder that trusts the header allocates gigabytes."""
    ihdr = struct.pack(">IIBBBBB", int(width), int(height), 8, 2, 0, 0, 0)
    row = zlib.compress(b"\x00" + bytes(3 * min(int(width), 64)))
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", row) + _png_chunk(b"IEND", b"")


def hostile_image_data_uri(kind: str) -> str:
    """A ``data:`` URI of hostile image bytes: ``truncated-png`` (the first half of a PNG), ``corrupt-jpeg`` (a
    JPEG with its middle overwritten), ``huge-png`` (`huge_png_bytes`), ``empty`` (zero bytes), ``text`` (a
    text file labelled ``image/png``). A `kind` that is already a ``data:`` URI is returned as it is."""
    if kind.startswith("data:"):
        return kind
    png, jpeg = image_bytes("png", 7), image_bytes("jpeg", 7)
    payloads = {
        "truncated-png": png[: len(png) // 2],
        "corrupt-jpeg": jpeg[:64] + bytes(len(jpeg) - 128) + jpeg[-64:],
        "huge-png": huge_png_bytes(),
        "empty": b"",
        "text": b"this is not an image\n",
    }
    return f"data:image/png;base64,{base64.b64encode(payloads[kind]).decode('ascii')}"


# WAV header fields (RIFF "fmt " chunk of a canonical 44-byte header): byte offset and struct format.
_WAV_FIELDS = {"channels": (22, "<H"), "sample_rate": (24, "<I"), "byte_rate": (28, "<I"),
               "block_align": (32, "<H"), "bits": (34, "<H"), "data_size": (40, "<I")}
LIES = {
    "data-size": {"data_size": 0x7FFFFFF0},  # ~2 GB claimed, the clip's bytes present: a reader must clamp
    "sample-rate-zero": {"sample_rate": 0, "byte_rate": 0},  # no duration can be computed
    "channels-zero": {"channels": 0},  # no frame size
    "channels": {"channels": 6},  # six channels in a header whose block_align and byte_rate say one
    "sample-rate": {"sample_rate": 8000},  # half the rate its byte_rate says
}


def lying_wav_bytes(lie: str, seconds: float = 1.0, seed: int = 0) -> bytes:
    """`wav_bytes` of `seconds` whose header lies: `lie` names the fields rewritten (see `LIES`). The samples
    stay those of a mono 16-bit 16 kHz clip, so what a reader should make of them is known."""
    data = bytearray(wav_bytes(seconds, seed=seed))
    for name, value in LIES[lie].items():
        offset, fmt = _WAV_FIELDS[name]
        struct.pack_into(fmt, data, offset, value)
    return bytes(data)


def lying_wav_base64(lie: str, seconds: float = 1.0, seed: int = 0) -> str:
    """`lying_wav_bytes` as plain base64 (for ``input_audio.data``)."""
    return base64.b64encode(lying_wav_bytes(lie, seconds, seed)).decode("ascii")


# ----- a --media-path folder, and a canary outside it -----
INSIDE_SEED, CANARY_SEED = 6, 5  # distinct images: an answer shows which one the server read


def make_media_folder(root: str) -> dict[str, str]:
    """Makes (afresh) ``root/media``, the folder to pass as ``--media-path``, with ``inside.png`` (seed
    `INSIDE_SEED`), an empty ``sub/`` folder and ``link.png``, a symlink to ``root/canary.png`` (seed
    `CANARY_SEED`), which lies outside the folder. Returns the absolute paths ``folder`` and ``canary``, and
    the data URIs of the two images, ``inside_uri`` and ``canary_uri``."""
    base = Path(root).resolve()
    folder = base / "media"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "sub").mkdir(parents=True)
    canary = base / "canary.png"
    canary.write_bytes(image_bytes("png", CANARY_SEED))
    (folder / "inside.png").write_bytes(image_bytes("png", INSIDE_SEED))
    (folder / "link.png").symlink_to(canary)
    return {"folder": str(folder), "canary": str(canary), "inside_uri": image_data_uri("png", INSIDE_SEED),
            "canary_uri": image_data_uri("png", CANARY_SEED)}
