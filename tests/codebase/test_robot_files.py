"""Robot files hold no Python comprehensions: a list or dict built in `${{ }}` or `Evaluate` hides a loop in a
test. Such data comes from a keyword named as a behaviour or a plain accessor (`Values Of Each`,
`Field In Index Order`, ...) implemented in the keyword library of its concern."""

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("suites", "resources", "tests/harness")

# `for NAME[, NAME] in` inside an expression: a comprehension or generator expression.
COMPREHENSION = re.compile(r"\bfor\s+[\w\s,()]+?\s+in\s")
INLINE = re.compile(r"[$@&]\{\{(.*?)\}\}")
EVALUATE = re.compile(r"(?:^|\s{2,})Evaluate(?:\s{2,}(.*))?$")
CONTINUATION = re.compile(r"^\s+\.\.\.\s+(.*)$")

# Files that still hold comprehensions written before this rule, with how many; the count may only go down.
# Remove an entry once its file is clean.
KNOWN: dict[str, int] = {}


def expressions(text: str):
    """(line number, expression) of every `${{ }}` and `Evaluate` argument, continuation lines included."""
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        for match in INLINE.finditer(line):
            yield number, match.group(1)
        evaluate = EVALUATE.search(line)
        if evaluate:
            parts = [evaluate.group(1) or ""]
            for following in lines[number:]:
                more = CONTINUATION.match(following)
                if not more:
                    break
                parts.append(more.group(1))
            yield number, " ".join(parts)


def comprehensions(text: str) -> list[tuple[int, str]]:
    return [(number, expr.strip()) for number, expr in expressions(text) if COMPREHENSION.search(expr)]


def robot_files():
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*")):
            if path.suffix in (".robot", ".resource"):
                yield path


def test_no_robot_file_holds_a_python_comprehension():
    found = {path.relative_to(ROOT).as_posix(): comprehensions(path.read_text()) for path in robot_files()}
    counts = Counter({name: len(hits) for name, hits in found.items() if hits})
    over = [f"{name}:{number}: {expr}" for name, hits in found.items() if counts[name] > KNOWN.get(name, 0)
            for number, expr in hits]
    assert not over, ("Python comprehension in a Robot file (in `${{ }}` or `Evaluate`):\n  " + "\n  ".join(over)
                      + "\nReplace it with a keyword named as a behaviour or a plain data accessor (`Values Of Each`, "
                        "`Items Having Key`, ...) implemented in the keyword library of its concern "
                        "(libraries/*Library.py, logic in libraries/llamatest/), with a unit test if non-trivial.")



def test_the_list_of_files_written_before_the_rule_is_up_to_date():
    counts = {path.relative_to(ROOT).as_posix(): len(comprehensions(path.read_text())) for path in robot_files()}
    stale = {name: counts.get(name, 0) for name, known in KNOWN.items() if counts.get(name, 0) < known}
    assert not stale, f"fewer comprehensions left than KNOWN says: set these counts in KNOWN (drop zeros): {stale}"


def test_a_comprehension_is_found_in_inline_python_and_in_evaluate():
    text = ("    VAR    ${a}    ${{ [x[\"id\"] for x in $items] }}\n"
            "    ${b} =    Evaluate    {k: v for k, v in $d.items()}\n"
            "    ${c} =    Evaluate\n    ...    sorted(e for e in $entries)\n"
            "    FOR    ${x}    IN    @{items}\n"
            "    ${d} =    Evaluate    dict(zip($ids, $aliases))\n"
            "    [Documentation]    Waits for the model `name`, and returns it in order.\n")
    assert [number for number, _ in comprehensions(text)] == [1, 2, 3]


# Inline Python in the suites and resources: `${{ … }}` expressions and `Evaluate` calls. An expectation that is more
# than simple arithmetic gets a keyword that says what it computes (in the library or resource of its concern), so a
# suite reads as a specification. These counts are a ratchet: they may only go down. Lower them when you remove
# expressions; never raise them (write the keyword instead).
MAX_INLINE_EXPRESSIONS = 128
MAX_EVALUATE_CALLS = 39
TEST_DATA = ("suites", "resources")


def inline_python_counts() -> tuple[int, int]:
    inline = evaluate = 0
    for source in TEST_DATA:
        for path in (ROOT / source).rglob("*"):
            if path.suffix in (".robot", ".resource"):
                text = path.read_text()
                inline += text.count("${{")
                evaluate += sum(1 for line in text.splitlines() if EVALUATE.search(line))
    return inline, evaluate


def test_inline_python_in_the_test_data_only_goes_down():
    inline, evaluate = inline_python_counts()
    assert inline <= MAX_INLINE_EXPRESSIONS, (
        f"{inline} inline `${{{{ }}}}` expressions in {' and '.join(TEST_DATA)}, more than the ratchet's "
        f"{MAX_INLINE_EXPRESSIONS}: give the new expectation a keyword that says what it computes (in the library "
        f"or resource of its concern) instead. This number may only go down.")
    assert evaluate <= MAX_EVALUATE_CALLS, (
        f"{evaluate} `Evaluate` calls in {' and '.join(TEST_DATA)}, more than the ratchet's {MAX_EVALUATE_CALLS}: "
        f"an `Evaluate` is inline Python too; name what it computes with a keyword. This number may only go down.")


def test_the_ratchet_stands_at_the_count():
    counts = inline_python_counts()
    assert counts == (MAX_INLINE_EXPRESSIONS, MAX_EVALUATE_CALLS), (
        f"the test data holds {counts[0]} inline expressions and {counts[1]} `Evaluate` calls: set "
        f"MAX_INLINE_EXPRESSIONS = {counts[0]} and MAX_EVALUATE_CALLS = {counts[1]} here, so the ratchet keeps "
        f"what was gained")
