"""The docs tables that mirror code are the code's own rendering: a preset, metric or tag added in the code and
not in the docs (or the other way round) fails here. Re-render with the function named in the message."""

import textwrap
from pathlib import Path

from llamatest.load.analysis import metrics
from llamatest.server import presets

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_preset_table_is_the_presets_rendered():
    doc = (DOCS / "writing-suites.md").read_text()
    assert textwrap.indent(presets.markdown_table(), "  ") in doc, "re-render llamatest.server.presets.markdown_table"


def test_the_metric_definitions_are_the_metrics_rendered():
    doc = (DOCS / "load.md").read_text()
    assert metrics.definitions_table() in doc, "re-render llamatest.load.analysis.metrics.definitions_table"
