"""The slot timeline: what ``/slots`` and ``/metrics`` said during a batch, and when.

All times are seconds from the start of the batch (one ``time.perf_counter()`` clock for the
sampler and the requests). A slot sample is taken at ``t`` (its answer arrived) and describes the
server somewhere between ``t_sent`` and ``t``. The slot state is read between two decode steps, so
a task shorter than the polling interval may be missed; the assertions only rely on what was seen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SlotState:
    """One slot in one ``/slots`` answer."""

    id: int
    busy: bool  # is_processing
    id_task: int | None = None  # the current task, or the last one when idle (None before any)
    n_decoded: int | None = None  # next_token[0].n_decoded

    @classmethod
    def from_json(cls, obj: Mapping) -> SlotState:
        next_token = obj.get("next_token")
        if isinstance(next_token, list):  # this build sends a list of one object
            next_token = next_token[0] if next_token else None
        n_decoded = next_token.get("n_decoded") if isinstance(next_token, Mapping) else None
        return cls(id=int(obj["id"]), busy=bool(obj.get("is_processing")), id_task=obj.get("id_task"),
                   n_decoded=n_decoded)


@dataclass(frozen=True)
class SlotSample:
    t: float
    t_sent: float
    slots: tuple[SlotState, ...]

    @property
    def n_busy(self) -> int:
        return sum(1 for slot in self.slots if slot.busy)

    @property
    def all_busy(self) -> bool:
        return bool(self.slots) and self.n_busy == len(self.slots)

    @property
    def busy_tasks(self) -> set[int]:
        return {slot.id_task for slot in self.slots if slot.busy and slot.id_task is not None}

    @property
    def busy_description(self) -> str:
        """``slot 0 (task 12), slot 1 (task 13)``: the busy slots, for failure messages."""
        return ", ".join(f"slot {s.id} (task {s.id_task})" for s in self.slots if s.busy)


@dataclass(frozen=True)
class MetricsSample:
    t: float
    t_sent: float
    values: Mapping[str, float]  # metric name without the ``llamacpp:`` prefix → value


@dataclass(frozen=True)
class Probe:
    """``GET /slots?fail_on_no_slot=1``, sent because the previous slot sample showed every slot busy."""

    t: float
    status: int | None
    body: Any  # parsed JSON, or the text


@dataclass(frozen=True)
class Interval:
    """A slot busy with one task: from its first to its last busy sample (``until``: the next sample).

    The task really started between ``since`` (the sample before ``start``, which did not show it yet)
    and ``start``.
    """

    slot: int
    id_task: int | None
    start: float
    end: float
    until: float
    n_decoded: int | None  # the highest seen
    since: float | None = None


@dataclass
class RequestSpan:
    """One request of the batch on the batch clock; ``None`` for what did not happen."""

    index: int
    sent: float | None = None
    first: float | None = None  # first event (streams)
    end: float | None = None
    slot: int | None = None  # the id_slot the server reported (native routes)
    abandoned: float | None = None  # when the client hung up on purpose


@dataclass
class Timeline:
    slots: list[SlotSample] = field(default_factory=list)
    metrics: list[MetricsSample] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)  # failed polls
    requests: list[RequestSpan] = field(default_factory=list)
    requests_done: float | None = None  # every request had ended
    end: float = 0.0

    # ---- slots ---------------------------------------------------------------------------------------

    @property
    def n_slots(self) -> int | None:
        return len(self.slots[-1].slots) if self.slots else None

    @property
    def max_busy(self) -> int:
        return max((sample.n_busy for sample in self.slots), default=0)

    def first_all_busy(self) -> SlotSample | None:
        return next((sample for sample in self.slots if sample.all_busy), None)

    def idle_after(self, t: float) -> SlotSample | None:
        """The first sample sent at or after ``t`` in which no slot is busy."""
        return next((s for s in self.slots if s.t_sent >= t and s.n_busy == 0), None)

    def intervals(self) -> list[Interval]:
        """Every busy stretch of every slot, by slot and then time."""
        out: list[Interval] = []
        for slot_id in sorted({state.id for sample in self.slots for state in sample.slots}):
            out += _slot_intervals(slot_id, self.slots)
        return out

    def request_intervals(self, intervals: list[Interval] | None = None) -> dict[int, Interval]:
        """The busy interval that served each request, matched by slot id (when known) and time overlap.

        Requests whose answer names their slot are matched first, then the others (OpenAI answers, and
        streams abandoned before their final chunk), each in the order they were sent; an interval serves
        one request. A request whose task the sampler never saw has no entry. ``intervals``: `intervals`, when
        the caller has them already.
        """
        taken: set[int] = set()
        matched: dict[int, Interval] = {}
        intervals = self.intervals() if intervals is None else intervals
        for span in sorted(self.requests, key=lambda s: (s.slot is None, s.sent is None, s.sent or 0.0, s.index)):
            if span.sent is None:
                continue
            end = span.end if span.end is not None else self.end
            best, best_overlap = None, 0.0
            for k, interval in enumerate(intervals):
                if k in taken or (span.slot is not None and interval.slot != span.slot):
                    continue
                overlap = min(end, interval.until) - max(span.sent, interval.start)
                if overlap > best_overlap or (best is None and overlap >= 0):
                    best, best_overlap = k, overlap
            if best is not None:
                taken.add(best)
                matched[span.index] = intervals[best]
        return matched

    # ---- metrics -------------------------------------------------------------------------------------

    def metric_max(self, name: str) -> float | None:
        values = [m.values[name] for m in self.metrics if name in m.values]
        return max(values) if values else None

    def metrics_after(self, t: float, predicate: Callable[[Mapping[str, float]], bool]) -> MetricsSample | None:
        """The first metrics sample sent at or after ``t`` whose values satisfy ``predicate``."""
        return next((m for m in self.metrics if m.t_sent >= t and predicate(m.values)), None)

    def metrics_idle_after(self, t: float) -> MetricsSample | None:
        """The first metrics sample sent at or after ``t`` with no request processing or deferred."""
        return self.metrics_after(t, lambda v: v.get("requests_processing", 0) == 0
                                  and v.get("requests_deferred", 0) == 0)

    def settled_after(self, t: float, metrics: bool) -> bool:
        """After ``t``: a slot sample with no slot busy and (with ``metrics``) a metrics sample with no request
        processing or deferred."""
        if self.idle_after(t) is None:
            return False
        return not metrics or self.metrics_idle_after(t) is not None

    def busy_slots_per_decode(self, start: MetricsSample, end: MetricsSample) -> float | None:
        """The average number of busy slots per ``llama_decode()`` call between two ``/metrics`` samples.

        The server reports ``n_busy_slots_per_decode`` as an average since it started; times
        ``n_decode_total`` it is a running total, so the window's average is the difference of the totals
        over the difference of the decode counts. The value is lowered by what the six printed digits may
        round away, so that it never overstates. None without both counters or without a decode.
        """
        names = ("n_busy_slots_per_decode", "n_decode_total")
        if not all(name in sample.values for name in names for sample in (start, end)):
            return None
        decodes = end.values["n_decode_total"] - start.values["n_decode_total"]
        if decodes <= 0:
            return None
        totals = [sample.values["n_busy_slots_per_decode"] * sample.values["n_decode_total"]
                  for sample in (start, end)]
        slack = (abs(totals[0]) + abs(totals[1])) * 1e-5
        return (totals[1] - totals[0] - slack) / decodes

    def batch_busy_slots_per_decode(self) -> float | None:
        """`busy_slots_per_decode` from the first to the last metrics sample; None with fewer than two."""
        if len(self.metrics) < 2:
            return None
        return self.busy_slots_per_decode(self.metrics[0], self.metrics[-1])

    def summary(self) -> str:
        """``42 slot samples every 6.1 ms over 0.52 s, at most 2 of 2 slots busy``, for failure messages."""
        if not self.slots:
            return f"no slot sample over {self.end:.2f} s ({len(self.errors)} failed polls)"
        span = self.slots[-1].t - self.slots[0].t
        every = span / (len(self.slots) - 1) * 1000 if len(self.slots) > 1 else 0.0
        waits = sorted(sample.t - sample.t_sent for sample in self.slots)
        return (f"{len(self.slots)} slot samples every {every:.1f} ms over {self.end:.2f} s (answered in "
                f"{waits[len(waits) // 2] * 1000:.1f} ms median, {waits[-1] * 1000:.0f} ms at most), "
                f"at most {self.max_busy} of {self.n_slots} slots busy")


def _slot_intervals(slot_id: int, samples: list[SlotSample]) -> list[Interval]:
    out: list[Interval] = []
    current: dict[str, Any] | None = None
    previous_t: float | None = None
    for sample in samples:
        state = next((s for s in sample.slots if s.id == slot_id), None)
        if current is not None and (state is None or not state.busy or state.id_task != current["id_task"]):
            out.append(Interval(slot_id, current["id_task"], current["start"], current["end"], sample.t,
                                current["n_decoded"], current["since"]))
            current = None
        if state is not None and state.busy:
            if current is None:
                current = {"id_task": state.id_task, "start": sample.t, "n_decoded": state.n_decoded,
                           "since": previous_t}
            current["end"] = sample.t
            if state.n_decoded is not None:
                current["n_decoded"] = max(current["n_decoded"] or 0, state.n_decoded)
        previous_t = sample.t
    if current is not None:
        out.append(Interval(slot_id, current["id_task"], current["start"], current["end"], current["end"],
                            current["n_decoded"], current["since"]))
    return out
