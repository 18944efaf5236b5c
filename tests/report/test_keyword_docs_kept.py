"""keyword_docs.write_all keeps the pages of an unchanged tree and writes them again after any change."""

import os

from llamatest.report import keyword_docs


def _tree(root):
    (root / "libraries").mkdir()
    (root / "resources").mkdir()
    (root / "libraries" / "ToyLibrary.py").write_text('"""A toy."""\n\ndef toy_keyword():\n    """Does nothing."""\n')
    (root / "resources" / "toy.resource").write_text("*** Keywords ***\nToy Step\n    No Operation\n")


def test_an_unchanged_tree_keeps_its_pages(tmp_path):
    _tree(tmp_path)
    out = tmp_path / "docs"
    first = keyword_docs.write_all(tmp_path, out)
    page = out / "ToyLibrary.html"
    os.utime(page, ns=(1, 1))  # a page written again would get a new modification time
    assert keyword_docs.write_all(tmp_path, out) == first
    assert page.stat().st_mtime_ns == 1


def test_a_changed_library_or_a_lost_page_writes_them_again(tmp_path):
    _tree(tmp_path)
    out = tmp_path / "docs"
    keyword_docs.write_all(tmp_path, out)
    page = out / "ToyLibrary.html"
    os.utime(page, ns=(1, 1))
    (tmp_path / "resources" / "toy.resource").write_text("*** Keywords ***\nToy Step Changed\n    No Operation\n")
    keyword_docs.write_all(tmp_path, out)
    assert page.stat().st_mtime_ns != 1
    (out / "toy.html").unlink()
    keyword_docs.write_all(tmp_path, out)
    assert (out / "toy.html").is_file()
