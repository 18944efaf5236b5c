"""Prometheus text exposition (format 0.0.4), as llama-server's ``GET /metrics`` serves it.

``parse`` turns the text into ``Metrics``: one ``Family`` per metric name with its ``# HELP`` text,
its ``# TYPE`` and its samples. It is strict where a scraper would be strict (a malformed line, a
second ``# TYPE`` for a name, a ``# TYPE`` after the name's samples, an unknown type) and names the
line in every error. The checks below it are what the suites assert on a scrape: a series is
declared with help and type, every name has the expected prefix, a counter grew by exactly N.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

MEDIA_TYPE = "text/plain; version=0.0.4"
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
# The samples of a histogram or summary family carry these suffixes after the family name.
SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"), "summary": ("_sum", "_count")}

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_SAMPLE = re.compile(rf"^(?P<name>{_NAME})(?:\{{(?P<labels>.*)\}})?\s+(?P<value>\S+)(?:\s+(?P<ts>-?\d+))?\s*$")
_LABEL = re.compile(r'\s*(?P<name>[a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*(?:,|$)')
_DESCRIPTOR = re.compile(rf"^#\s+(?P<kind>HELP|TYPE)\s+(?P<name>{_NAME})(?:\s(?P<rest>.*))?$")
_SPECIAL = {"+Inf": math.inf, "Inf": math.inf, "-Inf": -math.inf, "NaN": math.nan}


class MetricsFormatError(ValueError):
    """The text is not valid Prometheus exposition; the message names the line."""


@dataclass(frozen=True)
class Sample:
    name: str
    labels: tuple[tuple[str, str], ...]
    value: float

    @property
    def label_dict(self) -> dict[str, str]:
        return dict(self.labels)

    @property
    def id(self) -> str:
        """``name{label="value",…}``, as the exposition writes it."""
        return self.name + _labels_text(self.labels)


@dataclass
class Family:
    """One metric: ``# HELP``, ``# TYPE`` and its samples (``help``/``type`` None when not declared)."""

    name: str
    help: str | None = None
    type: str | None = None
    samples: list[Sample] = field(default_factory=list)


@dataclass
class Metrics:
    """A parsed scrape: the families by name, in the order they first appear."""

    families: dict[str, Family] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return list(self.families)

    def family(self, name: str) -> Family:
        if name not in self.families:
            raise AssertionError(f"metric {name!r} is not in the scrape; it has: {', '.join(self.names) or 'nothing'}")
        return self.families[name]

    def value(self, name: str, labels: dict[str, str] | None = None) -> float:
        """The value of the one sample called ``name`` (with exactly ``labels``, default none)."""
        wanted = tuple(sorted((labels or {}).items()))
        samples = [s for f in self.families.values() for s in f.samples if s.name == name]
        matching = [s for s in samples if s.labels == wanted]
        if not matching:
            seen = ", ".join(s.id for s in samples) or "no sample of that name"
            raise AssertionError(f"no sample {name}{_labels_text(wanted)} in the scrape ({seen})")
        return matching[0].value


def parse(text: str) -> Metrics:
    """Parses Prometheus text format 0.0.4; raises MetricsFormatError naming the first bad line."""
    metrics = Metrics()
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            _parse_line(metrics, line)
        except MetricsFormatError as error:
            raise MetricsFormatError(f"line {number}: {error}: {line!r}") from None
    return metrics


def sample_values(text: str) -> dict[str, float]:
    """Every sample as ``{id: value}`` (``name{label="value"}``); a line that does not parse is skipped, for
    a sampler that must go on polling whatever one scrape holds."""
    metrics = Metrics()
    for line in text.splitlines():
        try:
            _parse_line(metrics, line)
        except MetricsFormatError:
            continue
    return {sample.id: sample.value for family in metrics.families.values() for sample in family.samples}


def _parse_line(metrics: Metrics, line: str) -> None:
    if not line.strip():
        return
    if line.startswith("#"):
        descriptor = _DESCRIPTOR.match(line)
        if descriptor:  # any other comment is ignored, as the format says
            _describe(metrics, descriptor["kind"], descriptor["name"], descriptor["rest"] or "")
        return
    match = _SAMPLE.match(line)
    if not match:
        raise MetricsFormatError("not a sample line")
    sample = Sample(match["name"], _parse_labels(match["labels"]), _parse_value(match["value"]))
    _family_of(metrics, sample.name).samples.append(sample)


