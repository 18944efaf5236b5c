"""sweep.py with a synthetic run_point: sweep order and early stop, capacity bisection, SLO checks."""

from __future__ import annotations

import pytest

from llamatest.load.analysis.summary import summarize
from llamatest.load.analysis.sweep import capacity_under_slo, parse_slo_key, slo_check, sweep
from llamatest.load.engine.profiles import Profile
from llamatest.load.engine.record import LoadEvent, RequestRecord, RunRecord

approx = pytest.approx


def fake_summary(*, rps=1.0, ttft_p95=100.0, error_rate=0.0, oversaturated=False, client_bound=False, n=200):
    dist = {"n": n, "p50": ttft_p95 / 2, "p95": ttft_p95, "p99": ttft_p95 * 1.2 if n >= 100 else None,
            "missing": {} if n >= 100 else {"p99": f"needs n >= 100, have {n}"}}
    flag = {name: {"set": False, "detail": "ok"} for name in ("client_bound", "rate_shortfall", "oversaturated")}
    flag["oversaturated"] = {"set": oversaturated, "detail": "TTFT rose" if oversaturated else "flat"}
    flag["client_bound"] = {"set": client_bound, "detail": "loop lag 30 ms" if client_bound else "fine"}
    return {"metrics": {"ttft_ms": dist, "tpot_ms": {"n": n, "p50": 20.0, "missing": {}}},
            "throughput": {"window": {"request_throughput": rps, "goodput": rps * 0.9, "goodput_ratio": 0.9},
                           "error_rate": error_rate},
            "flags": flag}


class Server:
    """A synthetic server: 2 req/s one at a time, 10 req/s at most; oversaturated above 6.5 req/s offered."""

    def __init__(self):
        self.calls: list[Profile] = []

    def __call__(self, p: Profile) -> dict:
        self.calls.append(p)
        if p.kind == "synchronous":
            return fake_summary(rps=2.0)
        if p.kind == "concurrency":
            return fake_summary(rps=10.0)
        return fake_summary(rps=p.rate, oversaturated=p.rate > 6.5)


BASE = Profile(kind="rate", rate=1.0, arrival="poisson", duration_s=5.0, users=4, seed=3)


def test_sweep_runs_sync_max_then_rates_and_stops_at_oversaturation():
    server = Server()
    out = sweep(server, BASE, k=5)
    assert [p.kind for p in server.calls] == ["synchronous", "concurrency", "rate", "rate", "rate", "rate"]
    assert server.calls[1].users == 4 and server.calls[2].arrival == "poisson" and server.calls[2].seed == 3
    assert out["sync_rate"] == 2.0 and out["max_rate"] == 10.0
    assert out["rates"] == approx([2 + 8 / 6 * i for i in range(1, 6)])
    assert out["stopped_at"] == approx(2 + 8 / 6 * 4)
    loads = [p["load"] for p in out["points"]]
    assert loads == approx([2.0, 10.0] + out["rates"])
    assert [p["valid"] for p in out["points"]] == [True, True, True, True, True, False, False]
    assert out["points"][5]["invalid_because"] == ["oversaturated: TTFT rose"]
    last = out["points"][6]
    assert last["summary"] is None and "not run: oversaturated at 7.333/s" in last["invalid_because"][0]
    assert out["points"][2]["profile"]["rate"] == approx(out["rates"][0])


def test_sweep_geometric_spacing_and_degenerate_max():
    out = sweep(Server(), BASE, k=2, spacing="geometric")
    assert out["rates"] == approx([2 * 5 ** (1 / 3), 2 * 5 ** (2 / 3)])
    flat = sweep(lambda p: fake_summary(rps=2.0), BASE, k=3)
    assert flat["rates"] == [] and "not above the synchronous" in flat["note"] and len(flat["points"]) == 2
    with pytest.raises(ValueError, match="spacing"):
        sweep(Server(), BASE, spacing="log")


def ttft_grows(p: Profile) -> dict:
    """TTFT p95 = 100 ms + 50 ms per req/s (rate) or 100 ms per user: 400 ms is reached at 6 req/s or 4 users."""
    if p.kind == "rate":
        return fake_summary(rps=p.rate, ttft_p95=100.0 + 50.0 * p.rate)
    return fake_summary(rps=p.users, ttft_p95=100.0 * p.users)


