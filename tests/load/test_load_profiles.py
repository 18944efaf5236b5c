"""Load profiles: seeded absolute schedules, windows, shards, validation, plain-data round trip."""

from __future__ import annotations

import numpy as np
import pytest

from llamatest.load.engine.profiles import Profile


def test_constant_rate_is_evenly_spaced_from_zero():
    p = Profile("rate", rate=10, duration_s=1)
    assert p.schedule() == pytest.approx([k / 10 for k in range(10)])
    assert p.window() == (0.0, 1.0)


def test_poisson_is_reproducible_by_seed_and_differs_between_seeds():
    a = Profile("rate", rate=50, arrival="poisson", duration_s=20, seed=7)
    assert a.schedule() == a.schedule() == Profile.from_dict(a.as_dict()).schedule()
    assert a.schedule() != Profile("rate", rate=50, arrival="poisson", duration_s=20, seed=8).schedule()


def test_poisson_mean_rate_and_exponential_gaps():
    p = Profile("rate", rate=100, arrival="poisson", duration_s=100, seed=1)
    times = np.array(p.schedule())
    assert len(times) == pytest.approx(100 * 100, rel=0.03)  # 10000 ± 3 % (about 3 standard deviations)
    gaps = np.diff(times)
    assert gaps.mean() == pytest.approx(0.01, rel=0.03)
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, abs=0.05)  # exponential: coefficient of variation 1
    assert times.min() >= 0 and times.max() < 100 and np.all(gaps > 0)


@pytest.mark.parametrize("shape", [0.25, 4.0])
def test_gamma_keeps_the_mean_rate_and_sets_burstiness(shape):
    p = Profile("rate", rate=100, arrival="gamma", burstiness=shape, duration_s=100, seed=3)
    gaps = np.diff(p.schedule())
    assert gaps.mean() == pytest.approx(0.01, rel=0.06)
    assert gaps.std() / gaps.mean() == pytest.approx(1 / np.sqrt(shape), rel=0.1)  # CV of Gamma(k) = 1/sqrt(k)


def test_warmup_comes_first_and_the_window_follows_it():
    p = Profile("rate", rate=10, duration_s=1, warmup_s=0.5)
    times = p.schedule()
    assert len(times) == 15 and p.window() == (0.5, 1.5)
    assert sum(t < 0.5 for t in times) == 5


def test_max_requests_cuts_the_schedule_and_the_window():
    p = Profile("rate", rate=10, duration_s=10, max_requests=4, warmup_s=0.2)
    assert p.schedule() == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    assert p.window() == pytest.approx((0.2, 0.6))  # four measured requests span four gaps


def test_stepped_ramp_changes_rate_at_each_point():
    p = Profile("ramp", ramp=((0, 2), (1, 10), (2, 0)), duration_s=3)
    assert p.schedule() == pytest.approx([0.0, 0.5] + [1 + k / 10 for k in range(10)])


def test_linear_ramp_follows_the_integral_of_the_rate():
    p = Profile("ramp", ramp=((0, 0), (10, 100)), ramp_shape="linear", duration_s=10)
    times = np.array(p.schedule())
    # cumulative rate 5 t^2: the k-th arrival is at sqrt(k / 5)
    assert times == pytest.approx(np.sqrt(np.arange(len(times)) / 5), abs=1e-6)
    assert len(times) == 500


def test_poisson_ramp_has_the_ramps_mean_count():
    p = Profile("ramp", ramp=((0, 50), (50, 150)), arrival="poisson", duration_s=100, seed=2)
    times = np.array(p.schedule())
    assert (times < 50).sum() == pytest.approx(2500, rel=0.06)
    assert (times >= 50).sum() == pytest.approx(7500, rel=0.04)


def test_constant_shards_merge_into_the_original_schedule():
    p = Profile("rate", rate=30, duration_s=2)
    shards = [p.shard(i, 3) for i in range(3)]
    assert all(s.rate == 10 for s in shards)
    merged = sorted(t for s in shards for t in s.schedule())
    assert merged == pytest.approx(p.schedule())


