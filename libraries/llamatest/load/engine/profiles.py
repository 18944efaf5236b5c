"""Load profiles: what to send and when, as plain data with a seeded, precomputed schedule.

Kinds:
- ``synchronous``: one request at a time, back to back (the single-user baseline).
- ``concurrency``: ``users`` closed-loop virtual users; each sends its next request when the previous one
  ended, after ``think_time_s``.
- ``rate``: open loop at ``rate`` requests/s; arrivals ``constant`` (even gaps), ``poisson`` (exponential
  gaps) or ``gamma`` (gamma gaps of shape ``burstiness``: 1 is Poisson, below 1 is burstier).
- ``ramp``: open loop whose rate follows ``ramp`` points ``(at_s, rate)``, held in steps or interpolated
  linearly (``ramp_shape``), with the same ``arrival`` process.

Every profile is bounded by ``duration_s`` (the measured window, after ``warmup_s``) and optionally by
``max_requests`` (measured requests). Open-loop send times are absolute offsets from the start of the
schedule, computed once from the seed, so the same profile always sends at the same offsets, and a
late client can be measured against them.

Arrivals of every open-loop process are made the same way: a unit-rate process (gaps 1, Exp(1) or
Gamma(b, 1/b)) is mapped through the inverse of the cumulative rate, so a ramp is the same process with
a time-varying rate.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import numpy as np

from llamatest import deadlines

KINDS = ("synchronous", "concurrency", "rate", "ramp")
ARRIVALS = ("constant", "poisson", "gamma")
RAMP_SHAPES = ("step", "linear")
MAX_SCHEDULE = 5_000_000  # a schedule longer than this is a mistake (and would not fit in memory usefully)


@dataclass(frozen=True)
class Profile:
    """One load profile. Bad values raise ``ValueError`` naming the field and the fix."""

    kind: str
    users: int = 1
    think_time_s: float = 0.0
    rate: float | None = None
    arrival: str = "constant"
    burstiness: float = 1.0
    ramp: tuple[tuple[float, float], ...] = ()
    duration_s: float = 10.0
    max_requests: int | None = None
    warmup_s: float = 0.0
    warmup_requests: int = 0
    drain_timeout_s: float | None = None  # None: the "drain" deadline, fixed when the profile is made
    max_in_flight: int | None = None
    seed: int = 0
    ramp_shape: str = "step"
    worker_index: int = 0  # set by shard(): this profile is worker ``worker_index`` of ``workers``
    workers: int = 1

    def __post_init__(self) -> None:
        # Part of the profile (its config key, compared across runs): the quiet figure, never scaled.
        if self.drain_timeout_s is None:
            object.__setattr__(self, "drain_timeout_s", deadlines.QUIET_S["drain"])
        if isinstance(self.ramp, list) or any(isinstance(p, list) for p in self.ramp):
            object.__setattr__(self, "ramp", tuple(tuple(p) for p in self.ramp))
        _validate(self)

    # ----- schedule -----

    @property
    def open_loop(self) -> bool:
        return self.kind in ("rate", "ramp")

    def plan(self) -> tuple[list[float], tuple[float, float]]:
        """``(schedule(), window())`` from one computation of the arrivals."""
        offsets, end = self._arrivals()
        return offsets, (self.warmup_s, end)

    def schedule(self) -> list[float]:
        """Open loop: send offsets in seconds from the start of the schedule, warmup included, sorted.

        Offsets before ``warmup_s`` are warmup requests; the rest are measured, at most ``max_requests``
        of them, all before ``warmup_s + duration_s``. Closed-loop profiles have no schedule (``[]``).
        """
        return self.plan()[0]

    def window(self) -> tuple[float, float]:
        """The measured window, seconds from the start of the schedule. With ``max_requests`` an open loop
        ends its window at the arrival that would have come next (so n requests span n gaps)."""
        return self.plan()[1]

    def _arrivals(self) -> tuple[list[float], float]:
        if not self.open_loop:
            return [], self.warmup_s + self.duration_s
        end = self.warmup_s + self.duration_s
        expected = self._cumulative(np.array([end]))[0]
        if expected > MAX_SCHEDULE:
            raise ValueError(f"the profile would schedule about {expected:.0f} requests (more than {MAX_SCHEDULE}); "
                             "lower rate or duration_s")
        # Unit-rate arrivals ("operational time"), enough to cover the whole span.
        units = self._unit_arrivals(expected)
        times = self._inverse(units)
        times = times[times < end]
        if self.max_requests is not None:
            measured = np.nonzero(times >= self.warmup_s)[0]
            if len(measured) > self.max_requests:
                cut = measured[self.max_requests]
                end = float(times[cut])
                times = times[:cut]
        return [float(t) for t in times], float(end)

    def _unit_arrivals(self, expected: float) -> np.ndarray:
        """Arrival points of a unit-rate process covering at least ``expected`` (plus margin)."""
        if self.arrival == "constant":
            n = int(math.ceil(expected)) + 2
            return np.arange(n, dtype=float) + (self.worker_index / self.workers if self.workers > 1 else 0.0)
        rng = np.random.default_rng([self.seed, self.worker_index] if self.workers > 1 else self.seed)
        n = int(expected + 10 * math.sqrt(expected + 1) + 20)
        out: list[np.ndarray] = []
        total = 0.0
        while True:  # extremely unlikely to need a second round; it keeps the schedule exact anyway
            if self.arrival == "poisson":
                gaps = rng.exponential(1.0, n)
            else:
                gaps = rng.gamma(self.burstiness, 1.0 / self.burstiness, n)
            points = total + np.cumsum(gaps)
            out.append(points)
            total = float(points[-1])
            if total > expected:
                return np.concatenate(out)

    def _rate_points(self) -> tuple[np.ndarray, np.ndarray]:
        if self.kind == "rate":
            return np.array([0.0]), np.array([float(self.rate)])
        at = np.array([p[0] for p in self.ramp], dtype=float)
        rates = np.array([p[1] for p in self.ramp], dtype=float)
        return at, rates

    def _cumulative(self, t: np.ndarray) -> np.ndarray:
        """Expected arrivals by time t: the integral of the rate."""
        at, rates = self._rate_points()
        if self.kind == "rate" or len(at) == 1:
            return t * rates[0]
        knots_t, knots_c = self._knots()
        idx = np.clip(np.searchsorted(knots_t, t, side="right") - 1, 0, len(knots_t) - 1)
        x = t - knots_t[idx]
        ra = rates[idx]
        if self.ramp_shape == "step":
            return knots_c[idx] + ra * x
        last = idx == len(knots_t) - 1
        nxt = np.minimum(idx + 1, len(knots_t) - 1)
        width = np.where(last, 1.0, knots_t[nxt] - knots_t[idx])
        k = np.where(last, 0.0, (rates[nxt] - ra) / width)
        return knots_c[idx] + ra * x + k * x * x / 2

    def _knots(self) -> tuple[np.ndarray, np.ndarray]:
        """(time, cumulative) at every ramp point. Between points the rate is held (step) or interpolated
        (linear), so the cumulative is linear or quadratic there."""
        at, rates = self._rate_points()
        widths = np.diff(at)
        per_piece = widths * rates[:-1] if self.ramp_shape == "step" else widths * (rates[:-1] + rates[1:]) / 2
        return at, np.concatenate([[0.0], np.cumsum(per_piece)])

    def _inverse(self, units: np.ndarray) -> np.ndarray:
        """The time at which the cumulative rate reaches each unit arrival point. Where the rate is 0 for a
        while, an arrival waits for the rate to come back (and never comes if the rate stays 0)."""
        at, rates = self._rate_points()
        if self.kind == "rate" or len(at) == 1:
            return units / rates[0]
        knots_t, knots_c = self._knots()
        out = np.empty_like(units)
        last_c = knots_c[-1]
        inside = units < last_c
        u = units[inside]
        idx = np.clip(np.searchsorted(knots_c, u, side="right"), 1, len(knots_c) - 1) - 1
        d = u - knots_c[idx]
        ra = rates[idx]
        if self.ramp_shape == "step":
            x = d / np.where(ra > 0, ra, 1.0)
        else:
            # Solve ra*x + k*x^2/2 = d for x >= 0, k the rate's slope; this form is stable for k = 0 and ra = 0.
            k = (rates[idx + 1] - ra) / (knots_t[idx + 1] - knots_t[idx])
            root = np.sqrt(np.maximum(ra * ra + 2 * k * d, 0.0))
            denom = ra + root
            x = np.where(denom > 0, 2 * d / np.where(denom > 0, denom, 1.0), 0.0)
        out[inside] = knots_t[idx] + x
        beyond = units[~inside] - last_c
        out[~inside] = knots_t[-1] + beyond / rates[-1] if rates[-1] > 0 else np.inf
        return out

    # ----- sharding -----

    def shard(self, i: int, n: int) -> Profile:
        """Worker ``i`` of ``n``: the open-loop rate divided by n (an independent seeded process per
        worker; constant arrivals offset by i/rate so the merged schedule stays evenly spaced); closed-loop
        users split as evenly as possible (the first ``users % n`` workers get one more)."""
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be an int >= 1 (the number of workers); got {n!r}")
        if not isinstance(i, int) or not 0 <= i < n:
            raise ValueError(f"i must be an int in 0..{n - 1} (this worker's index); got {i!r}")
        if self.workers != 1:
            raise ValueError("the profile is already a shard (workers != 1); shard the original profile")
        if n == 1:
            return self
        split = dict(worker_index=i, workers=n)
        split["warmup_requests"] = self.warmup_requests // n + (1 if i < self.warmup_requests % n else 0)
        if self.max_requests is not None:
            split["max_requests"] = max(1, self.max_requests // n + (1 if i < self.max_requests % n else 0))
        if self.max_in_flight is not None:
            split["max_in_flight"] = max(1, -(-self.max_in_flight // n))
        if self.open_loop:
            if self.kind == "rate":
                split["rate"] = self.rate / n
            else:
                split["ramp"] = tuple((at, r / n) for at, r in self.ramp)
        else:
            users = self.users // n + (1 if i < self.users % n else 0)
            if users == 0:
                raise ValueError(f"cannot split {self.users} users over {n} workers: use at most {self.users} "
                                 "workers")
            split["users"] = users
            if self.kind == "synchronous":
                split["kind"] = "concurrency"
        return replace(self, **split)

    # ----- plain data -----

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ramp"] = [list(p) for p in self.ramp]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Profile:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown profile field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        data = dict(d)
        if "ramp" in data:
            data["ramp"] = tuple(tuple(p) for p in data["ramp"] or ())
        return cls(**data)

    def describe(self) -> str:
        """One line, e.g. ``rate 4/s poisson, 20 s, seed 7``."""
        if self.kind == "synchronous":
            head = "synchronous"
        elif self.kind == "concurrency":
            head = f"concurrency {self.users} user{'s' if self.users != 1 else ''}"
            if self.think_time_s:
                head += f", think {_num(self.think_time_s)} s"
        else:
            if self.kind == "rate":
                head = f"rate {_num(self.rate)}/s"
            else:
                head = "ramp " + "→".join(f"{_num(r)}/s@{_num(at)}s" for at, r in self.ramp) + f" {self.ramp_shape}"
            head += " " + (f"gamma({_num(self.burstiness)})" if self.arrival == "gamma" else self.arrival)
        parts = [head, f"{_num(self.duration_s)} s"]
        if self.max_requests is not None:
            parts.append(f"max {self.max_requests} requests")
        if self.warmup_s:
            parts.append(f"warmup {_num(self.warmup_s)} s")
        if self.warmup_requests:
            parts.append(f"warmup {self.warmup_requests} requests")
        if self.max_in_flight is not None and self.open_loop:
            parts.append(f"max {self.max_in_flight} in flight")
        if self.open_loop and self.arrival != "constant":
            parts.append(f"seed {self.seed}")
        if self.workers > 1:
            parts.append(f"worker {self.worker_index + 1}/{self.workers}")
        return ", ".join(parts)


def _num(x: float | None) -> str:
    if x is None:
        return "?"
    return f"{x:g}"


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _validate(p: Profile) -> None:
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise ValueError(message)

    need(p.kind in KINDS, f"kind must be one of {', '.join(KINDS)}; got {p.kind!r}")
    need(_is_num(p.duration_s) and p.duration_s > 0, f"duration_s must be a number > 0 (seconds); got {p.duration_s!r}")
    need(p.max_requests is None or (isinstance(p.max_requests, int) and p.max_requests >= 1),
         f"max_requests must be None or an int >= 1; got {p.max_requests!r}")
    need(_is_num(p.warmup_s) and p.warmup_s >= 0, f"warmup_s must be a number >= 0 (seconds); got {p.warmup_s!r}")
    need(isinstance(p.warmup_requests, int) and p.warmup_requests >= 0,
         f"warmup_requests must be an int >= 0; got {p.warmup_requests!r}")
    need(_is_num(p.drain_timeout_s) and p.drain_timeout_s >= 0,
         f"drain_timeout_s must be a number >= 0 (seconds); got {p.drain_timeout_s!r}")
    need(p.max_in_flight is None or (isinstance(p.max_in_flight, int) and p.max_in_flight >= 1),
         f"max_in_flight must be None or an int >= 1; got {p.max_in_flight!r}")
    need(isinstance(p.seed, int) and not isinstance(p.seed, bool) and p.seed >= 0,
         f"seed must be an int >= 0; got {p.seed!r}")
    need(isinstance(p.workers, int) and p.workers >= 1 and isinstance(p.worker_index, int)
         and 0 <= p.worker_index < p.workers,
         f"worker_index must be in 0..workers-1; got {p.worker_index!r} of {p.workers!r}")
    need(isinstance(p.users, int) and not isinstance(p.users, bool) and p.users >= 1,
         f"users must be an int >= 1; got {p.users!r}")
    need(_is_num(p.think_time_s) and p.think_time_s >= 0,
         f"think_time_s must be a number >= 0 (seconds); got {p.think_time_s!r}")
    if p.kind == "synchronous":
        need(p.users == 1, f"users must be 1 for kind 'synchronous' (use kind 'concurrency'); got {p.users}")
    if p.kind == "rate":
        need(p.rate is not None and _is_num(p.rate) and p.rate > 0,
             f"rate must be > 0 for kind 'rate' (requests/s); got {p.rate!r}")
    if p.open_loop:
        need(p.arrival in ARRIVALS, f"arrival must be one of {', '.join(ARRIVALS)}; got {p.arrival!r}")
        need(_is_num(p.burstiness) and p.burstiness > 0,
             f"burstiness must be > 0 (gamma shape; 1 is Poisson); got {p.burstiness!r}")
    if p.kind == "ramp":
        need(p.ramp_shape in RAMP_SHAPES, f"ramp_shape must be one of {', '.join(RAMP_SHAPES)}; got {p.ramp_shape!r}")
        need(len(p.ramp) >= 1, "ramp must list at least one (at_s, rate) point for kind 'ramp', e.g. ((0, 1), (10, 4))")
        for point in p.ramp:
            need(len(point) == 2 and all(_is_num(x) for x in point),
                 f"each ramp point must be (at_s, rate) numbers; got {point!r}")
        ats = [a for a, _ in p.ramp]
        need(ats[0] == 0, f"the first ramp point must be at 0 s; got {ats[0]!r}")
        need(all(b > a for a, b in zip(ats, ats[1:], strict=False)),
             f"ramp points must be in strictly increasing time order; got times {ats}")
        need(all(r >= 0 for _, r in p.ramp), "ramp rates must be >= 0 (requests/s)")
        need(any(r > 0 for _, r in p.ramp), "at least one ramp rate must be > 0")
    elif p.ramp:
        raise ValueError(f"ramp is only used by kind 'ramp'; remove it or set kind='ramp' (kind is {p.kind!r})")
