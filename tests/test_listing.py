from pathlib import Path

from llamatest import listing

SUITE = """*** Test Cases ***
Completion Counts Tokens
    [Tags]    completion
    No Operation

Completion Bug
    [Tags]    completion    bug
    No Operation

Health Answers
    [Tags]    health
    No Operation
"""


def suites(tmp_path: Path) -> Path:
    folder = tmp_path / "suites" / "01__area"
    folder.mkdir(parents=True)
    (folder / "area.robot").write_text(SUITE)
    return tmp_path / "suites"


def test_a_tag_lists_the_matching_tests_and_marks_the_default_exclusions(tmp_path):
    tests = listing.collect(suites(tmp_path), ["bug", "load"], "completion")
    assert [(t.name, t.excluded_by) for t in tests] == [("Completion Counts Tokens", ()),
                                                        ("Completion Bug", ("bug",))]
    text = listing.render(tests, "completion")
    assert "suites/01__area/area.robot  (2 tests, 1 not in the default run)" in text
    assert "    Completion Bug  [bug, completion]  (not in the default run: bug)" in text
    assert text.splitlines()[-1] == "2 tests matching 'completion' in 1 suite files; 1 of them in the default run"


def test_without_a_tag_only_the_counts(tmp_path):
    text = listing.render(listing.collect(suites(tmp_path), ["bug"]))
    assert text.splitlines() == ["suites/01__area/area.robot  (3 tests, 1 not in the default run)",
                                 "3 tests in all in 1 suite files; 2 of them in the default run"]
