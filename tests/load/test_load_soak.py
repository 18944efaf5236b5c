"""soak.py: the server's resources against the requests it served, and finding the server's process."""

from __future__ import annotations

import os

import pytest

from llamatest.load.analysis import soak
from llamatest.load.engine.record import RequestRecord, RunRecord

MIB = 1 << 20


def run_serving(n: int, per_s: float = 10.0) -> RunRecord:
    """A run whose request i closed at i / per_s seconds."""
    reqs = [RequestRecord(index=i, t_scheduled=0.0, t_dispatched=0.0, t_closed=i / per_s) for i in range(1, n + 1)]
    return RunRecord(profile={}, target={}, t0_wall=0.0, t0_perf=100.0, requests=reqs)


def samples(n_s: int, rss=lambda t: 200 * MIB, fds=lambda t: 20, threads=lambda t: 8) -> list[tuple]:
    return [(100.0 + t, int(rss(t)), int(fds(t)), int(threads(t))) for t in range(n_s)]


def test_flat_resources_do_not_grow():
    report = soak.leak_report(samples(60), run_serving(600))
    assert report["judged"] is True and report["requests"] == 600
    assert report["samples"] == 42  # the steady part: from 30 % of the requests served (second 18) on
    for name in soak.RESOURCES:
        assert report[name]["per_1000_requests"] == 0.0 and report[name]["grows"] is False


def test_rss_growing_with_requests_is_found_with_its_figure():
    # 1 request = 100 ms; 5 KiB per request -> 5000 KiB per 1000 requests, plus allocator noise
    noise = [0, 3, -2, 1, 0, -3, 2] * 10
    report = soak.leak_report(samples(60, rss=lambda t: 200 * MIB + t * 10 * 5 * 1024 + noise[t] * 4096),
                              run_serving(600))
    rss = report["rss_bytes"]
    assert rss["grows"] is True and rss["p_value"] < 1e-6
    assert rss["per_1000_requests"] == pytest.approx(5000 * 1024, rel=0.02)
    assert report["open_fds"]["grows"] is False
    assert "rss_bytes +4.89 MiB/1000 req" in soak.describe_leaks(report) and "GROWS" in soak.describe_leaks(report)


def test_a_one_off_step_is_not_a_leak():
    """One more fd from second 40 on fits a significant slope above the floor, but only one half grows."""
    report = soak.leak_report(samples(60, fds=lambda t: 20 if t < 40 else 21), run_serving(600))
    fds = report["open_fds"]
    assert fds["p_value"] < soak.ALPHA and fds["per_1000_requests"] > soak.LIMITS["open_fds"]
    assert fds["halves_per_1000"][0] == 0.0 and fds["grows"] is False


def test_too_short_a_run_is_not_judged():
    report = soak.leak_report(samples(5), run_serving(50))
    assert report["judged"] is False and "run longer" in report["reason"]
    assert soak.describe_leaks(report).startswith("not judged:")


def test_sampler_reads_a_live_process_and_the_listening_pid_is_found(scripted):
    import multiprocessing

    pid = soak.server_pid(scripted.url)
    assert pid is not None and pid != os.getpid()
    assert pid in [p.pid for p in multiprocessing.active_children()]
    with soak.ResourceSampler(pid, interval=0.05) as sampler:
        import time

        time.sleep(0.3)
    assert len(sampler.samples) >= 3
    t, rss, fds, threads = sampler.samples[0]
    assert rss > MIB and fds >= 3 and threads >= 1


def test_no_listener_gives_no_pid():
    from llamatest.server.process import free_port

    assert soak.server_pid(f"http://127.0.0.1:{free_port()}") is None


def test_too_few_requests_served_is_not_judged():
    """40 requests over a minute: a few MiB of drift would read as a huge figure per 1,000 requests."""
    report = soak.leak_report(samples(60, rss=lambda t: 200 * MIB + t * MIB), run_serving(40, per_s=0.7))
    assert report["judged"] is False and "needs 8 and 100" in report["reason"]
