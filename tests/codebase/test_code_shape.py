"""The shape the codebase keeps: no import cycle among the project's modules nor among the package's parts, no
part importing from a layer above its own (``llamatest.LAYERS``), no Robot in the package outside the modules
that read Robot's files, no long function in libraries/."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from llamatest import LAYERS, ROBOT_READERS
from llamatest.load import ROOMS

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


# ---- the package's parts and their layers ---------------------------------------------------------------

LAYER_OF = {part: index for index, (_, parts) in enumerate(LAYERS) for part in parts}
ROBOT_MODULES = ("robot", "RequestsLibrary")  # Robot itself and the Robot library the glue patches


def part_of(module: str) -> str | None:
    """The part of the package a module belongs to (``llamatest.http.session`` → ``http``); None outside it."""
    parts = module.split(".")
    return parts[1] if parts[0] == "llamatest" and len(parts) > 1 else None


def package_modules() -> dict[str, Path]:
    return {name: path for name, path in modules().items() if name.startswith("llamatest.")}


def part_edges() -> dict[tuple[str, str], list[str]]:
    """(importer part, imported part) -> the module imports that make the edge; an import of a facade or of
    robot_glue counts as an edge to the part ``facades``."""
    found, edges = modules(), {}
    for name, path in package_modules().items():
        for dep in imports_of(path, set(found)):
            target = part_of(dep) if dep.startswith("llamatest.") else (None if dep == "llamatest" else "facades")
            if target is not None and target != part_of(name):
                edges.setdefault((part_of(name), target), []).append(f"{name} -> {dep}")
    return edges


def test_every_part_of_the_package_stands_in_a_layer():
    parts = {part_of(name) for name in package_modules()}
    unplaced = sorted(parts - set(LAYER_OF))
    assert unplaced == [], f"add {unplaced} to llamatest.LAYERS (libraries/llamatest/__init__.py)"


def test_no_part_imports_from_a_layer_above_its_own():
    def layer(part: str) -> str:
        return "the facades" if part == "facades" else LAYERS[LAYER_OF[part]][0]

    upward = [f"{', '.join(how)} ({layer(a)} imports {layer(b)})" for (a, b), how in sorted(part_edges().items())
              if b == "facades" or LAYER_OF.get(b, -1) > LAYER_OF.get(a, len(LAYERS))]
    assert upward == []


def test_no_import_cycle_among_the_parts_of_the_package():
    graph: dict[str, set[str]] = {part: set() for part in LAYER_OF}
    for importer, imported in part_edges():
        graph.setdefault(importer, set()).add(imported)
        graph.setdefault(imported, set())
    assert cycles(graph) == []


def room_of(module: str) -> int | None:
    """Where a module of ``llamatest.load`` stands: the index of its room in ``ROOMS``, ``len(ROOMS)`` for the
    modules beside the rooms (pipeline, catalog, cli), None outside ``load``."""
    parts = module.split(".")
    if parts[:2] != ["llamatest", "load"] or len(parts) < 3:
        return None
    return ROOMS.index(parts[2]) if parts[2] in ROOMS else len(ROOMS)


def test_no_room_of_load_imports_from_a_room_above_its_own():
    found = modules()
    upward = [f"{name} -> {dep}" for name, path in found.items() if room_of(name) is not None
              for dep in sorted(imports_of(path, set(found)))
              if room_of(dep) is not None and room_of(dep) > room_of(name)]
    assert upward == [], f"rooms bottom first: {', '.join(ROOMS)}, then the modules beside them"


def robot_imports(path: Path) -> list[tuple[str, bool]]:
    """(module, inside a function) for each import of Robot in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nested = {id(inner) for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
              for inner in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        found += [(name, id(node) in nested) for name in names if name.split(".")[0] in ROBOT_MODULES]
    return found


def test_the_package_imports_robot_only_where_it_reads_robot_files():
    def reader(name: str) -> bool:
        return any(f"{name}.".startswith(f"llamatest.{prefix}.") for prefix in ROBOT_READERS)

    found = [f"{name}: {module}{' (in a function)' if nested else ''}"
             for name, path in package_modules().items() for module, nested in robot_imports(path)
             if not (reader(name) and nested)]
    assert found == []


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


def test_robot_imports_tells_module_level_from_function_level(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from robot.api import logger\nimport os\n\ndef f():\n    import RequestsLibrary.log\n")
    assert robot_imports(source) == [("robot.api", False), ("RequestsLibrary.log", True)]
