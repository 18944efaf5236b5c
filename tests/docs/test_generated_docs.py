"""The docs that mirror the code are the code's rendering, and the prose holds no figures that go stale.

- Each section between ``<!-- generated: NAME -->`` and ``<!-- end generated -->`` is what
  `llamatest.report.docs_sections` renders now (run.py's options, the environment variables, the resources, the
  layout, the ``needs:`` vocabulary); rewrite them with ``.venv/bin/python -m llamatest.report.docs_sections``.
- run.py's --help names exactly the options its parser takes.
- Test counts (``1,021 tests``, ``727 passed``) and measured timings (a duration in a sentence that says it was
  measured) stand only in docs/numbers.md; the closing line is shown with placeholders (``N passed``).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import run
from llamatest.report import docs_sections

ROOT = docs_sections.ROOT
EXPECTED = {"docs/running.md": {"options", "environment"}, "docs/writing-suites.md": {"resources", "layout"},
            "CONTRIBUTING.md": {"needs"}}
FIGURES_PAGE = "docs/numbers.md"
COUNT = re.compile(r"\b\d[\d,]*\s+(?:tests?|passed|failed|skipped)\b")
DURATION = re.compile(r"\b\d[\d.,]*\s?(?:ms|s|seconds?|minutes?|min|h|hours?)\b")
# What makes a duration a measurement rather than a limit the code sets (a default, a deadline, an SLO).
MEASURED = re.compile(r"\b(?:measured|took|wall|on (?:a |this )?(?:\d+|two)[- ](?:busy )?cores?|"
                      r"(?:this|the) (?:project's )?(?:\d+|two)-core machine|ran in|runs? in)\b", re.I)
OPTION = re.compile(r"^  (?:-\w, )?(--[\w-]+)(?: (\S+))?", re.M)
PARSED = re.compile(r'arg (?:==|in) \(?"(--[\w-]+)"')


def markdown_files() -> list[Path]:
    skipped = {".venv", "results", "node_modules", ".git"}
    return sorted(path for path in ROOT.rglob("*.md") if not skipped & set(path.relative_to(ROOT).parts))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_generated_section_is_what_the_code_renders(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert set(docs_sections.sections(text)) == EXPECTED[name], f"{name}: generated sections missing or unknown"
    assert docs_sections.render(text) == text, f"{name} differs from the code: run {docs_sections.COMMAND}"


def test_help_names_exactly_the_options_run_py_parses():
    options = run.HELP[run.HELP.index("run.py options:"):run.HELP.index("Environment variables:")]
    shown = {flag for flag, _ in OPTION.findall(options)}
    parsed = set(PARSED.findall(inspect.getsource(run.parse_args)))
    assert shown - {"--help"} == parsed - {"--help"}


@pytest.mark.parametrize("flag, value", [(flag, value) for flag, value in OPTION.findall(run.HELP)
                                         if flag != "--help"])
def test_each_option_of_the_help_is_taken_by_run_py(flag, value):
    sample = {"SECONDS": "10", "N": "2", "VERSION": "11401.0.0", "KINDS": "address"}
    argv = [flag, sample[value]] if value in sample else [flag]
    assert run.parse_args(argv)[1] == [], f"run.py passes {argv} on to robot: its --help lists it"


def stale_figures(text: str) -> list[str]:
    """The test counts and measured timings of ``text``, generated sections aside."""
    text = re.sub(docs_sections.SECTION, "", text)
    found = [match.group() for match in COUNT.finditer(text)]
    for sentence in re.split(r"(?<=[.!?])\s+|\n\n", text):
        if MEASURED.search(sentence):
            found += [match.group() for match in DURATION.finditer(sentence)]
    return found


def test_no_count_or_timing_stands_outside_the_figures_page():
    found = {path.relative_to(ROOT).as_posix(): stale_figures(path.read_text(encoding="utf-8"))
             for path in markdown_files() if path.relative_to(ROOT).as_posix() != FIGURES_PAGE}
    found = {name: figures for name, figures in found.items() if figures}
    assert found == {}, f"move these figures to {FIGURES_PAGE} and link to it"


def test_counts_and_measured_timings_are_found_and_limits_are_not():
    text = ("robot: 727 passed, 0 failed\n\nMeasured on this 2-core machine: 193 s for 1,021 tests.\n\n"
            "The deadline is 30 s by default. robot: N passed, N failed, N skipped\n\n"
            "<!-- generated: options -->\n12 tests\n<!-- end generated -->\n")
    assert stale_figures(text) == ["727 passed", "0 failed", "1,021 tests", "193 s"]
