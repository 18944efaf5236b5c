"""charts.py: PNGs of the right size, overlays, and no crash on missing values."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from test_load_results import summary_from_samples

from llamatest.load.engine.record import LoadEvent, RequestRecord
from llamatest.load.output.charts import _slo_lines, latency_chart, timeline_chart
from llamatest.load.output.drawing import charts

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path.name} is not a PNG"
    return struct.unpack(">II", data[16:24])


def run_summary(n: int = 150, scale: float = 1.0, seed: int = 0, **kw) -> dict:
    rng = np.random.default_rng(seed)
    samples = {"ttft_ms": list(scale * 80 * np.exp(rng.normal(0, 0.2, n))),
               "tpot_ms": list(scale * 15 * np.exp(rng.normal(0, 0.1, n))),
               "e2e_ms": list(scale * 900 * np.exp(rng.normal(0, 0.1, n))),
               "itl_token_ms": list(scale * rng.gamma(4.0, 4.0, 5 * n))}
    series = [{"t": t, "output_tps": 60.0 + t, "in_flight": 3, "errors": int(t % 5 == 0), "ttft_ms_p50": 80.0}
              for t in range(12)]
    summary = summary_from_samples(samples, timeseries=series, **kw)
    summary["window"] = [0.5, 5.5]
    return summary


def requests() -> list:
    out = []
    for i in range(30):
        start = i * 0.2
        events = [LoadEvent(t=start + 0.05, kind="role"), LoadEvent(t=start + 0.08, kind="content", n_chars=2)]
        out.append(RequestRecord(index=i, t_scheduled=start, t_dispatched=start + 0.001, t_closed=start + 0.9,
                                 events=events, phase="warmup" if i < 2 else "measure",
                                 error="timeout_stall" if i == 7 else None))
    out.append(RequestRecord(index=30, t_scheduled=6.0, error="dropped"))
    out.append(RequestRecord(index=31, t_scheduled=6.1, t_dispatched=6.1, t_headers=6.3).as_dict())  # no close
    return out


def sweep_points(scale: float) -> list:
    points = []
    for rate in (1.0, 2.0, 4.0):
        s = run_summary(60, scale=scale * (1 + rate / 4), seed=int(rate),
                        profile={"kind": "rate", "rate": rate, "arrival": "poisson", "seed": 1})
        s["throughput"]["window"]["output_throughput"] = 30 * rate / scale
        s["throughput"]["window"]["goodput"] = rate * 0.9
        points.append(s)
    return points


def test_every_chart_is_an_800_by_450_png_of_sane_size(tmp_path):
    baseline = run_summary(scale=1.2, seed=2)
    baseline["baseline"] = {"name": "release-b4321"}
    paths = charts(run_summary(slo={"ttft_ms": 150, "tpot_p50_ms": 20}), tmp_path, previous=run_summary(seed=1),
                   baseline=baseline, requests=requests(),
                   sweep={"current": sweep_points(1.0), "previous": sweep_points(1.1), "baseline": sweep_points(1.3)})
    assert [p.name for p in paths] == ["latency_percentiles.png", "distributions.png", "timeseries.png",
                                       "timeline.png", "sweep_latency.png", "sweep_throughput.png"]
    for path in paths:
        assert png_size(path) == (800, 450)
        assert 5_000 < path.stat().st_size < 250_000, path.name


def test_same_input_gives_the_same_bytes(tmp_path):
    first = charts(run_summary(), tmp_path / "a", previous=run_summary(seed=1), requests=requests())
    second = charts(run_summary(), tmp_path / "b", previous=run_summary(seed=1), requests=requests())
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_missing_values_are_left_out_not_fatal(tmp_path):
    current = run_summary(n=40)  # p99 is None below 100 samples
    current["metrics"]["tpot_ms"] = {"n": 0, "p50": None, "p95": None, "p99": None}
    del current["metrics"]["e2e_ms"]
    current["samples"]["itl_token_ms"] = []
    current["samples"]["itl_chunk_ms"] = [1.0, 2.0, None]
    current["timeseries"][3] = {"t": 3, "output_tps": None, "in_flight": None}
    previous = {"schema": "llamatest.load.summary/1", "profile": {}, "metrics": {"ttft_ms": None}}
    baseline = run_summary(n=5)
    baseline["samples"] = {}
    baseline["timeseries"] = [{"t": None}]
    paths = charts(current, tmp_path, previous=previous, baseline=baseline, requests=[],
                   sweep=[{"load": 1, "summary": previous}, (2, current), {"profile": {"kind": "ramp"}}])
    assert [p.name for p in paths] == ["latency_percentiles.png", "distributions.png", "timeseries.png",
                                       "sweep_latency.png", "sweep_throughput.png"]
    assert all(png_size(p) == (800, 450) for p in paths)


def test_a_summary_without_series_or_samples_still_gets_its_latency_chart(tmp_path):
    bare = {"schema": "llamatest.load.summary/1", "profile": {"kind": "synchronous"}, "metrics": {}}
    paths = charts(bare, tmp_path, previous=bare, baseline=bare, sweep=[])
    assert [p.name for p in paths] == ["latency_percentiles.png", "distributions.png"]


def test_timeline_of_nothing_is_not_written(tmp_path):
    assert timeline_chart([], tmp_path / "t.png") is None
    many = [RequestRecord(index=i, t_scheduled=i * 0.01, t_dispatched=i * 0.01, t_closed=i * 0.01 + 0.5)
            for i in range(1000)]
    assert png_size(timeline_chart(many, tmp_path / "t.png")) == (800, 450)


@pytest.mark.parametrize(("slo", "metric", "lines"), [
    ({"ttft_ms": 500, "ttft_p95_ms": 800, "tpot_p50_ms": 40, "error_rate_max": 0.1}, "ttft_ms",
     [(500.0, "SLO"), (800.0, "SLO p95")]),
    ({"e2e_p99_9_ms": 3000, "e2e_ms": None}, "e2e_ms", [(3000.0, "SLO p99.9")]),
    (None, "ttft_ms", []),
])
def test_slo_lines_are_read_from_either_key_style(slo, metric, lines):
    assert _slo_lines(slo, metric) == lines


def test_every_latency_bar_shows_its_value_so_a_zero_is_not_a_missing_bar(tmp_path, monkeypatch):
    from matplotlib.axes import Axes

    labelled = []
    original = Axes.bar_label

    def spy(self, container, *args, **kwargs):
        texts = original(self, container, *args, **kwargs)
        labelled.extend(text.get_text() for text in texts)
        return texts

    monkeypatch.setattr(Axes, "bar_label", spy)
    summary = run_summary()
    summary["metrics"]["tpot_ms"]["p50"] = 0.0
    latency_chart(summary, tmp_path / "latency.png")
    assert len(labelled) == 9  # TTFT, TPOT, E2E x p50, p95, p99, one run
    assert "0" in labelled
    assert f"{summary['metrics']['e2e_ms']['p50']:,.0f}" in labelled  # ~900 ms: a plain number, no 9e+02
