"""Nothing dropped: the default run's tests are the ones `default-selection.txt` lists, one per line.

Work that makes the run faster, moves tests between files or renames expectations must not lose a test on the
way (issue 27). A test that disappears from the default selection fails here until the list is rewritten, so
its removal is a decision in a commit, never a side effect. After adding or deliberately removing tests:

    .venv/bin/python tests/codebase/test_default_selection.py --write
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LISTED = Path(__file__).with_name("default-selection.txt")
sys.path.insert(0, str(ROOT / "libraries"))
sys.path.insert(0, str(ROOT))

import run  # noqa: E402
from llamatest import listing  # noqa: E402

FIX = "rewrite the list with: .venv/bin/python tests/codebase/test_default_selection.py --write"


def default_selection() -> list[str]:
    options, _ = run.parse_robot_args(["--argumentfile", str(run.SELECTION_ARGS)])
    tests = listing.collect(run.SUITES, options.get("exclude", []))
    return sorted(f"{t.suite_file} :: {t.name}" for t in tests if not t.excluded_by)


def listed() -> list[str]:
    return [line for line in LISTED.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_no_listed_test_left_the_default_run():
    gone = sorted(set(listed()) - set(default_selection()))
    assert not gone, f"{len(gone)} test(s) left the default run (removed, renamed, moved or newly excluded); " \
                     f"if that was meant, {FIX}:\n" + "\n".join(gone[:50])


def test_every_test_of_the_default_run_is_listed():
    new = sorted(set(default_selection()) - set(listed()))
    assert not new, f"{len(new)} new test(s) in the default run; {FIX}:\n" + "\n".join(new[:50])


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    LISTED.write_text("\n".join(default_selection()) + "\n", encoding="utf-8")
    print(f"{LISTED}: {len(default_selection())} tests")
