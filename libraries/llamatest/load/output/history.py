"""Earlier runs and named baselines, kept in a folder so that a run can be compared with them.

Layout under the root (``results/load-history`` by default)::

    <profile name>/<UTC start time>/summary.json     one folder per saved run (plus any files saved with it)
    baselines/<name>.json                            a named baseline: a summary with its per-request samples
    sweeps/<name>/<UTC time>.json                    a whole sweep or capacity search (its points' summaries)
    .index.json                                      each saved run's key and start, by path (a cache)

A run is found again by its configuration key (``summary["run"]["config_key"]``): `previous_comparable`
returns the latest earlier run with the same key, so a changed profile, model, build or machine never
becomes "the previous run". It reads the keys from the index, where a file's entry counts while the
file's modification time and size are those it holds; only the files it does not know are read, and
then the index is rewritten. (Reading every ``summary.json`` of a history of a hundred runs took 0.3 s
on every load run; the index is read and checked in milliseconds.)
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from llamatest import settings
from llamatest.load.output.results import (
    SummaryError,
    check_summary,
    load_summary,
    profile_slug,
    utc_now_iso,
    write_json,
)

BASELINES = "baselines"
SWEEPS = "sweeps"
INDEX = ".index.json"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_STAMP = "%Y%m%dT%H%M%SZ"


def check_baseline_name(name: Any) -> str:
    """``name`` when it is a usable baseline name, else a ValueError that says what is allowed."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        raise ValueError(f"baseline name {name!r} is not allowed: use 1 to 128 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit and without '..' (e.g. 'release-b4321')")
    return name


def _parse_time(text: Any) -> _dt.datetime | None:
    if not isinstance(text, str):
        return None
    for candidate in (text, text.replace("Z", "+00:00")):
        try:
            value = _dt.datetime.fromisoformat(candidate)
        except ValueError:
            continue
        return value if value.tzinfo else value.replace(tzinfo=_dt.UTC)
    try:
        return _dt.datetime.strptime(text, _STAMP).replace(tzinfo=_dt.UTC)
    except ValueError:
        return None


def _key(summary: Mapping[str, Any]) -> str | None:
    return (summary.get("run") or {}).get("config_key")


def _index_entry_holds(entry: Any, stat: os.stat_result) -> bool:
    """An index entry ``[mtime_ns, size, key, start]`` that is well formed and still describes the file."""
    return (isinstance(entry, list) and len(entry) == 4 and entry[:2] == [stat.st_mtime_ns, stat.st_size]
            and (entry[2] is None or isinstance(entry[2], str)) and _parse_time(entry[3]) is not None)


