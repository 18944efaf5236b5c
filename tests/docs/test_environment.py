"""Every environment variable the project reads is named once, in `llamatest.settings` (``ENVIRONMENT``, with
its meaning): the Python code reads it through the constant, the Robot data through ``%{NAME}``, and run.py
--help and docs/running.md list them from there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from llamatest import settings

ROOT = settings.ROOT
PYTHON = [*sorted((ROOT / "libraries").rglob("*.py")), ROOT / "run.py", *sorted((ROOT / "benchmarks").rglob("*.py")),
          *sorted((ROOT / "tests" / "harness").rglob("*.py"))]
ROBOT = [path for folder in ("suites", "resources", "tests/harness", "examples")
         for path in sorted((ROOT / folder).rglob("*")) if path.suffix in (".robot", ".resource")]
NAMES = {variable.name for variable in settings.ENVIRONMENT}
ROBOT_ENV = re.compile(r"%\{(\w+)")


def literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def environ(node: ast.AST) -> bool:
    """``os.environ`` (or ``environ`` imported from os)."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (isinstance(node, ast.Name)
                                                                           and node.id == "environ")


def literal_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of each read of the environment by a literal name: ``os.environ.get("X")``,
    ``os.environ["X"]``, ``os.getenv("X")``, ``"X" in os.environ``."""
    found = []
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if (node.func.attr == "get" and environ(node.func.value)) or node.func.attr == "getenv":
                name = literal(node.args[0])
        elif isinstance(node, ast.Subscript) and environ(node.value) and isinstance(node.ctx, ast.Load):
            name = literal(node.slice)
        elif isinstance(node, ast.Compare) and any(environ(c) for c in node.comparators):
            name = literal(node.left)
        if name:
            found.append((node.lineno, name))
    return found


def test_the_code_reads_no_variable_by_a_name_written_in_place():
    found = [f"{path.relative_to(ROOT)}:{line}: {name}" for path in PYTHON
             for line, name in literal_reads(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == [], "name these variables in libraries/llamatest/settings.py (ENVIRONMENT) and read them " \
                        "through the constant:\n" + "\n".join(found)


def test_no_module_but_settings_spells_a_variable_name():
    found = [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}" for path in PYTHON
             if path != ROOT / "libraries" / "llamatest" / "settings.py"
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if literal(node) in NAMES]
    assert found == [], "use the constant of llamatest.settings:\n" + "\n".join(found)


def test_every_variable_the_robot_data_reads_is_in_settings():
    found = [f"{path.relative_to(ROOT)}: %{{{name}}}" for path in ROBOT
             for name in ROBOT_ENV.findall(path.read_text(encoding="utf-8")) if name not in NAMES]
    assert found == [], "add them to ENVIRONMENT in libraries/llamatest/settings.py:\n" + "\n".join(found)


def test_every_variable_in_settings_is_read_somewhere():
    constants = {value: name for name, value in vars(settings).items() if name.startswith("ENV_")}
    code = "\n".join(path.read_text(encoding="utf-8") for path in PYTHON)
    robot = {name for path in ROBOT for name in ROBOT_ENV.findall(path.read_text(encoding="utf-8"))}
    # settings.py itself spells each constant twice (its value, its ENVIRONMENT line): a third use reads it.
    unread = sorted(name for name in NAMES
                    if name not in robot and len(re.findall(rf"\b{constants[name]}\b", code)) <= 2)
    assert unread == [], "nothing reads these: drop them from ENVIRONMENT"


def test_every_variable_has_a_one_line_meaning():
    assert [v.name for v in settings.ENVIRONMENT if not v.meaning or "\n" in v.meaning] == []
    assert len(NAMES) == len(settings.ENVIRONMENT)


def test_a_literal_read_is_found_in_each_of_its_forms():
    source = ("import os\nos.environ.get('A')\nos.environ['B']\nos.getenv('C')\n'D' in os.environ\n"
              "os.environ.get(settings.ENV_E)\nos.environ['F'] = '1'\n")
    assert [name for _, name in literal_reads(ast.parse(source))] == ["A", "B", "C", "D"]


def test_help_lists_every_variable():
    help_text = settings.environment_help()
    assert [name for name in NAMES if f"  {name} " not in help_text] == []


def test_files_are_found():
    assert Path(ROOT / "run.py") in PYTHON and any(path.name == "server.resource" for path in ROBOT)
