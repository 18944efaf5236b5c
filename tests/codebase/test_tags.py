"""One tag taxonomy: every tag the suites and the harness use is in llamatest.tags, and the docs table is its
rendering."""

import re
from pathlib import Path

from llamatest import listing, tags

ROOT = Path(__file__).resolve().parents[2]


def test_every_tag_in_use_is_in_the_taxonomy():
    used = {tag for source in ("suites", "tests/harness", "tests/log_sample")
            for test in listing.collect(ROOT / source, []) for tag in test.tags}
    assert tags.unknown(used) == [], "add the tag to libraries/llamatest/tags.py (and re-render the docs table)"


def test_a_tag_outside_the_taxonomy_is_named():
    assert tags.unknown(["chat", "needs:metrics", "builds:11400-", "chta"]) == ["chta"]


def test_the_docs_table_is_the_taxonomy_rendered():
    doc = (ROOT / "docs" / "writing-suites.md").read_text()
    assert tags.render_table() in doc, "re-render it from llamatest.tags.render_table()"


def test_every_early_tag_names_a_case_the_run_can_begin():
    resource = (ROOT / "resources" / "early_cases.resource").read_text()
    begun = {name for line in resource.splitlines() if line.startswith("&{EARLY_BEGIN}")
             for name, _ in (item.split("=", 1) for item in re.split(r" {2,}", line)[1:])}
    used = {tag.removeprefix("early:") for test in listing.collect(ROOT / "suites", [])
            for tag in test.tags if tag.startswith("early:")}
    assert used and used <= begun, f"early:NAME tags {sorted(used - begun)} name no case of early_cases.resource"
