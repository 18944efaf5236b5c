"""The HTML helpers must keep hostile text (model output) from breaking log.html."""

from html.parser import HTMLParser

from llamatest import htmllog as _htmllog

HOSTILE = "</pre></details></summary><script>alert('x')</script> & \"q\" <b onclick=\"x\">\ud800\udfff"
ALLOWED = {"details", "summary", "pre", "table", "tr", "th", "td", "div", "b"}


class TagChecker(HTMLParser):
    """Records the tags; fails on unknown or unbalanced ones."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.text = ""

    def handle_starttag(self, tag, attrs):
        assert tag in ALLOWED, f"unexpected tag <{tag}>"
        assert all(name in ("style", "open") for name, _ in attrs), attrs
        self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack.pop() == tag, f"unbalanced </{tag}>"

    def handle_data(self, data):
        self.text += data


def check(markup: str) -> str:
    """Asserts the markup is well formed and UTF-8 encodable; returns its text."""
    markup.encode("utf-8")  # lone surrogates would raise here
    checker = TagChecker()
    checker.feed(markup)
    checker.close()
    assert checker.stack == []
    return checker.text


def test_escape():
    assert _htmllog.escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;"


def test_surrogates_are_replaced():
    assert _htmllog.escape("a\ud800b") == "a\ufffdb"


def test_details_with_hostile_summary_and_body():
    markup = _htmllog.details(HOSTILE, _htmllog.pre(HOSTILE))
    text = check(markup)
    assert "<script>" in text  # shown as text, not markup
    assert markup.count("<details") == 1 and markup.count("</details>") == 1
    assert "<details><summary>" in markup


def test_details_open():
    assert _htmllog.details("s", "") == "<details><summary>s</summary></details>"
    assert _htmllog.details("s", "", open_=True).startswith("<details open><summary>s</summary>")


def test_pre_escapes():
    text = check(_htmllog.pre(HOSTILE))
    assert "</details>" in text and "&" in text


def test_pre_short_text_is_not_truncated():
    assert "truncated" not in _htmllog.pre("x" * _htmllog.MAX_CHARS)


def test_pre_truncates_long_text_with_a_note():
    markup = _htmllog.pre("<" * 60_000)
    text = check(markup)
    assert text.endswith("… truncated, 60,000 chars in all")
    assert text.count("<") == _htmllog.MAX_CHARS
    assert len(markup) < 5 * _htmllog.MAX_CHARS


def test_json_block_pretty_prints_objects_and_json_text():
    expected = '{\n  "a": [\n    1,\n    "é"\n  ]\n}'
    assert check(_htmllog.json_block({"a": [1, "é"]})) == expected
    assert check(_htmllog.json_block('{"a":[1,"é"]}')) == expected
    assert check(_htmllog.json_block(b'{"a":[1,"\\u00e9"]}')) == expected


def test_json_block_keeps_non_json_text():
    assert check(_htmllog.json_block("Loading model <x>")) == "Loading model <x>"


def test_json_block_hostile_values_and_unserialisable_objects():
    text = check(_htmllog.json_block({"content": HOSTILE}))
    assert "</details></summary><script>" in text and "\ufffd\ufffd" in text
    assert check(_htmllog.json_block({"x": object()})).startswith("{'x': <object object")


def test_table_escapes_every_cell():
    markup = _htmllog.table(["<th>", "b"], [[HOSTILE, None], [1, 2.5]])
    text = check(markup)
    assert "<th>" in text and "None" in text and "2.5" in text
    assert markup.count("<tr>") == 3


def test_labelled():
    assert check(_htmllog.labelled("<b>request</b>", _htmllog.pre("x"))) == "<b>request</b>x"


def test_label_is_a_line_of_its_own_above_plain_text():
    # "comparison" followed by plain text read "comparisonno earlier run…" in the browser
    markup = _htmllog.labelled("comparison", _htmllog.escape("no earlier run"))
    assert markup == "<div><div><b>comparison</b></div>no earlier run</div>"


def test_json_nested_too_deeply_is_shown_without_failing():
    text = "[" * 10000 + "]" * 10000
    assert check(_htmllog.json_block(text)) == text
    deep = []
    for _ in range(10000):
        deep = [deep]
    assert check(_htmllog.json_block(deep)) == "(a list nested too deeply to show)"
