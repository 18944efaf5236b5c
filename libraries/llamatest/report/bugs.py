"""Bug reports ready to file, from a run's output.xml: one Markdown file per failing ``bug`` test, and an index.

``python3 run.py --include bug`` calls `write_reports` after robot: ``bugs/<suite>--<test>.md`` next to
output.xml for each failing test tagged ``bug`` (title, build, server command line, the exchange that
shows the defect as a ``curl`` command, expected with the contract the test's documentation cites,
actual, the upstream reference), and ``bugs/README.md`` listing them. A ``bug`` test that passed is
news (the server may be fixed): the index puts it first and `console_lines` says so.

Exchanges come from the records the log blocks carry (``llamatest.http.logblock``). The one a report
shows is the exchange the failure names (``[exchange #12]``), else the last one the test made.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from llamatest.http.curl import body_inline, curl_command
from llamatest.http.exchanges import record_body
from llamatest.http.logblock import RECORD_ATTRIBUTE

TAG = "bug"
_RECORD = re.compile(RECORD_ATTRIBUTE + r'="([^"]*)"')
_NAMED = re.compile(r"exchange #(\d+)")
_UPSTREAM = re.compile(r"(?:github\.com/(?:ggml-org|ggerganov)/llama\.cpp/(?:issues|pull)/|llama\.cpp#)(\d+)")
UPSTREAM_URL = "https://github.com/ggml-org/llama.cpp/issues/{}"
MAX_LISTED = 20  # exchanges of one test written out in full in its report


@dataclass
class BugTest:
    """One test tagged ``bug`` as the run left it."""

    suite: str
    source: str  # the suite file, from suites/ on when it lies there
    name: str
    status: str  # PASS, FAIL, SKIP, NOT RUN
    message: str
    doc: str
    build: str
    command_line: str
    steps: list[str] = field(default_factory=list)
    exchanges: list[dict] = field(default_factory=list)  # the records of the test's exchanges, in order
    file_name: str = ""  # of its report, when it has one

    @property
    def upstream(self) -> list[str]:
        return sorted(set(_UPSTREAM.findall(self.doc)), key=int)

    @property
    def named_exchanges(self) -> list[int]:
        """The numbers of the exchanges the failure message names, in its order."""
        return [int(n) for n in _NAMED.findall(self.message)]

    def shown_exchange(self) -> dict | None:
        """The exchange the failure names (the first, when several failures name several), else the test's last."""
        by_id = {record.get("id"): record for record in self.exchanges}
        for named in self.named_exchanges:
            if named in by_id:
                return by_id[named]
        return self.exchanges[-1] if self.exchanges else None


# ---- reading output.xml ---------------------------------------------------------------------------------


def bug_tests(output_xml: Path) -> list[BugTest]:
    """Every test tagged ``bug`` in the run, in run order."""
    from robot.api import ExecutionResult

    result = ExecutionResult(str(output_xml))
    return [_bug_test(test) for test in result.suite.all_tests if TAG in test.tags]


def _bug_test(test) -> BugTest:
    suite = test.parent
    return BugTest(suite=suite.name, source=_source(suite.source), name=test.name, status=test.status,
                   message=test.message, doc=test.doc, build=_metadata(suite, "Server", "llama-server"),
                   command_line=_metadata(suite, "Server Command Line"), steps=_steps(test),
                   exchanges=[record for item in (test.setup, *test.body) for record in _records(item)])


def _metadata(suite, *names: str) -> str:
    """The first of ``names`` in the metadata of the suite or of a suite above it."""
    for name in names:
        node = suite
        while node is not None:
            if node.metadata.get(name):
                return str(node.metadata[name])
            node = node.parent
    return ""


def _source(path) -> str:
    if path is None:
        return ""
    parts = Path(path).parts
    if "suites" not in parts:
        return str(path)
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("suites"):])  # from the last suites/ on


def _records(item) -> list[dict]:
    """The exchange records logged inside a result item (keyword, control structure, message), in order."""
    if not item:  # None, or an unset setup/teardown (whose own setup would be another unset one, endlessly)
        return []
    if item.type == "MESSAGE":
        return [json.loads(html.unescape(found)) for found in _RECORD.findall(item.message)] if item.html else []
    records = _records(getattr(item, "setup", None))
    for child in getattr(item, "body", ()):
        records += _records(child)
    return records + _records(getattr(item, "teardown", None))


