"""Every wait takes its figure from `llamatest.deadlines` (machine-scaled), never from a number written elsewhere.

A static scan of ``libraries/`` (outside ``deadlines.py`` and the fixture MCP servers, which are separate
programs) and of the Robot test data. In Python it flags:

- a constant whose name says it is a wait (``…TIMEOUT…``, ``…DEADLINE…``, ``…GRACE…``, ``…WAIT…``) bound to
  a number;
- a parameter named like a wait (``timeout``, ``grace``, ``within``, ``deadline``, ``…_timeout``, ``…_s`` of
  those) whose default is a number: a default is ``None``, resolved through ``deadlines.or_default``;
- a call that waits, given a number: ``timeout=``/``grace=``/``wait=`` keywords, ``asyncio.wait_for(x, N)``,
  ``asyncio.timeout(N)``, ``anyio.fail_after(N)``, ``aiohttp.ClientTimeout(total=N)``.

In ``.robot``/``.resource`` files, Robot's own ``Test Timeout`` and ``[Timeout]`` are scaled by
`TimingVerdictListener`; what it flags there is a wait of one second or more written as a number in a
keyword call (``timeout=${30}``, ``within=5 s``, ``Wait Until Keyword Succeeds    20 s``) or in a variable
that such a call uses: those go through the ``Deadline`` keyword. A number under a second is a timeout the
test provokes on purpose (``timeout=0.5`` on an endless answer), not a wait, and stays as written; so does a
longer one on a line that ends with ``# provoked`` (the deadline is what the test is about).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from robot.utils import timestr_to_secs

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ROOT / "libraries"
EXEMPT = {LIBRARIES / "llamatest" / "deadlines.py"}
SEPARATE_PROGRAMS = LIBRARIES / "llamatest" / "mcp" / "servers"  # run as their own processes, not by a test

WAIT_CONSTANT = re.compile(r"TIMEOUT|DEADLINE|GRACE|(^|_)WAIT(_|$)")
WAIT_PARAMETER = re.compile(r"^(timeout|grace|within|deadline|wait|settle)(_s)?$|_(timeout|within|grace)(_s)?$")
POLL_NAME = re.compile(r"POLL|INTERVAL")  # the time between two looks, not a deadline
WAIT_KEYWORDS = {"timeout", "grace", "wait", "total", "within"}
# function name -> index of its seconds (a join or wait given a number is a thread's or a process's)
WAIT_CALLS = {"wait_for": 1, "fail_after": 0, "move_on_after": 0, "join": 0, "wait": 0, "result": 0}


def _number(node: ast.AST | None) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool) and node.value > 0
    if isinstance(node, ast.BinOp):
        return _number(node.left) and _number(node.right)
    return False


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _constants(tree: ast.Module) -> list[tuple[int, str]]:
    """Constants named as waits, and class fields (dataclass options) named as wait parameters."""
    fields = {id(n) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in c.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and _number(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [(node.lineno, f"constant {t.id} = a number") for t in targets if isinstance(t, ast.Name)
                      and (WAIT_CONSTANT.search(t.id) or id(node) in fields and WAIT_PARAMETER.search(t.id))]
    return found


def _defaults(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
        found += [(node.lineno, f"{node.name}({a.arg}=a number)") for a, d in pairs
                  if WAIT_PARAMETER.search(a.arg) and _number(d)]
    return found


def _numeric_names(tree: ast.Module) -> set[str]:
    """Names bound to a number at the top of a module or class: a wait given one of them is a number too."""
    scopes = [tree, *(n for n in tree.body if isinstance(n, ast.ClassDef))]
    return {t.id for scope in scopes for n in scope.body if isinstance(n, ast.Assign) and _number(n.value)
            for t in n.targets if isinstance(t, ast.Name) and not POLL_NAME.search(t.id)}


def _calls(tree: ast.Module) -> list[tuple[int, str]]:
    numeric = _numeric_names(tree)

    def number(node):
        return _number(node) or isinstance(node, ast.Name) and node.id in numeric

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        found += [(node.lineno, f"{name}({k.arg}=a number)") for k in node.keywords
                  if k.arg and (k.arg in WAIT_KEYWORDS or WAIT_PARAMETER.search(k.arg)) and number(k.value)]
        index = WAIT_CALLS.get(name)
        if name == "timeout" and node.args:
            index = 0
        if index is not None and len(node.args) > index and number(node.args[index]):
            found.append((node.lineno, f"{name}(…, a number)"))
    return found


def python_findings(path: Path, base: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    rows = _constants(tree) + _defaults(tree) + _calls(tree)
    return [f"{path.relative_to(base)}:{line}: {what}" for line, what in sorted(rows)]


def python_files() -> list[Path]:
    return [p for p in sorted(LIBRARIES.rglob("*.py"))
            if p not in EXEMPT and SEPARATE_PROGRAMS not in p.parents]


# ----- Robot test data -----
PROVOKED = "# provoked"  # a deadline the test is about (it ends an endless answer): as the test wrote it
ROBOT_WAIT_ARGUMENT = re.compile(r"(?:^|\s{2,})(timeout|within|\w+_within|idle_within)=(\S+(?: \S+)?)")
WAIT_UNTIL = re.compile(r"Wait Until Keyword Succeeds\s{2,}(\S+(?: \S+)?)")
VARIABLE_ROW = re.compile(r"^\$\{(\w+)\}\s{2,}(.+?)\s*$")
LITERAL = re.compile(r"^\$\{(\d+(?:\.\d+)?)\}$|^(\d+(?:\.\d+)?(?: ?(?:s|ms|seconds?|minutes?|min))?)$")


def _seconds(literal: str) -> float | None:
    match = LITERAL.match(literal.strip())
    if not match:
        return None
    return float(match[1]) if match[1] else timestr_to_secs(match[2])


def robot_findings(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    literal_variables = {m[1]: m[2] for m in map(VARIABLE_ROW.match, lines) if m and _seconds(m[2]) is not None}
    found = []
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("#") or "Deadline" in line or line.rstrip().endswith(PROVOKED):
            continue
        values = [m[2] for m in ROBOT_WAIT_ARGUMENT.finditer(line)] + WAIT_UNTIL.findall(line)
        for value in values:
            name = re.fullmatch(r"\$\{(\w+)\}", value)
            literal = literal_variables.get(name[1], value) if name else value
            seconds = _seconds(literal)
            if seconds is not None and seconds >= 1:
                found.append(f"{path.relative_to(ROOT)}:{number}: a wait of {literal} written as a number ({value})")
    return found


def robot_files() -> list[Path]:
    return sorted(p for folder in ("suites", "resources", "tests/harness")
                  for p in (ROOT / folder).rglob("*") if p.suffix in (".robot", ".resource"))


def test_every_wait_in_the_libraries_takes_its_figure_from_deadlines():
    findings = [row for path in python_files() for row in python_findings(path)]
    assert findings == [], ("waits written as numbers outside llamatest/deadlines.py: name the wait in "
                            "deadlines.QUIET_S and use deadlines.deadline(NAME) or deadlines.or_default(timeout, "
                            "NAME)\n" + "\n".join(findings))


def test_every_wait_in_the_test_data_goes_through_the_deadline_keyword():
    findings = [row for path in robot_files() for row in robot_findings(path)]
    assert findings == [], ("waits of a second or more written as numbers in Robot data: get them from "
                            "`Deadline    30 s` (machine-scaled)\n" + "\n".join(findings))


def test_the_scan_finds_each_kind_of_wait(tmp_path):
    source = tmp_path / "waits.py"
    source.write_text("import asyncio\nGRACE_S = 5.0\ndef f(timeout=3.0):\n    asyncio.wait_for(g(), 2)\n"
                      "    requests.get(u, timeout=1.5)\n")
    rows = [row.split(": ", 1)[1] for row in python_findings(source, tmp_path)]
    assert rows == ["constant GRACE_S = a number", "f(timeout=a number)", "wait_for(…, a number)",
                    "get(timeout=a number)"]

