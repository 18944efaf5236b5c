"""The slot timeline chart and the batch log block: well-formed, escaped, one row per slot and request."""

import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from llamatest.concurrency.batch import Batch
from llamatest.concurrency.chart import batch_report_html, timeline_svg
from llamatest.concurrency.timeline import MetricsSample, Probe, RequestSpan, SlotSample, SlotState, Timeline
from llamatest.streaming.result import StreamEvent, StreamResult

HOSTILE = "</svg></details><script>alert('x')</script> & \"q\" \ud800"
SVG = "{http://www.w3.org/2000/svg}"


def sample(t, *tasks):
    return SlotSample(t, t - 0.002, tuple(SlotState(i, task is not None, task, 3) for i, task in enumerate(tasks)))


def timeline():
    return Timeline(slots=[sample(0.0, None, None), sample(0.1, 5, 6), sample(0.2, 5, None), sample(0.3, None, None)],
                    metrics=[MetricsSample(0.05, 0.04, {"requests_deferred": 1.0}),
                             MetricsSample(0.25, 0.24, {"requests_deferred": 0.0})],
                    probes=[Probe(0.12, 503, {"error": HOSTILE})], errors=[(0.2, HOSTILE)],
                    requests=[RequestSpan(0, 0.01, 0.05, 0.25, slot=0), RequestSpan(1, 0.02, 0.09, 0.15, 1, 0.15),
                              RequestSpan(2)],
                    requests_done=0.25, end=0.3)


def texts(svg: str) -> list[str]:
    return [node.text for node in ET.fromstring(svg).iter(f"{SVG}text")]


def test_the_chart_is_well_formed_svg_with_a_row_per_slot_and_request():
    svg = timeline_svg(timeline())
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    labels = texts(svg)
    assert {"slot 0", "slot 1", "req 0", "req 1", "req 2", "r0", "deferred"} <= set(labels)
    titles = [node.text for node in root.iter(f"{SVG}title")]
    assert "slot 0, task 5 (request 0): busy from 0.100 s, last seen busy 0.200 s, 3 tokens decoded when last " \
           "seen" in titles
    assert "client hung up at 0.150 s" in titles
    assert any(title.startswith("GET /slots?fail_on_no_slot=1 → 503") for title in titles)


def test_the_chart_draws_the_same_from_intervals_the_caller_computed():
    tl = timeline()
    intervals = tl.intervals()
    assert timeline_svg(tl, intervals, tl.request_intervals(intervals)) == timeline_svg(tl)


def test_an_empty_timeline_still_draws():
    svg = timeline_svg(Timeline(end=0.0))
    assert texts(svg)[0] == "slot timeline: no slot sample over 0.00 s (0 failed polls)"


class Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.seen = [], set()

    def handle_starttag(self, tag, attrs):
        self.seen.add(tag)
        self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.seen.add(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack.pop() == tag, f"unbalanced </{tag}>"


def test_the_batch_block_escapes_everything_and_balances_its_tags():
    hostile = StreamResult(url="http://h/completion", status=200, headers={"content-type": "text/event-stream"},
                           request_body={"prompt": HOSTILE}, error=HOSTILE,
                           events=[StreamEvent(0.01, "message", HOSTILE, {"content": HOSTILE})])
    batch = Batch("POST /completion", [hostile, hostile, hostile], timeline(), abandoned=[1], wall_s=0.3)
    markup = batch_report_html(batch)
    markup.encode("utf-8")  # no lone surrogate left
    tags = Tags()
    tags.feed(markup)
    tags.close()
    assert tags.stack == [] and "script" not in tags.seen
    assert {"svg", "details", "table"} <= tags.seen
    assert "POST /completion × 3 concurrently: 2 errors, 1 abandoned, 0.300 s; 4 slot samples" in markup


def test_a_batch_without_timeline_has_no_chart():
    result = StreamResult(url="http://h/completion", status=200)
    assert "<svg" not in batch_report_html(Batch("POST /completion", [result], None))


def test_each_request_block_of_a_batch_says_which_request_it_is():
    # the chart says r1 and req 1, the table #1: the block of that request must say so too
    results = [StreamResult(url="http://h/completion", status=200, t_end=0.5) for _ in range(2)]
    markup = batch_report_html(Batch("POST /completion", results, None))
    assert "<summary>request 1: POST /completion → 200 (0 events, 0.500 s)</summary>" in markup