def _steps(test) -> list[str]:
    """The test's own steps as written (``Keyword    arg    arg``; ``FOR``, ``IF``… by their type)."""
    steps = []
    for item in test.body:
        if item.type in ("KEYWORD", "SETUP"):
            steps.append("    ".join([*(f"{name} =" for name in item.assign), item.name, *map(str, item.args)]))
        elif item.type == "VAR":
            steps.append("    ".join(["VAR", item.name, *map(str, item.value)]))
        elif item.type != "MESSAGE":
            steps.append(f"{item.type} …")
    return steps


# ---- writing ----------------------------------------------------------------------------------------------


def write_reports(output_xml: Path, directory: Path) -> list[BugTest]:
    """Writes the reports of the failing bug tests and the index into ``directory`` (cleared of an earlier
    run's reports first); returns every bug test of the run."""
    tests = bug_tests(output_xml)
    directory.mkdir(parents=True, exist_ok=True)
    for stale in [*directory.glob("*.md"), *directory.glob("*.body")]:
        stale.unlink()  # an earlier run's report of a bug fixed since must not stay behind
    taken: set[str] = set()
    for test in tests:
        if test.status == "FAIL":
            test.file_name = _unique(report_stem(test), taken)
            body_file = _write_body(test, directory)
            (directory / f"{test.file_name}.md").write_text(report_markdown(test, body_file), encoding="utf-8")
    (directory / "README.md").write_text(index_markdown(tests, output_xml), encoding="utf-8")
    return tests


def report_stem(test: BugTest) -> str:
    """``robustness-hostile-input--n-predict-beyond-32-bits-is-refused``: folder, suite file, test."""
    parts = Path(test.source).with_suffix("").parts[-2:] if test.source else (test.suite,)
    suite = "-".join(_slug(re.sub(r"^\d+__", "", part)) for part in parts if part != "suites")
    return f"{suite or _slug(test.suite)}--{_slug(test.name)}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def _unique(stem: str, taken: set[str]) -> str:
    name, n = stem, 1
    while name in taken:
        n += 1
        name = f"{stem}-{n}"
    taken.add(name)
    return name


def _write_body(test: BugTest, directory: Path) -> str | None:
    """The shown exchange's body as a file beside the report when it cannot go inline; its file name."""
    record = test.shown_exchange()
    body = record_body(record) if record else None
    if body is None or body_inline(body) is not None:
        return None
    name = f"{test.file_name}.body"
    (directory / name).write_bytes(body)
    return name


def console_lines(tests: list[BugTest], directory: Path) -> list[str]:
    """What run.py prints before its closing line: the reports written, and each bug test that passed."""
    failing = sum(1 for t in tests if t.status == "FAIL")
    lines = [f"bug reports: {failing} failing bug test(s) written to {directory}/ (index: README.md)"]
    lines += [f"BUG TEST PASSED, the server may be fixed: {t.source or t.suite} / {t.name} "
              f"(check the build, then drop the bug tag)" for t in tests if t.status == "PASS"]
    return lines


# ---- Markdown ---------------------------------------------------------------------------------------------


def report_markdown(test: BugTest, body_file: str | None = None) -> str:
    """One report: what to paste into an issue."""
    parts = [f"# llama-server: {test.name}\n", _facts(test),
             "## Server\n", _fenced(test.command_line or "unknown", "sh")]
    parts += _reproduction(test, body_file)
    parts += ["## Expected\n", (test.doc or "(the test has no documentation)") + "\n",
              "## Actual\n", _fenced(test.message or "(no message)", "text")]
    if test.steps:
        parts += ["## The test\n", _fenced("\n".join(test.steps), "robotframework")]
    parts += _all_exchanges(test)
    return "\n".join(parts)


def _facts(test: BugTest) -> str:
    upstream = ", ".join(f"[llama.cpp#{n}]({UPSTREAM_URL.format(n)})" for n in test.upstream) or "none known"
    return "\n".join([
        f"- **Test:** {test.name} (`{test.source or test.suite}`, tagged `{TAG}`)",
        f"- **Build:** {test.build or 'unknown'}",
        f"- **Upstream:** {upstream}",
        "",
    ])