def test_poisson_shards_are_independent_and_seeded():
    p = Profile("rate", rate=100, arrival="poisson", duration_s=50, seed=5)
    a, b = p.shard(0, 2), p.shard(1, 2)
    assert a.schedule() == p.shard(0, 2).schedule() and a.schedule() != b.schedule()
    assert len(a.schedule()) + len(b.schedule()) == pytest.approx(5000, rel=0.05)
    assert "worker 2/2" in b.describe()


def test_users_are_split_over_workers():
    p = Profile("concurrency", users=5, duration_s=10)
    assert [p.shard(i, 2).users for i in range(2)] == [3, 2]
    assert p.shard(0, 1) is p
    with pytest.raises(ValueError, match="at most 5 workers"):
        p.shard(5, 6)
    with pytest.raises(ValueError, match="i must be an int in 0..1"):
        p.shard(2, 2)


def test_closed_loop_profiles_have_no_schedule():
    assert Profile("concurrency", users=4).schedule() == []
    assert Profile("synchronous", duration_s=5, warmup_s=1).window() == (1, 6)


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(kind="rate", rate=0), "rate must be > 0 for kind 'rate'"),
    (dict(kind="rate"), "rate must be > 0 for kind 'rate'"),
    (dict(kind="open"), "kind must be one of synchronous, concurrency, rate, ramp"),
    (dict(kind="concurrency", users=0), "users must be an int >= 1"),
    (dict(kind="synchronous", users=3), "users must be 1 for kind 'synchronous'"),
    (dict(kind="rate", rate=1, arrival="uniform"), "arrival must be one of constant, poisson, gamma"),
    (dict(kind="rate", rate=1, arrival="gamma", burstiness=0), "burstiness must be > 0"),
    (dict(kind="rate", rate=1, duration_s=0), "duration_s must be a number > 0"),
    (dict(kind="rate", rate=1, max_requests=0), "max_requests must be None or an int >= 1"),
    (dict(kind="rate", rate=1, max_in_flight=0), "max_in_flight must be None or an int >= 1"),
    (dict(kind="rate", rate=1, warmup_s=-1), "warmup_s must be a number >= 0"),
    (dict(kind="ramp"), "ramp must list at least one"),
    (dict(kind="ramp", ramp=((1, 2),)), "the first ramp point must be at 0 s"),
    (dict(kind="ramp", ramp=((0, 2), (0, 3))), "strictly increasing"),
    (dict(kind="ramp", ramp=((0, 0),)), "at least one ramp rate must be > 0"),
    (dict(kind="rate", rate=1, ramp=((0, 1),)), "ramp is only used by kind 'ramp'"),
    (dict(kind="rate", rate=1e6, duration_s=100), "lower rate or duration_s"),
])
def test_bad_values_name_the_field_and_the_fix(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Profile(**kwargs).schedule()


def test_from_dict_rejects_unknown_fields_and_round_trips():
    p = Profile("ramp", ramp=((0, 1), (5, 3)), ramp_shape="linear", arrival="poisson", seed=4, duration_s=8)
    assert Profile.from_dict(p.as_dict()) == p
    with pytest.raises(ValueError, match="unknown profile field"):
        Profile.from_dict({"kind": "rate", "rate": 1, "rps": 2})


@pytest.mark.parametrize(("profile", "text"), [
    (Profile("rate", rate=4, arrival="poisson", duration_s=20, seed=7), "rate 4/s poisson, 20 s, seed 7"),
    (Profile("concurrency", users=8, think_time_s=0.5, duration_s=60), "concurrency 8 users, think 0.5 s, 60 s"),
    (Profile("synchronous", duration_s=10, max_requests=20), "synchronous, 10 s, max 20 requests"),
    (Profile("rate", rate=2, duration_s=5, warmup_requests=4, max_in_flight=16),
     "rate 2/s constant, 5 s, warmup 4 requests, max 16 in flight"),
])
def test_describe(profile, text):
    assert profile.describe() == text


@pytest.mark.parametrize("profile", [
    Profile("rate", rate=50, arrival="poisson", duration_s=2, warmup_s=0.5, max_requests=40, seed=3),
    Profile("ramp", ramp=((0, 10), (1, 40)), ramp_shape="linear", duration_s=2),
    Profile("concurrency", users=3, duration_s=4, warmup_s=1),
])
def test_plan_is_the_schedule_and_the_window_at_once(profile):
    assert profile.plan() == (profile.schedule(), profile.window())
