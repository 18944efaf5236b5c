"""Keyword documentation for every run: Libdoc HTML of each library and resource, and an index page.

Written in-process by every ``run.py`` (a second or two), so the docs a newcomer reads always match the
code of the run they look at; ``--selftest`` fails when one of them cannot be documented.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DocResult:
    source: Path
    page: Path
    summary: str  # the first line of its documentation, or the error when it could not be documented
    ok: bool


def sources(root: Path) -> list[Path]:
    return [*sorted((root / "libraries").glob("*Library.py")), *sorted((root / "resources").glob("*.resource"))]


def write_all(root: Path, out_dir: Path) -> list[DocResult]:
    """Libdoc HTML for each library and resource into ``out_dir``, then ``index.html`` linking them."""
    from robot.libdocpkg import LibraryDocumentation

    out_dir.mkdir(parents=True, exist_ok=True)
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