def _describe(metrics: Metrics, kind: str, name: str, rest: str) -> None:
    family = metrics.families.setdefault(name, Family(name))
    if kind == "HELP":
        if family.help is not None:
            raise MetricsFormatError(f"second HELP for {name}")
        family.help = _unescape(rest, quotes=False)
        return
    if family.type is not None:
        raise MetricsFormatError(f"second TYPE for {name}")
    if family.samples:
        raise MetricsFormatError(f"TYPE for {name} after its samples")
    if rest.strip() not in TYPES:
        raise MetricsFormatError(f"unknown type {rest.strip()!r} (known: {', '.join(TYPES)})")
    family.type = rest.strip()


def _family_of(metrics: Metrics, sample_name: str) -> Family:
    """The family a sample belongs to: its own name, or a histogram/summary whose suffix it carries."""
    for family in metrics.families.values():
        for suffix in SUFFIXES.get(family.type or "", ()):
            if sample_name == family.name + suffix:
                return family
    return metrics.families.setdefault(sample_name, Family(sample_name))


def _parse_labels(text: str | None) -> tuple[tuple[str, str], ...]:
    if text is None or not text.strip():
        return ()
    labels: dict[str, str] = {}
    position = 0
    while position < len(text):
        match = _LABEL.match(text, position)
        if not match or match.end() == position:
            raise MetricsFormatError(f"bad label set {{{text}}}")
        if match["name"] in labels:
            raise MetricsFormatError(f"label {match['name']!r} given twice")
        labels[match["name"]] = _unescape(match["value"], quotes=True)
        position = match.end()
    return tuple(sorted(labels.items()))


def _parse_value(text: str) -> float:
    if text in _SPECIAL:
        return _SPECIAL[text]
    try:
        return float(text)
    except ValueError:
        raise MetricsFormatError(f"value {text!r} is not a number") from None


def _unescape(text: str, quotes: bool) -> str:
    """``\\\\`` and ``\\n`` (and ``\\"`` in label values); any other backslash stays as it is."""
    escapes = {"\\": "\\", "n": "\n", **({'"': '"'} if quotes else {})}
    return re.sub(r"\\(.)", lambda m: escapes.get(m[1], m[0]), text)


def _labels_text(labels: tuple[tuple[str, str], ...]) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels) + "}" if labels else ""


# ----- checks -----

def series_should_be_declared(metrics: Metrics, name: str, type_: str) -> None:
    """``name`` has a non-empty ``# HELP``, ``# TYPE type_`` and at least one sample."""
    family = metrics.family(name)
    if not family.help:
        raise AssertionError(f"metric {name!r} has no # HELP text")
    if family.type != type_:
        raise AssertionError(f"metric {name!r} is declared as {family.type or 'nothing (no # TYPE)'}, "
                             f"expected {type_}")
    if not family.samples:
        raise AssertionError(f"metric {name!r} is declared but has no sample")


def every_series_should_be_declared(metrics: Metrics) -> None:
    """Every family that has samples has a non-empty ``# HELP`` and a ``# TYPE``."""
    bare = [f.name for f in metrics.families.values() if f.samples and (not f.help or not f.type)]
    if bare:
        raise AssertionError(f"metrics without # HELP or # TYPE: {', '.join(bare)}")


def every_name_should_start_with(metrics: Metrics, prefix: str) -> None:
    """Every family (declared or sampled) has a name that starts with ``prefix``."""
    if not metrics.families:
        raise AssertionError("the scrape holds no metric at all")
    others = [name for name in metrics.names if not name.startswith(prefix)]
    if others:
        raise AssertionError(f"metrics without the prefix {prefix!r}: {', '.join(others)}")


def counter_should_have_grown_by(before: Metrics, after: Metrics, name: str, delta: float) -> None:
    """The sample ``name`` is exactly ``delta`` larger in ``after`` than in ``before``."""
    old, new = before.value(name), after.value(name)
    if new - old != delta:
        raise AssertionError(f"{name} grew by {_number(new - old)} ({_number(old)} -> {_number(new)}), "
                             f"expected {_number(delta)}")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def counters_should_be_unchanged(before: Metrics, after: Metrics) -> None:
    """Every counter sample of ``before`` has the same value in ``after``."""
    counters = [s for f in before.families.values() if f.type == "counter" for s in f.samples]
    if not counters:
        raise AssertionError("the first scrape holds no counter")
    changed = [f"{s.id} {_number(s.value)} -> {_number(after.value(s.name, s.label_dict))}"
               for s in counters if after.value(s.name, s.label_dict) != s.value]
    if changed:
        raise AssertionError(f"counters changed: {'; '.join(changed)}")
