"""The Prometheus text parser and the checks the metrics suites use."""

import math

import pytest

from llamatest.http import prometheus
from llamatest.http.prometheus import MetricsFormatError, parse
from MetricsLibrary import MetricsLibrary

SCRAPE = """\
# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed, excluding cached tokens
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 3
# HELP llamacpp:requests_processing Number of requests processing
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 0
"""


def fails(func, *args) -> str:
    with pytest.raises(AssertionError) as info:
        func(*args)
    return str(info.value)


def test_families_keep_help_type_and_samples_in_order():
    metrics = parse(SCRAPE)
    assert metrics.names == ["llamacpp:prompt_tokens_total", "llamacpp:requests_processing"]
    family = metrics.family("llamacpp:prompt_tokens_total")
    assert family.help == "Number of prompt tokens processed, excluding cached tokens"
    assert family.type == "counter"
    assert metrics.value("llamacpp:prompt_tokens_total") == 3.0
    assert metrics.value("llamacpp:requests_processing") == 0.0


def test_labels_escapes_timestamps_and_special_values():
    metrics = parse('# HELP m a\\\\b\\nc\n# TYPE m gauge\n'
                    'm{position="1",path="C:\\\\x \\"q\\"\\n"} 2.5 1700000000\n'
                    'm{position="2"} +Inf\nm{position="3"} NaN\nm -Inf\n')
    assert metrics.family("m").help == "a\\b\nc"
    assert metrics.value("m", {"path": 'C:\\x "q"\n', "position": "1"}) == 2.5
    assert metrics.value("m", {"position": "2"}) == math.inf
    assert math.isnan(metrics.value("m", {"position": "3"}))
    assert metrics.value("m") == -math.inf
    assert metrics.family("m").samples[0].label_dict == {"path": 'C:\\x "q"\n', "position": "1"}


def test_histogram_samples_belong_to_their_family_and_comments_are_ignored():
    metrics = parse("# a free comment\n# HELP h lat\n# TYPE h histogram\n"
                    'h_bucket{le="1"} 2\nh_bucket{le="+Inf"} 3\nh_sum 4.5\nh_count 3\n\n')
    assert metrics.names == ["h"]
    assert len(metrics.family("h").samples) == 4
    assert metrics.value("h_count") == 3


@pytest.mark.parametrize("text, error", [
    ("m 1 2 3\n", "line 1: not a sample line"),
    ("m{a=1} 1\n", "bad label set"),
    ('m{a="1",a="2"} 1\n', "label 'a' given twice"),
    ("m one\n", "value 'one' is not a number"),
    ("# TYPE m counter\n# TYPE m gauge\n", "line 2: second TYPE for m"),
    ("# HELP m a\n# HELP m b\n", "second HELP for m"),
    ("m 1\n# TYPE m counter\n", "TYPE for m after its samples"),
    ("# TYPE m meter\n", "unknown type 'meter'"),
])
def test_malformed_text_names_the_line(text, error):
    with pytest.raises(MetricsFormatError, match="line"):
        parse(text)
    with pytest.raises(MetricsFormatError) as info:
        parse(text)
    assert error in str(info.value)


def test_value_of_a_missing_sample_lists_what_there_is():
    metrics = parse('# TYPE m gauge\nm{a="1"} 1\n')
    assert "no sample m in the scrape (m{a=\"1\"})" in fails(metrics.value, "m")
    assert "metric 'x' is not in the scrape; it has: m" in fails(metrics.family, "x")


def test_series_should_be_declared():
    metrics = parse(SCRAPE + "# TYPE bare counter\nbare 1\n# HELP empty e\n# TYPE empty gauge\n")
    prometheus.series_should_be_declared(metrics, "llamacpp:prompt_tokens_total", "counter")
    assert "declared as counter, expected gauge" in fails(
        prometheus.series_should_be_declared, metrics, "llamacpp:prompt_tokens_total", "gauge")
    assert "has no # HELP text" in fails(prometheus.series_should_be_declared, metrics, "bare", "counter")
    assert "declared but has no sample" in fails(prometheus.series_should_be_declared, metrics, "empty", "gauge")
    assert "not in the scrape" in fails(prometheus.series_should_be_declared, metrics, "missing", "gauge")


def test_every_series_should_be_declared():
    prometheus.every_series_should_be_declared(parse(SCRAPE))
    assert "without # HELP or # TYPE: loose" in fails(
        prometheus.every_series_should_be_declared, parse(SCRAPE + "loose 1\n"))


def test_every_name_should_start_with():
    prometheus.every_name_should_start_with(parse(SCRAPE), "llamacpp:")
    assert "without the prefix 'llamacpp:': other" in fails(
        prometheus.every_name_should_start_with, parse(SCRAPE + "# TYPE other gauge\nother 1\n"), "llamacpp:")
    assert "no metric at all" in fails(prometheus.every_name_should_start_with, parse(""), "llamacpp:")


def test_counter_should_have_grown_by():
    before = parse("# TYPE c counter\nc 3\n")
    after = parse("# TYPE c counter\nc 11\n")
    prometheus.counter_should_have_grown_by(before, after, "c", 8)
    assert "c grew by 8 (3 -> 11), expected 7" in fails(prometheus.counter_should_have_grown_by, before, after, "c", 7)


def test_counters_should_be_unchanged():
    before = parse("# TYPE c counter\nc 3\n# TYPE g gauge\ng 1\n")
    prometheus.counters_should_be_unchanged(before, parse("# TYPE c counter\nc 3\n# TYPE g gauge\ng 9\n"))
    assert "counters changed: c 3 -> 4" in fails(
        prometheus.counters_should_be_unchanged, before, parse("# TYPE c counter\nc 4\n"))
    assert "no counter" in fails(prometheus.counters_should_be_unchanged, parse("# TYPE g gauge\ng 1\n"), before)


def test_library_parses_a_response_text_and_reads_labelled_values():
    lib = MetricsLibrary()
    metrics = lib.parse_metrics('# HELP m x\n# TYPE m counter\nm{position="1"} 4\n')
    assert lib.metric_value(metrics, "m", position="1") == 4
    lib.metric_should_be_declared(metrics, "m", "counter")
