"""The shape the codebase keeps: no import cycle among the project's modules, no long function in libraries/."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ROOT / "libraries"
MAX_FUNCTION_LINES = 60


def module_name(path: Path) -> str:
    parts = list(path.relative_to(LIBRARIES).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(LIBRARIES.rglob("*.py"))}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The project's modules that ``path`` imports at module level or in functions (any import can cycle)."""
    package = module_name(path).rpartition(".")[0] if path.name != "__init__.py" else module_name(path)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        found |= {name for name in names if name in known}
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected group of more than one module (Tarjan's algorithm, iteration order stable)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in sorted(graph[node]):
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_import_cycle_among_the_libraries():
    found = modules()
    known = set(found)
    # a package's __init__ is imported with any of its modules: that edge is not a cycle of ours
    graph = {name: {dep for dep in imports_of(path, known) if not name.startswith(dep + ".")}
             for name, path in found.items()}
    assert cycles(graph) == []


def long_functions() -> list[str]:
    rows = []
    for path in sorted(LIBRARIES.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    rows.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    return rows


def test_no_function_in_libraries_is_longer_than_60_lines():
    assert long_functions() == []


@pytest.mark.parametrize(("graph", "expected"), [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
])
def test_cycles_finds_each_group(graph, expected):
    assert cycles(graph) == expected