class History:
    """A folder of earlier load runs and named baselines (see the module documentation)."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else settings.load_history_dir()

    def __repr__(self) -> str:
        return f"History({str(self.root)!r})"

    # --- runs ---------------------------------------------------------------------------------------------

    def save(self, summary: Mapping[str, Any], *, files: Iterable[str | os.PathLike] = ()) -> Path:
        """Keep ``summary`` (and copies of ``files``, e.g. ``requests.jsonl`` and charts) in a new folder
        ``<root>/<profile name>/<UTC start time>/``; return the path of its ``summary.json``.

        The start time is ``summary["run"]["started_at"]`` (now when absent); a second run saved with the
        same second gets a ``-2`` suffix, never overwrites.
        """
        check_summary(summary, "the summary to save")
        started = _parse_time((summary.get("run") or {}).get("started_at")) or _parse_time(utc_now_iso())
        folder = self.root / profile_slug(summary)
        base = started.astimezone(_dt.UTC).strftime(_STAMP)
        run_dir, n = folder / base, 1
        while True:
            try:
                run_dir.mkdir(parents=True, exist_ok=False)
                break
            except FileExistsError:
                n += 1
                run_dir = folder / f"{base}-{n}"
        for f in files:
            shutil.copy2(f, run_dir / Path(f).name)
        return write_json(run_dir / "summary.json", summary)

    def run_paths(self) -> list[Path]:
        """Every saved run's ``summary.json``, baselines excluded, in no particular order."""
        if not self.root.is_dir():
            return []
        return [p for p in self.root.glob("*/*/summary.json") if p.parent.parent.name != BASELINES]

    def runs(self, *, config_key: str | None = None) -> list[tuple[Path, dict[str, Any]]]:
        """Saved runs (path, summary), oldest first; only those with ``config_key`` when given.
        Unreadable files are skipped (a history folder must not break a run)."""
        found = []
        for path in self.run_paths():
            try:
                summary = load_summary(path)
            except SummaryError:
                continue
            if config_key is not None and _key(summary) != config_key:
                continue
            found.append((self._when(path, summary), str(path), path, summary))
        found.sort(key=lambda item: (item[0], item[1]))
        return [(path, summary) for _when, _name, path, summary in found]

    @staticmethod
    def _when(path: Path, summary: Mapping[str, Any]) -> _dt.datetime:
        when = _parse_time((summary.get("run") or {}).get("started_at"))
        if when is None:
            when = _parse_time(path.parent.name.split("-")[0])
        return when or _dt.datetime.min.replace(tzinfo=_dt.UTC)

    def previous_comparable(self, summary: Mapping[str, Any]) -> dict[str, Any] | None:
        """The latest saved run started before ``summary`` with the same configuration key, or None.

        A summary without a configuration key has no comparable run. When ``summary`` has no start time,
        the latest run with the key that is not ``summary`` itself is returned.
        """
        key = _key(summary)
        if not key:
            return None
        now = _parse_time((summary.get("run") or {}).get("started_at"))
        # The candidates newest first, in the order runs() sorts them; a file that became unreadable since it
        # was indexed is skipped, as runs() skips it.
        found = sorted(((when, str(path), path) for path, (k, when) in self._indexed().items() if k == key),
                       reverse=True)
        for when, _name, path in found:
            if now is not None and when >= now:
                continue
            try:
                candidate = load_summary(path)
            except SummaryError:
                continue
            if now is not None or candidate.get("run") != summary.get("run"):
                return candidate
        return None

    def _indexed(self) -> dict[Path, tuple[str | None, _dt.datetime]]:
        """Every saved run's (configuration key, start) by path: from the index for the files it knows unchanged,
        else read from the file (key None when unreadable); the index is rewritten when a file was read."""
        paths = self.run_paths()
        if not paths:
            return {}
        index_path = self.root / INDEX
        try:
            known = json.loads(index_path.read_text(encoding="utf-8"))["runs"]
        except (OSError, ValueError, KeyError, TypeError):
            known = {}  # none yet, or damaged: rebuilt from the files
        entries, fresh, read = {}, {}, False
        for path in paths:
            name = path.relative_to(self.root).as_posix()
            try:
                stat = path.stat()
            except OSError:
                continue  # removed since the glob: runs() would skip it as unreadable too
            entry = known.get(name) if isinstance(known, dict) else None
            if not _index_entry_holds(entry, stat):
                entry, read = [stat.st_mtime_ns, stat.st_size, *self._key_and_start(path)], True
            fresh[name] = entry
            entries[path] = (entry[2], _parse_time(entry[3]))
        if read:
            with contextlib.suppress(OSError):  # a history it cannot write to is read in full each time, as before
                write_json(index_path, {"runs": fresh})
        return entries

    def _key_and_start(self, path: Path) -> tuple[str | None, str]:
        try:
            summary = load_summary(path)
        except SummaryError:
            return None, self._when(path, {}).isoformat()
        return _key(summary), self._when(path, summary).isoformat()

    # --- sweeps -------------------------------------------------------------------------------------------

    def save_sweep(self, name: str, document: Mapping[str, Any]) -> Path:
        """Keep a sweep document (``config_key`` and ``points``) under ``sweeps/<name>/``, named by the time."""
        folder = self.root / SWEEPS / check_baseline_name(name)
        folder.mkdir(parents=True, exist_ok=True)
        return write_json(folder / f"{_dt.datetime.now(_dt.UTC).strftime('%Y-%m-%dT%H%M%S.%fZ')}.json", document)

    def previous_sweep(self, name: str, config_key: str) -> dict[str, Any] | None:
        """The latest saved sweep ``name`` with ``config_key``, or None; unreadable files are skipped."""
        folder = self.root / SWEEPS / check_baseline_name(name)
        for path in sorted(folder.glob("*.json"), reverse=True):
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # a damaged file must not break a run
            if isinstance(document, dict) and document.get("config_key") == config_key:
                return document
        return None

    # --- baselines ----------------------------------------------------------------------------------------

    def baseline_path(self, name: str) -> Path:
        return self.root / BASELINES / f"{check_baseline_name(name)}.json"

    def save_baseline(self, name: str, summary: Mapping[str, Any]) -> Path:
        """Keep ``summary`` (with its per-request ``samples``, so CIs can be recomputed) as the baseline
        ``name``, replacing an earlier one of that name; return the file's path."""
        path = self.baseline_path(name)
        check_summary(summary, "the summary to save as a baseline")
        if not summary.get("samples"):
            raise ValueError(f"baseline {name!r}: the summary has no per-request samples, so nothing could be "
                             "compared with it; save the summary that summary.summarize returned")
        document = dict(summary)
        document["baseline"] = {"name": name, "saved_at": utc_now_iso()}
        return write_json(path, document)

    def baseline(self, name: str) -> dict[str, Any] | None:
        """The baseline ``name``, or None when there is none; a damaged file raises `SummaryError`."""
        path = self.baseline_path(name)
        if not path.is_file():
            return None
        return load_summary(path)

    def baselines(self) -> list[str]:
        """The names of the saved baselines, sorted."""
        folder = self.root / BASELINES
        return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
