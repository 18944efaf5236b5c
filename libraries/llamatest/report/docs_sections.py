"""The parts of the docs that mirror the code, rendered from it: each stands between marker comments,

    <!-- generated: NAME -->
    ...
    <!-- end generated -->

and ``python -m llamatest.report.docs_sections`` (``.venv/bin/python``) writes them all again;
``tests/docs/test_generated_docs.py`` fails when one differs from its rendering. The sections: run.py's own
options (its ``--help``) and the environment variables (``settings.ENVIRONMENT``) in docs/running.md; the
resources (the first sentence of each resource file's documentation) and the layout of the package (its layers,
each part's docstring and modules) in docs/writing-suites.md; the ``needs:`` vocabulary in CONTRIBUTING.md.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from llamatest import LAYERS, capabilities, deadlines, settings

ROOT = settings.ROOT
PACKAGE = settings.LIBRARIES / "llamatest"
SECTION = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)
COMMAND = ".venv/bin/python -m llamatest.report.docs_sections"
LAYOUT_WIDTH = 112  # the width of the hand-written layout lines around the generated part
NAME_COLUMN = 26


def first_sentence(text: str) -> str:
    """The first sentence of a docstring's first paragraph, on one line, without its final full stop."""
    paragraph = " ".join(text.strip().split("\n\n")[0].split())
    sentence = re.split(r"(?<=[.!?])\s", paragraph, maxsplit=1)[0]
    return sentence.rstrip(".")


# ----- docs/running.md -----
def options() -> str:
    """run.py's own options exactly as ``python3 run.py --help`` prints them (its "run.py options:" part)."""
    out = subprocess.run([sys.executable, str(ROOT / "run.py"), "--help"], capture_output=True, text=True,
                         check=True, timeout=deadlines.deadline("command")).stdout
    part = out[out.index("run.py options:"):out.index("Environment variables:")].rstrip()
    return f"```text\n{part}\n```"


def environment() -> str:
    """Every environment variable the project reads (`settings.ENVIRONMENT`), as a Markdown table."""
    rows = ["| variable | what it changes | set by |", "|---|---|---|"]
    rows += [f"| `{v.name}` | {v.meaning} | {v.set_by} |" for v in settings.ENVIRONMENT]
    return "\n".join(rows)


# ----- docs/writing-suites.md -----
def resources() -> str:
    """Every ``resources/*.resource`` with the first sentence of its documentation, as a Markdown table."""
    from robot.running import ResourceFileBuilder  # Robot reads its own files; only here

    rows = ["| resource | what it holds |", "|---|---|"]
    for path in sorted((ROOT / "resources").glob("*.resource")):
        rows.append(f"| `{path.name}` | {first_sentence(ResourceFileBuilder().build(path).doc)} |")
    return "\n".join(rows)


def docstring(path: Path) -> str:
    """The first sentence of a module's docstring ("" without one, or when it only points elsewhere)."""
    text = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return "" if text.startswith("See the package docstring") else first_sentence(text)


def part_entry(path: Path, indent: int = 4) -> list[str]:
    """The layout lines of one part of the package: a module with its docstring, or a folder with its docstring,
    its modules, and each folder inside it the same way, one step further in."""
    if path.is_file():
        return _entry(path.name, docstring(path), indent)
    inside = sorted(p for p in path.iterdir() if not p.name.startswith("_"))
    folders = [p for p in inside if (p / "__init__.py").is_file()]
    modules = [p.stem for p in inside if p.suffix == ".py"]
    about = docstring(path / "__init__.py")
    lines = _entry(f"{path.name}/", "; ".join(filter(None, [about, modules and f"modules: {', '.join(modules)}"])),
                   indent)
    return lines + [line for folder in folders for line in part_entry(folder, indent + 2)]


def _entry(name: str, text: str, indent: int) -> list[str]:
    column = max(NAME_COLUMN, indent + len(name) + 1)
    return textwrap.wrap(text, LAYOUT_WIDTH, initial_indent=f"{' ' * indent}{name:<{column - indent}}",
                         subsequent_indent=" " * column, break_on_hyphens=False) or [f"{' ' * indent}{name}"]


def layout() -> str:
    """The package's parts layer by layer (`llamatest.LAYERS`, bottom first), as the layout's text block."""
    lines = _entry("libraries/llamatest/", docstring(PACKAGE / "__init__.py"), 0)
    for layer, parts in LAYERS:
        lines.append(f"  {layer} layer:")
        for name in parts:
            module = PACKAGE / f"{name}.py"
            lines += part_entry(module if module.is_file() else PACKAGE / name)
    return "```text\n" + "\n".join(lines) + "\n```"


# ----- CONTRIBUTING.md -----
def needs() -> str:
    return capabilities.vocabulary_table()


RENDERERS: dict[str, Callable[[], str]] = {"options": options, "environment": environment, "resources": resources,
                                           "layout": layout, "needs": needs}
FILES = ("docs/running.md", "docs/writing-suites.md", "CONTRIBUTING.md")


def render(text: str) -> str:
    """``text`` with every generated section rendered again; an unknown section name raises ``KeyError``."""
    return SECTION.sub(lambda m: f"{m.group(1)}{RENDERERS[m.group('name')]()}\n{m.group(4)}", text)


def sections(text: str) -> dict[str, str]:
    """Name -> body of every generated section of ``text``."""
    return {match.group("name"): match.group("body") for match in SECTION.finditer(text)}


def main(argv: list[str]) -> int:
    """Writes every generated section again; with ``--check``, only says which differ (exit 1 if any)."""
    stale = []
    for name in FILES:
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        fresh = render(text)
        if fresh != text:
            stale.append(name)
            if "--check" not in argv:
                settings.atomic_write_text(path, fresh)
    verb = "differ from the code" if "--check" in argv else "rewritten"
    print(f"{', '.join(stale)}: {verb}" if stale else "generated doc sections: up to date")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