def test_capacity_bisection_finds_a_known_rate_threshold():
    out = capacity_under_slo(ttft_grows, BASE, {"ttft_p95_ms": 400}, lo=1.0, hi=20.0, max_iter=30, rel_tol=0.001)
    assert out["capacity"] == approx(6.0, rel=0.002)
    good, bad = out["bracket"]
    assert good <= 6.0 < bad and bad - good <= 0.001 * good + 1e-9
    assert [p["meets"] for p in out["points"][:2]] == [True, False]
    assert all(p["meets"] == (p["load"] <= 6.0) for p in out["points"])
    assert "ttft p95" in out["points"][1]["violations"][0]


def test_capacity_on_users_is_an_integer_bracket():
    out = capacity_under_slo(ttft_grows, BASE, {"ttft_p95_ms": 450}, lo=1, hi=16, axis="users")
    assert out["capacity"] == 4 and out["bracket"] == [4, 5] and out["axis"] == "users"
    assert len(out["points"]) <= 2 + 4


def test_capacity_edges_and_invalid_points():
    low = capacity_under_slo(ttft_grows, BASE, {"ttft_p95_ms": 50}, lo=1.0, hi=20.0)
    assert low["capacity"] is None and "already fails" in low["note"] and len(low["points"]) == 1
    high = capacity_under_slo(ttft_grows, BASE, {"ttft_p95_ms": 5000}, lo=1.0, hi=20.0)
    assert high["capacity"] == 20.0 and high["bracket"] == [20.0, None]
    bound = capacity_under_slo(lambda p: fake_summary(client_bound=True), BASE, {"ttft_p95_ms": 500}, lo=1, hi=2)
    assert bound["capacity"] is None and "invalid point: client_bound" in bound["points"][0]["violations"][0]
    with pytest.raises(ValueError, match="unknown SLO"):
        capacity_under_slo(ttft_grows, BASE, {"ttft_ms": 1}, lo=1, hi=2)


def test_slo_check_passes_and_names_violations():
    s = fake_summary(ttft_p95=300.0, error_rate=0.02)
    assert slo_check(s, ttft_p95_ms=400, tpot_p50_ms="25", error_rate_max=0.05, goodput_min=0.5) == []
    assert slo_check(s, ttft_p95_ms=250, error_rate_max=0.01) == [
        "ttft p95 300.0 ms > limit 250 ms (n=200)", "error_rate 0.02 > limit 0.01"]
    assert slo_check(s, goodput_min=1) == ["goodput 0.9 req/s < limit 1 req/s"]


def test_slo_check_missing_metric_is_a_violation():
    assert slo_check(fake_summary(n=37), ttft_p99_ms=500) == [
        "ttft p99: no value (needs n >= 100, have 37), limit 500 ms cannot be checked"]
    assert "metric missing" in slo_check(fake_summary(), e2e_p95_ms=1)[0]
    nothing = fake_summary()
    nothing["throughput"]["window"]["goodput"] = None
    assert slo_check(nothing, goodput_min=1) == ["goodput: no value in the summary, limit 1 req/s cannot be checked"]


def test_slo_check_on_a_real_summary_with_37_requests():
    reqs = []
    for i in range(37):
        t = i * 0.1
        reqs.append(RequestRecord(i, t, t_dispatched=t, t_closed=t + 0.08, status=200, outcome="finish_stop",
                                  events=[LoadEvent(t + 0.05, "content", n_chars=1),
                                          LoadEvent(t + 0.07, "content", n_chars=1)]))
    run = RunRecord(profile={"kind": "synchronous"}, target={}, t0_wall=0, t0_perf=0, window=(0.0, 3.7),
                    requests=reqs)
    s = summarize(run, resamples=0)
    assert slo_check(s, ttft_p95_ms=60, tpot_p50_ms=30, itl_chunk_p99_ms=30) == [
        "itl_chunk p99: no value (needs n >= 100, have 37), limit 30 ms cannot be checked"]
    assert slo_check(s, ttft_p95_ms=40) == ["ttft p95 50.0 ms > limit 40 ms (n=37)"]


def test_slo_keys():
    assert parse_slo_key("ttft_p95_ms") == ("ttft_ms", "p95")
    assert parse_slo_key("e2e_from_schedule_p99_9_ms") == ("e2e_from_schedule_ms", "p99_9")
    assert parse_slo_key("error_rate_max") == ("error_rate_max", "")
    with pytest.raises(ValueError, match=r"unknown SLO 'ttft_p97_ms'; valid: <metric>_<stat>_ms .*error_rate_max"):
        slo_check(fake_summary(), ttft_p97_ms=1)
    with pytest.raises(ValueError, match="must be a number"):
        slo_check(fake_summary(), ttft_p95_ms="fast")
