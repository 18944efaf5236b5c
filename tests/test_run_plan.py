"""RunPlanLibrary: a set-up learns which tagged tests the run executes, after Robot's selection, whether the run
starts at the folder that imports the library or at several folders side by side."""

from pathlib import Path

import pytest
import robot

LIBRARY = Path(__file__).resolve().parents[1] / "libraries" / "RunPlanLibrary.py"

INIT = """*** Settings ***
Library    {library}
Suite Setup    Log Plan

*** Keywords ***
Log Plan
    ${{early}} =    Run Includes Tests Tagged    early:case
    ${{other}} =    Run Includes Tests Tagged    EARLY: Other_Case
    Log To Console    PLAN {name} early=${{early}} other=${{other}}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Two folders, each importing the library in its __init__.robot: `a` holds the tagged tests."""
    for name, tests in {"a": "T1\n    [Tags]    early:case\n    No Operation\n"
                             "T2\n    [Tags]    early:othercase\n    No Operation\n",
                        "b": "T3\n    No Operation\n"}.items():
        folder = tmp_path / "top" / name
        folder.mkdir(parents=True)
        (folder / "__init__.robot").write_text(INIT.format(library=LIBRARY, name=name))
        (folder / "t.robot").write_text(f"*** Test Cases ***\n{tests}")
    return tmp_path / "top"


def plans(capfd, *sources: str, **options) -> list[str]:
    robot.run(*sources, output="NONE", report="NONE", log="NONE", **options)
    return [line for line in capfd.readouterr().out.splitlines() if line.startswith("PLAN")]


def test_a_run_of_the_whole_tree_knows_the_tags_of_every_folder(tree, capfd):
    assert plans(capfd, str(tree)) == ["PLAN a early=True other=True", "PLAN b early=True other=True"]


def test_a_test_left_out_by_the_selection_is_not_in_the_plan(tree, capfd):
    assert plans(capfd, str(tree), exclude=["early:othercase"]) == ["PLAN a early=True other=False",
                                                                   "PLAN b early=True other=False"]


def test_a_run_of_two_folders_side_by_side_knows_each_when_it_starts(tree, capfd):
    assert plans(capfd, str(tree / "b"), str(tree / "a")) == ["PLAN b early=False other=False",
                                                               "PLAN a early=True other=True"]
