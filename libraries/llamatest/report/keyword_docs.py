"""Keyword documentation for every run: Libdoc HTML of each library and resource, and an index page.

Written in-process by every ``run.py``, so the docs a newcomer reads always match the code of the run they look
at; ``--selftest`` fails when one of them cannot be documented. Writing them takes 3 to 5 seconds on 2 cores, so a
run whose libraries, resources and Robot version are those of the docs already there keeps them (``FINGERPRINT``).
"""

from __future__ import annotations

import hashlib
import html
import json
from dataclasses import asdict, dataclass
from pathlib import Path

FINGERPRINT = "sources.json"  # in the docs folder: what the pages were written from, and their summaries


@dataclass(frozen=True)
class DocResult:
    source: Path
    page: Path
    summary: str  # the first line of its documentation, or the error when it could not be documented
    ok: bool


def sources(root: Path) -> list[Path]:
    return [*sorted((root / "libraries").glob("*Library.py")), *sorted((root / "resources").glob("*.resource"))]


def fingerprint(root: Path) -> str:
    """What the docs depend on: every Python file under libraries/ (keywords come from the llamatest package too),
    every resource, and Robot's version; by path, size and modification time."""
    from robot.version import VERSION

    files = [*sorted((root / "libraries").rglob("*.py")), *sorted((root / "resources").rglob("*.resource"))]
    digest = hashlib.sha256(VERSION.encode())
    for path in files:
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def write_all(root: Path, out_dir: Path) -> list[DocResult]:
    """Libdoc HTML for each library and resource into ``out_dir``, then ``index.html`` linking them; the pages
    already there when nothing they depend on changed."""
    current = fingerprint(root)
    kept = _kept(out_dir, current)
    if kept is not None:
        return kept
    results = _written(root, out_dir)
    (out_dir / FINGERPRINT).write_text(json.dumps({"fingerprint": current, "results": [
        {**asdict(r), "source": str(r.source), "page": str(r.page)} for r in results]}), encoding="utf-8")
    return results


def _kept(out_dir: Path, current: str) -> list[DocResult] | None:
    """The results of the docs in ``out_dir`` when they were written from ``current`` and every page is there."""
    try:
        data = json.loads((out_dir / FINGERPRINT).read_text(encoding="utf-8"))
        results = [DocResult(Path(r["source"]), Path(r["page"]), r["summary"], r["ok"]) for r in data["results"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    pages_there = (out_dir / "index.html").is_file() and all(r.page.is_file() for r in results if r.ok)
    return results if data.get("fingerprint") == current and pages_there else None


def _written(root: Path, out_dir: Path) -> list[DocResult]:
    from robot.libdocpkg import LibraryDocumentation

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / FINGERPRINT).unlink(missing_ok=True)  # a run stopped half-way leaves no stale fingerprint
    results = []
    for source in sources(root):
        page = out_dir / f"{source.stem}.html"
        try:
            doc = LibraryDocumentation(str(source))
            doc.save(str(page), "HTML")
            first = doc.doc.strip().splitlines()[0] if doc.doc.strip() else ""
            results.append(DocResult(source, page, f"{first} ({len(doc.keywords)} keywords)", True))
        except Exception as err:  # noqa: BLE001 - any import or parse error is reported, not raised
            results.append(DocResult(source, page, f"not documented: {type(err).__name__}: {err}", False))
    (out_dir / "index.html").write_text(index_html(results, root), encoding="utf-8")
    return results


def index_html(results: list[DocResult], root: Path) -> str:
    rows = "\n".join(
        f"<tr><td>{_link(r)}</td><td>{html.escape(str(r.source.relative_to(root)))}</td>"
        f"<td>{html.escape(r.summary)}</td></tr>" for r in results)
    return ("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>llamatest keywords</title>"
            "<style>body{font-family:sans-serif}td{padding:2px 10px;vertical-align:top}</style></head>"
            "<body><h1>llamatest keyword documentation</h1>"
            "<p>Libraries (Python) and resources (Robot keywords) the suites import.</p>"
            f"<table><tr><th>name</th><th>file</th><th>what it is</th></tr>\n{rows}\n</table></body></html>\n")


def _link(result: DocResult) -> str:
    name = html.escape(result.source.stem)
    return f"<a href='{html.escape(result.page.name)}'>{name}</a>" if result.ok else name
