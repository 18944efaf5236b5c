"""report.load: the log blocks of a load run and of a sweep are well-formed HTML whatever the summary holds.

Summaries come from files and servers: names, flag details, notes and paths may hold markup, quotes or lone
surrogates; values may be None; whole sections may be missing or null. The block must stay balanced, show such
text as text, stay encodable as UTF-8, and carry its charts inline as PNG data URIs.
"""

from __future__ import annotations

import base64
from html.parser import HTMLParser
from pathlib import Path

import pytest

from llamatest.load.analysis.summary import summarize
from llamatest.load.engine.profiles import Profile
from llamatest.load.engine.record import RunRecord
from llamatest.load.pipeline import LoadRun, SweepRun
from llamatest.report.load import comparison_table, compat_table, fmt, load_run_html, sweep_html

HOSTILE = "<script>alert('x')</script> \"quoted\" & 'single' \ud800 lone </details></table>"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
VOID = frozenset({"img", "br", "hr", "meta", "input", "col", "wbr", "area", "base", "link", "source", "track",
                  "embed", "param"})


class Checked(HTMLParser):
    """Parses a block; fails on a closing tag that does not close the innermost open one."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: set[str] = set()
        self.images: list[dict] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()
        assert self.stack == [], f"unclosed tags: {self.stack}"

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "img":
            self.images.append(dict(attrs))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:] or 'nothing'}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def check(block: str) -> Checked:
    block.encode("utf-8")  # a lone surrogate would make writing the log fail
    parsed = Checked(block)
    assert "script" not in parsed.tags, "hostile text became markup"
    for image in parsed.images:
        assert image["src"].startswith("data:image/png;base64,")
        assert base64.b64decode(image["src"].split(",", 1)[1]).startswith(PNG[:8])
    return parsed


def dist(**values) -> dict:
    base = {"n": 0, "mean": None, "std": None, "min": None, "max": None, "p50": None, "p90": None, "p95": None,
            "p99": None, "p99_9": None, "ci": {"p50": None, "p95": None, "p99": None},
            "missing": {"p99": "needs n >= 100, have 0"}}
    return {**base, **values}


def hostile_summary() -> dict:
    return {
        "schema": "llamatest.load.summary/1",
        "profile": {"kind": "rate", "rate": 2.0},
        "run": {"profile_text": HOSTILE, "config_key": HOSTILE, "workers": [{"id": 0}],
                "dataset": {"name": HOSTILE, "count": None, "hash": None},
                "server": {"build_info": HOSTILE, "model_path": f"/m/{HOSTILE}.gguf"}},
        "counts": {"succeeded": 3, "errored": None, "dropped": 0, "errors_by_class": {HOSTILE: 2},
                   "outcomes": {"finish_length": 3}},
        "metrics": {"ttft_ms": dist(n=3, mean=12.5, p50=11.0, p90=15.0, p95=16.0, max=17.0,
                                    ci={"p50": [10.0, 12.0], "p95": [None, None], "p99": None}),
                    "tpot_ms": dist(), "e2e_ms": None},
        "throughput": {"window": {"duration_s": 1.0, "request_throughput": None}, "wall": None,
                       "error_rate": None},
        "flags": {"client_bound": {"set": True, "detail": HOSTILE}, "dropped": {"set": False},
                  HOSTILE: {"set": True, "detail": None}, "rate_shortfall": None},
        "definitions": {HOSTILE: HOSTILE, "ttft_ms": None},
        "samples": {"ttft_ms": [11.0, 12.0, 13.0]},
    }


def run_record() -> RunRecord:
    return RunRecord(profile=Profile("synchronous").as_dict(), target={"base_url": "http://127.0.0.1:1"},
                     t0_wall=0.0, t0_perf=0.0)


def load_run(summary, charts=(), comparisons=None, baseline_name=None) -> LoadRun:
    return LoadRun(name=HOSTILE, run=run_record(), summary=summary, outdir=Path(f"/tmp/{HOSTILE}"),
                   charts=list(charts), comparisons=comparisons or {}, baseline_name=baseline_name)


@pytest.fixture
def chart(tmp_path):
    path = tmp_path / "latency \"<b>\" 'x'.png"
    path.write_bytes(PNG)
    return path


def hostile_comparison() -> dict:
    return {"verdict": "incomparable", "note": HOSTILE,
            "metrics": {HOSTILE: {"verdict": HOSTILE, "reference": None, "current": 1.5, "delta": None,
                                  "ci": None, "tol": 1.0, "direction": "lower-better", "note": HOSTILE},
                        "ttft_ms.p50": {"verdict": "unchanged", "reference": 10.0, "current": 10.2, "delta": 0.2,
                                        "ci": [-0.5, 0.7], "tol": 1.0, "direction": "lower-better"}}}


def test_a_run_with_hostile_text_and_none_values(chart):
    block = load_run_html(load_run(hostile_summary(), charts=[chart],
                                   comparisons={"previous": hostile_comparison(), "baseline": hostile_comparison()},
                                   baseline_name=HOSTILE))
    parsed = check(block)
    text = "".join(parsed.text)
    assert "<script>alert('x')</script>" in text, "hostile text is shown as text"
    assert "\ufffd" in text and "\ud800" not in text
    assert len(parsed.images) == 1 and parsed.images[0]["alt"] == "latency \"<b>\" 'x'"
    assert "incomparable" in text and "11.0 [10.0, 12.0]" in text


@pytest.mark.parametrize("summary", [
    {},
    {"run": None, "metrics": None, "flags": None, "counts": None, "throughput": None, "definitions": None,
     "profile": None},
    {"run": {"dataset": None, "server": None, "workers": None}, "metrics": {"ttft_ms": None},
     "flags": {"client_bound": None}, "throughput": {"window": None, "wall": None},
     "counts": {"errors_by_class": None, "outcomes": None}},
], ids=["empty", "null-sections", "null-subsections"])
def test_a_run_with_missing_sections(summary):
    text = "".join(check(load_run_html(load_run(summary))).text)
    assert "no earlier run with the same configuration key" in text


def test_a_run_without_requests():
    summary = summarize(run_record())
    assert summary["metrics"]["ttft_ms"]["p50"] is None
    check(load_run_html(load_run(summary)))


def test_a_comparison_table_says_why_it_could_not_judge():
    text = "".join(check(comparison_table(HOSTILE, hostile_comparison())).text)
    assert text.count("<script>alert('x')</script>") >= 3  # label, note, metric


def sweep_point(kind, load, summary, **extra) -> dict:
    return {"kind": kind, "load": load, "profile": {"kind": kind}, "summary": summary, **extra}


def test_a_sweep_with_hostile_text_and_points_not_run(chart):
    points = [sweep_point("synchronous", 1.0, hostile_summary(), valid=True, invalid_because=[]),
              sweep_point("concurrency", None, {"throughput": None, "metrics": None}, valid=False,
                          invalid_because=[HOSTILE]),
              sweep_point("rate", 1.5, None, valid=False, invalid_because=None)]
    run = SweepRun(name=HOSTILE, kind="sweep", outdir=Path("/tmp"), charts=[chart],
                   result={"points": points, "note": HOSTILE}, previous={"started_at": HOSTILE})
    parsed = check(sweep_html(run))
    text = "".join(parsed.text)
    assert "invalid: not run" in text and "invalid: " + HOSTILE.replace("\ud800", "\ufffd") in text
    assert len(parsed.images) == 1


def test_a_capacity_search_with_violations():
    points = [sweep_point("rate", 2, hostile_summary(), meets=True, violations=[]),
              sweep_point("rate", 4, None, meets=False, violations=[HOSTILE, "ttft p95 900.0 ms > limit 500 ms"])]
    run = SweepRun(name="cap", kind="capacity", outdir=Path("/tmp"), previous=None,
                   result={"points": points, "capacity": 2, "axis": "rate", "bracket": [2, 4],
                           "slo": {"ttft_p95_ms": 500.0}, "note": None})
    text = "".join(check(sweep_html(run)).text)
    assert "capacity under SLO (rate): 2" in text and "meets SLO" in text
    assert "ttft p95 900.0 ms > limit 500 ms" in text and "none: the charts show this run alone" in text


def test_a_capacity_search_that_found_nothing():
    run = SweepRun(name="cap", kind="capacity", outdir=Path("/tmp"),
                   result={"points": [], "capacity": None, "axis": None, "bracket": None, "slo": None, "note": None})
    assert "capacity under SLO (None): –" in "".join(check(sweep_html(run)).text)


@pytest.mark.parametrize(("value", "digits", "shown"), [
    (None, 1, "–"), (1234.567, 1, "1,234.6"), (0.12345, 3, "0.123"), (12000, 1, "12,000"), ("x", 1, "x"),
])
def test_numbers_in_cells(value, digits, shown):
    assert fmt(value, digits) == shown


def test_compat_views_are_a_balanced_table_with_their_definitions():
    view = {"tool": "vllm", "definitions": {"ttft_ms": HOSTILE},
            "metrics": {"ttft_ms": {"p50": 1.5, "p95": None}, "itl_ms": None}, "throughput": {}}
    html = compat_table({"vllm": view, HOSTILE: {}})
    checked = Checked(html)
    assert "<script>" not in html and "1.5 / –" in "".join(checked.text)
