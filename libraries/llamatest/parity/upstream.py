"""The test functions of llama.cpp's server unit tests and their parametrised case counts, read with ``ast``."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class UpstreamTest:
    file: str  # test_basic.py
    function: str
    cases: int  # pytest items: the product of the parametrize lists, 1 without


def _module_lists(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``NAME = [...]`` assignments, for ``parametrize("x", NAME)``."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node.value
    return found


def _is_parametrize(decorator: ast.expr) -> bool:
    return (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "parametrize")


def _values_count(node: ast.expr, names: dict[str, ast.expr]) -> int:
    if isinstance(node, ast.Name) and node.id in names:
        return _values_count(names[node.id], names)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return len(node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _values_count(node.left, names) + _values_count(node.right, names)
    raise ValueError(f"cannot count the parametrize values at line {node.lineno}: {ast.unparse(node)[:60]}")


def case_count(function: ast.FunctionDef | ast.AsyncFunctionDef, names: dict[str, ast.expr]) -> int:
    """The number of pytest items ``function`` yields: stacked parametrize decorators multiply."""
    cases = 1
    for decorator in function.decorator_list:
        if _is_parametrize(decorator):
            values = decorator.args[1] if len(decorator.args) > 1 else next(
                keyword.value for keyword in decorator.keywords if keyword.arg == "argvalues")
            cases *= _values_count(values, names)
    return cases


def read_file(path: Path) -> list[UpstreamTest]:
    """The module-level ``test_*`` functions of one upstream test file, in source order."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names = _module_lists(tree)
    return [UpstreamTest(path.name, node.name, case_count(node, names)) for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_")]


def read_folder(folder: Path) -> list[UpstreamTest]:
    """Every upstream test of ``folder``'s ``test_*.py`` files, by file name then source order."""
    return [test for path in sorted(folder.glob("test_*.py")) for test in read_file(path)]
