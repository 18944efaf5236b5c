"""Generated test media: seeded images in three formats and WAV clips, never downloaded."""

import base64
import io
import struct
import wave
import zlib

import pytest
from PIL import Image

from llamatest import media


@pytest.mark.parametrize(("kind", "pil_format"), [("png", "PNG"), ("jpeg", "JPEG"), ("webp", "WEBP")])
def test_images_decode_in_their_format_and_size(kind, pil_format):
    image = Image.open(io.BytesIO(media.image_bytes(kind, seed=1, width=30, height=20)))
    assert (image.format, image.size) == (pil_format, (30, 20))


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_ones():
    assert media.image_bytes("png", seed=3) == media.image_bytes("png", seed=3)
    assert media.image_bytes("png", seed=3) != media.image_bytes("png", seed=4)


def test_data_uris_carry_the_media_type_and_the_base64_bytes():
    uri = media.image_data_uri("jpeg", seed=2)
    head, data = uri.split(",", 1)
    assert head == "data:image/jpeg;base64"
    assert base64.b64decode(data) == media.image_bytes("jpeg", seed=2)
    assert media.wav_data_uri(0.5).startswith("data:audio/wav;base64,")


def test_wav_is_mono_16_bit_16_khz_of_the_asked_length():
    with wave.open(io.BytesIO(media.wav_bytes(seconds=1.5)), "rb") as clip:
        assert (clip.getnchannels(), clip.getsampwidth(), clip.getframerate()) == (1, 2, 16000)
        assert clip.getnframes() == 24000


def test_only_the_media_functions_are_robot_keywords():
    assert all(callable(getattr(media, name)) for name in media.__all__)
    assert "Image" not in media.__all__


def test_the_huge_png_header_claims_its_size_with_a_valid_crc():
    data = media.huge_png_bytes(50000, 40000)
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (kind, struct.unpack(">II", data[16:24])) == (b"IHDR", (50000, 40000))
    assert struct.unpack(">I", data[16 + length:20 + length])[0] == zlib.crc32(data[12:16 + length])
    with pytest.raises(Image.DecompressionBombError):  # Pillow trusts the header, and refuses the size
        Image.open(io.BytesIO(data))


@pytest.mark.parametrize("kind", ["truncated-png", "corrupt-jpeg", "huge-png", "empty", "text"])
def test_hostile_images_are_png_data_uris(kind):
    assert media.hostile_image_data_uri(kind).startswith("data:image/png;base64,")
    assert media.hostile_image_data_uri("data:x") == "data:x"


def test_the_fixture_serves_and_records_on_loopback_only():
    import urllib.request

    url = media.start_media_fixture()
    try:
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{url}/image.png?seed=5", timeout=10) as resp:
            assert resp.read() == media.image_bytes("png", 5)
        assert [(r["method"], r["path"], r["query"]) for r in media.media_fixture_requests()] == [
            ("GET", "/image.png", "seed=5")]
    finally:
        media.stop_media_fixture()


def test_a_fixture_stopped_mid_trickle_stops_at_once_and_leaves_another_running():
    import threading
    import time
    import urllib.request

    trickle = media.start_media_fixture("trickle")
    other = media.start_media_fixture()
    read = threading.Thread(target=lambda: urllib.request.urlopen(f"{trickle}/trickle", timeout=30).read())
    try:
        read.start()
        time.sleep(0.5)  # the trickle has begun
        began = time.monotonic()
        media.stop_media_fixture("trickle")
        assert time.monotonic() - began < 1.0  # aiohttp's shutdown would wait out the 10.5 s trickle
        read.join(5)
        assert not read.is_alive()
        with urllib.request.urlopen(f"{other}/image.png", timeout=10) as resp:
            assert resp.status == 200
    finally:
        media.stop_media_fixture("trickle")
        media.stop_media_fixture()


@pytest.mark.parametrize("lie", sorted(media.LIES))
def test_a_lying_wav_differs_from_the_clip_in_its_header_only(lie):
    honest, lying = media.wav_bytes(1.0, seed=2), media.lying_wav_bytes(lie, 1.0, seed=2)
    assert len(lying) == len(honest) and lying[44:] == honest[44:]
    assert lying[:44] != honest[:44]
    assert base64.b64decode(media.lying_wav_base64(lie, 1.0, seed=2)) == lying


def test_the_lying_data_size_claims_two_gigabytes():
    data = media.lying_wav_bytes("data-size", 0.5)
    assert data[36:40] == b"data" and struct.unpack("<I", data[40:44])[0] == 0x7FFFFFF0


def test_the_media_folder_holds_an_image_and_a_symlink_to_the_canary_outside(tmp_path):
    made = media.make_media_folder(str(tmp_path))
    folder, canary = tmp_path / "media", tmp_path / "canary.png"
    assert made["folder"] == str(folder.resolve()) and made["canary"] == str(canary.resolve())
    assert (folder / "inside.png").read_bytes() == media.image_bytes("png", media.INSIDE_SEED)
    assert (folder / "link.png").resolve() == canary.resolve() and (folder / "sub").is_dir()
    assert canary.read_bytes() == media.image_bytes("png", media.CANARY_SEED) != (folder / "inside.png").read_bytes()
    assert made["canary_uri"] == media.image_data_uri("png", media.CANARY_SEED)
    assert media.make_media_folder(str(tmp_path)) == made  # made afresh over an earlier one
