"""Where a run's time went: durations read from a real output.xml (a small generated suite run by robot), the
slowest-ten console lines, the figures kept across runs, and the balanced pabot split made from them."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llamatest.report import durations

SUITE = """
*** Settings ***
Suite Setup         Wait    0.3

*** Test Cases ***
Slow One
    Wait    0.4

Serial One
    [Tags]    serial
    Wait    0.2

Quick One
    No Operation

*** Keywords ***
Wait
    [Arguments]    ${seconds}
    Evaluate    time.sleep(${seconds})    modules=time
"""


@pytest.fixture(scope="module")
def output(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("durations")
    (root / "suites").mkdir()
    (root / "suites" / "timed.robot").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "robot", "--output", "output.xml", "--log", "NONE", "--report", "NONE",
                    "--outputdir", str(root), str(root / "suites")], check=True, capture_output=True, timeout=120)
    return root / "output.xml", root


def test_times_come_from_the_output_per_file_test_and_setup(output):
    found = durations.read(output[0], output[1], ("serial",))
    assert list(found.files) == ["suites/timed.robot"]
    assert found.files["suites/timed.robot"] >= 0.9
    assert found.setup_s >= 0.3
    assert found.tests["Suites.Timed.Slow One"] >= 0.4 > found.tests["Suites.Timed.Quick One"]
    assert 0.2 <= found.serial["suites/timed.robot"] < 0.4  # the serial test's time alone


def test_console_lines_name_the_slowest_first(output):
    lines = durations.console_lines(durations.read(output[0], output[1]))
    assert lines[0].startswith("time: ") and "suite set-ups and tear-downs" in lines[0]
    assert lines[1].startswith("slowest suite files: suites/timed.robot ")
    assert lines[2].startswith("slowest tests: Suites.Timed.Slow One ")


def test_a_parallel_run_names_its_parts_and_no_share_of_a_sum_of_processes():
    found = durations.Durations(total_s=78.1, setup_s=21.0, files={"a": 1.0}, tests={"A.T": 1.0})
    line = durations.console_lines(found, {"parallel": 56.7, "serial": 21.4})[0]
    assert line.startswith("time: 78.1 s in robot (parallel part 56.7 s, serial part 21.4 s), 21.0 s of all "
                           "processes in suite set-ups")
    line = durations.console_lines(found, {"parallel": 52.7, "serial": 21.4}, 4.0)[0]
    assert line.startswith("time: 78.1 s in robot (parallel part 52.7 s, serial part 21.4 s; pabot's start and "
                           "merge add 4.0 s), ")


def test_remember_keeps_other_files_and_takes_the_newest_figure(tmp_path):
    path = tmp_path / "times.json"
    durations.remember(durations.Durations(files={"a": 5.0, "b": 1.0}, serial={"a": 2.0}), path)
    durations.remember(durations.Durations(files={"a": 3.0}), path)
    kept = durations.load(path)
    assert kept.files == {"a": 3.0, "b": 1.0}
    assert kept.serial == {}  # a's serial tests are gone in the newer run
    assert durations.load(tmp_path / "missing.json") is None


def test_balanced_groups_put_the_longest_first_on_the_lightest_group():
    groups = durations.balanced_groups({"a": 10.0, "b": 6.0, "c": 5.0, "d": 1.0}, 2)
    assert groups == [["a", "d"], ["b", "c"]]
    assert durations.balanced_groups({"a": 1.0}, 2) == [["a"]]


def test_pabot_ordering_groups_the_selected_suites_without_their_serial_time(tmp_path):
    top = tmp_path / "suites"
    (top / "03__deep").mkdir(parents=True)
    for name in ("x.robot", "y.robot", "03__deep/z_file.robot", "w.robot"):
        (top / name).touch()
    found = durations.Durations(files={"suites/x.robot": 10.0, "suites/y.robot": 8.0,
                                       "suites/03__deep/z_file.robot": 4.0, "suites/w.robot": 20.0,
                                       "suites/gone.robot": 30.0},
                                serial={"suites/x.robot": 9.0})
    selected = {top / "x.robot", top / "y.robot", top / "03__deep/z_file.robot"}  # w.robot: no test selected
    text = durations.pabot_ordering(found, 2, tmp_path, top, selected)
    assert text == "{\n--suite Suites.Y\n}\n{\n--suite Suites.Deep.Z File\n--suite Suites.X\n}\n"


def test_selected_files_are_those_with_a_test_the_tags_keep(tmp_path):
    top = tmp_path / "suites"
    top.mkdir()
    (top / "kept.robot").write_text("*** Test Cases ***\nOne\n    [Tags]    chat\n    No Operation\n")
    (top / "loaded.robot").write_text("*** Test Cases ***\nTwo\n    [Tags]    load\n    No Operation\n")
    assert durations.selected_files(top, {"exclude": ["load"]}) == {(top / "kept.robot").resolve()}
    assert durations.selected_files(top, {"include": ["nothing"]}) == set()


def test_remember_keeps_no_suite_file_from_outside_the_checkout(tmp_path):
    path = tmp_path / "suite-times.json"
    durations.remember(durations.Durations(files={"suites/a.robot": 2.0, "/tmp/x/mine.robot": 1.0}), path)
    kept = durations.load(path)
    assert kept.files == {"suites/a.robot": 2.0}
    path.write_text('{"files": {"a": 1.0}, "names": {"a": "A"}}')  # a key an older version wrote
    assert durations.load(path).files == {"a": 1.0}


def test_a_folder_stays_in_one_group_unless_it_weighs_over_half_a_share():
    weights = {"s/a/1.robot": 3.0, "s/a/2.robot": 2.0, "s/b/1.robot": 6.0, "s/c/1.robot": 4.0, "s/c/2.robot": 5.0}
    units = durations.by_folder(weights, 2)  # a share is 10 s: a folder of over 5 s is split
    assert units == {("s/a/1.robot", "s/a/2.robot"): 5.0, ("s/b/1.robot",): 6.0,
                     ("s/c/1.robot",): 4.0, ("s/c/2.robot",): 5.0}


def test_figures_of_parallel_runs_take_the_place_of_others_file_by_file():
    base = durations.Durations(files={"a": 5.0, "b": 2.0}, serial={"a": 1.0, "b": 1.0})
    newer = durations.Durations(files={"b": 4.0, "c": 3.0}, serial={"c": 0.5})
    both = durations.merged(base, newer)
    assert (both.files, both.serial) == ({"a": 5.0, "b": 4.0, "c": 3.0}, {"a": 1.0, "c": 0.5})
    assert durations.merged(None, newer) is newer and durations.merged(base, None) is base
