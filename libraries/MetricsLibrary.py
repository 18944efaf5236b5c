"""Robot facade of llamatest.http.prometheus: llama-server's ``/metrics`` scrapes as data."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest import htmllog as _htmllog
from llamatest.http import prometheus
from llamatest.http.response import as_response


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class MetricsLibrary:
    """Parses Prometheus text (``GET /metrics``) and checks series and counters.

    A scrape is fetched with RequestsLibrary (``GET On Session    suite    /metrics``) and parsed
    with `Parse Metrics`; the result holds each metric's ``# HELP``, ``# TYPE`` and samples. The
    parser is strict: a malformed line, a second ``# TYPE`` or a type declared after its samples
    fails, naming the line.

    | ${before} =    Parse Metrics    ${resp}
    | ...    (a request)
    | ${after} =    Parse Metrics    ${resp2}
    | Counter Should Have Grown By    ${before}    ${after}    llamacpp:tokens_predicted_total    ${8}
    """

    @keyword("Parse Metrics")
    def parse_metrics(self, resp_or_text) -> prometheus.Metrics:
        """Parses a ``/metrics`` response (or its text) and returns the scrape; logs its samples as a table."""
        text = resp_or_text if isinstance(resp_or_text, str) else as_response(resp_or_text).text
        metrics = prometheus.parse(text)
        rows = [[s.id, f"{s.value:g}", f.type or ""]
                for f in metrics.families.values() for s in f.samples]
        logger.info(_htmllog.details(f"{len(rows)} samples", _htmllog.table(["sample", "value", "type"], rows)),
                    html=True)
        return metrics

    @keyword("Metric Value")
    def metric_value(self, metrics: prometheus.Metrics, name: str, **labels: str) -> float:
        """The value of the sample ``name`` with exactly the given labels (``position=1``); none by default."""
        return metrics.value(name, labels)

    @keyword("Metric Should Be Declared")
    def metric_should_be_declared(self, metrics: prometheus.Metrics, name: str, type: str) -> None:
        """``name`` has a non-empty ``# HELP``, ``# TYPE`` equal to ``type`` and at least one sample."""
        prometheus.series_should_be_declared(metrics, name, type)

    @keyword("Every Metric Should Be Declared")
    def every_metric_should_be_declared(self, metrics: prometheus.Metrics) -> None:
        """Every metric that has samples has a ``# HELP`` text and a ``# TYPE``."""
        prometheus.every_series_should_be_declared(metrics)

    @keyword("Every Metric Name Should Start With")
    def every_metric_name_should_start_with(self, metrics: prometheus.Metrics, prefix: str) -> None:
        """Every metric name in the scrape starts with ``prefix``; an empty scrape fails."""
        prometheus.every_name_should_start_with(metrics, prefix)

    @keyword("Counter Should Have Grown By")
    def counter_should_have_grown_by(self, before: prometheus.Metrics, after: prometheus.Metrics, name: str,
                                     delta: float) -> None:
        """The sample ``name`` is exactly ``delta`` larger in the scrape ``after`` than in ``before``."""
        prometheus.counter_should_have_grown_by(before, after, name, delta)

    @keyword("Counters Should Be Unchanged")
    def counters_should_be_unchanged(self, before: prometheus.Metrics, after: prometheus.Metrics) -> None:
        """Every counter of the scrape ``before`` has the same value in the scrape ``after``."""
        prometheus.counters_should_be_unchanged(before, after)