def _reproduction(test: BugTest, body_file: str | None) -> list[str]:
    record = test.shown_exchange()
    if record is None:
        return ["## Reproduce\n", "The test logged no HTTP exchange: see its steps below.\n"]
    which = "the exchange the failure names" if record.get("id") in test.named_exchanges else \
        "the last exchange of the test"
    then = next((r for r in test.exchanges if r.get("follows") == record.get("id")), None)
    parts = ["## Reproduce\n", f"Exchange #{record.get('id')}, {which}, against the server above:\n",
             _fenced(curl_command(record, body_file, then), "sh")]
    if then is not None:
        parts.append(f"The test sent exchange #{then.get('id')} on the same connection right after the answer "
                     f"(curl's `--next`; its `-v` lines say whether the connection could be reused).\n")
    parts += _notes(record, body_file)
    answer = f"status {record['status']}" if record.get("status") is not None else "no answer"
    parts += [f"It got {answer}" + (f" ({record['error']})" if record.get("error") else "") + ":\n",
              _fenced(record.get("answer", "").rstrip("\n") or "(empty body)", "text")]
    return parts


def _notes(record: dict, body_file: str | None) -> list[str]:
    notes = []
    if body_file:
        notes.append(f"The body is in `{body_file}`, next to this file: run the command from this folder.")
    if "body_bytes" in record:
        notes.append(f"The body ({record['body_bytes']:,} bytes) was too large to record: take it from the test.")
    if any("<redacted>" in value for value in record.get("headers", {}).values()):
        notes.append("The API key is not recorded: set `LLAMA_API_KEY` to the key the test sent.")
    return [" ".join(notes) + "\n"] if notes else []


def _all_exchanges(test: BugTest) -> list[str]:
    if len(test.exchanges) < 2:
        return []
    shown = test.exchanges[-MAX_LISTED:]
    commands = "\n\n".join(_listed(record) for record in shown)
    cut = f", the last {MAX_LISTED}" if len(test.exchanges) > MAX_LISTED else ""
    return [f"<details><summary>All {len(test.exchanges)} exchanges of the test, in order{cut}</summary>\n",
            _fenced(commands, "sh"), "</details>\n"]


def _listed(record: dict) -> str:
    body = record_body(record)
    long_body = "body_bytes" in record or (body is not None and body_inline(body) is None)
    status = record.get("status") if record.get("status") is not None else "no answer"
    title = f"# exchange #{record.get('id')}: {record['method']} {urlsplit(record['url']).path} → {status}"
    note = "\n# (its body is long or binary: BODY stands for it; see the log block)" if long_body else ""
    return f"{title}{note}\n{curl_command(record, 'BODY' if long_body else None)}"


def _fenced(text: str, language: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"  # a longer fence than any run of backticks inside
    return f"{fence}{language}\n{text}\n{fence}\n"


def index_markdown(tests: list[BugTest], output_xml: Path) -> str:
    """The index: bug tests that passed first (news), then the reports, then the skipped ones."""
    passed = [t for t in tests if t.status == "PASS"]
    failing = [t for t in tests if t.status == "FAIL"]
    other = [t for t in tests if t.status not in ("PASS", "FAIL")]
    parts = ["# Bug reports\n", f"From `{output_xml}`: {len(tests)} test(s) tagged `{TAG}`, {len(failing)} failing, "
             f"{len(passed)} passed, {len(other)} not run or skipped.\n"]
    if passed:
        parts += ["## PASSED: the server may be fixed\n",
                  "These tests assert the right behaviour and used to fail on a defect. Check the build, then "
                  f"drop their `{TAG}` tag (and their line in docs/bugs.md).\n"]
        parts += [f"- **{t.name}** (`{t.source or t.suite}`)" for t in passed] + [""]
    if failing:
        parts += ["## Failing\n", "| report | suite | upstream |", "|---|---|---|"]
        parts += [f"| [{_cell(t.name)}]({t.file_name}.md) | `{_cell(t.source or t.suite)}` | "
                  f"{', '.join(f'llama.cpp#{n}' for n in t.upstream) or '–'} |" for t in failing] + [""]
    if other:
        parts += ["## Not run or skipped\n"] + [f"- {t.name} (`{t.source or t.suite}`): {t.status}" for t in other]
        parts.append("")
    return "\n".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
