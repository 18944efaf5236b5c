"""Pure tests of the SSE parser against the WHATWG event-stream rules."""

from llamatest.streaming.sse import SSEComment, SSEEvent, SSEParser, is_done


def parse(*chunks: bytes) -> list:
    """Feed chunks with t = 1, 2, 3, … and close."""
    parser = SSEParser()
    items = []
    for t, chunk in enumerate(chunks, start=1):
        items += parser.feed(chunk, float(t))
    items += parser.close(float(len(chunks) + 1))
    return items


def datas(items) -> list[str]:
    return [i.data for i in items if isinstance(i, SSEEvent)]


def test_single_event_defaults():
    assert parse(b"data: hello\n\n") == [SSEEvent("message", "hello", None, 1.0)]


def test_event_type_and_id():
    items = parse(b"event: delta\nid: 7\ndata: x\n\n")
    assert items == [SSEEvent("delta", "x", "7", 1.0)]


def test_event_type_resets_after_dispatch_but_id_persists():
    items = parse(b"event: a\nid: 1\ndata: x\n\ndata: y\n\n")
    assert [(e.event, e.id) for e in items] == [("a", "1"), ("message", "1")]


def test_id_with_nul_is_ignored():
    assert parse(b"id: 1\ndata: x\n\nid: a\x00b\ndata: y\n\n")[1].id == "1"


def test_crlf_and_cr_line_ends():
    assert datas(parse(b"data: a\r\n\r\ndata: b\r\rdata: c\n\n")) == ["a", "b", "c"]


def test_cr_at_chunk_end_then_lf_is_one_line_end():
    # Counting "\r" and "\n" separately would add a blank line and split this into two events.
    assert datas(parse(b"data: a\r", b"\ndata: b\r\n\r\n")) == ["a\nb"]


def test_cr_at_chunk_end_survives_an_empty_chunk():
    assert datas(parse(b"data: a\r", b"", b"\n\n")) == ["a"]


def test_cr_at_chunk_end_followed_by_cr_is_a_blank_line():
    parser = SSEParser()
    assert parser.feed(b"data: a\r", 1.0) == []
    assert parser.feed(b"\r", 2.0) == [SSEEvent("message", "a", None, 2.0)]


def test_leading_bom_is_stripped_once():
    assert datas(parse(b"\xef\xbb\xbfdata: a\n\n")) == ["a"]
    # A second BOM becomes part of the field name, which is then unknown.
    assert parse(b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\n") == []


def test_bom_split_across_chunks():
    assert datas(parse(b"\xef", b"\xbb", b"\xbfdata: a\n\n")) == ["a"]


def test_bom_only_at_stream_start():
    assert datas(parse(b"data: a\n\n", b"\xef\xbb\xbfdata: b\n\n")) == ["a"]


def test_comments():
    items = parse(b": ping\n:\n:  two spaces\n\n")
    assert items == [SSEComment("ping", 1.0), SSEComment("", 1.0), SSEComment(" two spaces", 1.0)]


def test_comment_inside_event_does_not_break_it():
    items = parse(b"data: a\n: keep-alive\ndata: b\n\n")
    assert items == [SSEComment("keep-alive", 1.0), SSEEvent("message", "a\nb", None, 1.0)]


def test_only_one_leading_space_is_removed():
    assert datas(parse(b"data:  two\n\ndata:none\n\ndata: a: b\n\n")) == [" two", "none", "a: b"]


def test_line_without_colon_is_field_with_empty_value():
    assert datas(parse(b"data\n\n")) == [""]
    assert datas(parse(b"data\ndata\n\n")) == ["\n"]


def test_multiline_data_is_joined_with_newline():
    assert datas(parse(b"data: {\ndata:   \"a\": 1\ndata: }\n\n")) == ['{\n  "a": 1\n}']


def test_blank_line_without_data_dispatches_nothing():
    assert parse(b"\n\n\nevent: x\n\nid: 3\n\n") == []


def test_unknown_fields_and_retry_are_ignored():
    assert datas(parse(b"retry: 10\nfoo: bar\ndata: a\n\n")) == ["a"]


def test_several_events_in_one_chunk():
    items = parse(b"data: 1\n\ndata: 2\n\n: c\n\ndata: [DONE]\n\n")
    assert datas(items) == ["1", "2", "[DONE]"]
    assert {i.t for i in items} == {1.0}
    assert [type(i).__name__ for i in items] == ["SSEEvent", "SSEEvent", "SSEComment", "SSEEvent"]


def test_one_event_across_many_reads_takes_the_time_of_the_last_read():
    raw = b"event: e\ndata: split\n\n"
    parser = SSEParser()
    items = []
    for t, byte in enumerate(raw):
        items += parser.feed(bytes([byte]), float(t))
    assert items == [SSEEvent("e", "split", None, float(len(raw) - 1))]


def test_multibyte_utf8_split_across_reads():
    raw = "data: é😀\n\n".encode()
    cut = raw.index(b"\x9f")  # inside the 4-byte emoji
    assert datas(parse(raw[:7], raw[7:cut], raw[cut:])) == ["é😀"]


def test_invalid_utf8_is_replaced():
    assert datas(parse(b"data: a\xffb\n\n")) == ["a\ufffdb"]


def test_unterminated_event_is_discarded_and_reported():
    parser = SSEParser()
    assert parser.feed(b"data: a\n\ndata: b\ndata: {\"part", 1.0) == [SSEEvent("message", "a", None, 1.0)]
    assert parser.close(2.0) == []
    assert parser.trailing == b'data: b\ndata: {"part'


def test_terminated_lines_without_blank_line_are_trailing():
    parser = SSEParser()
    assert parser.feed(b"data: a\n", 1.0) == []
    parser.close(2.0)
    assert parser.trailing == b"data: a\n"


def test_complete_stream_has_no_trailing():
    parser = SSEParser()
    parser.feed(b"data: a\n\n: ping\n", 1.0)
    parser.close(2.0)
    assert parser.trailing == b""


def test_is_done():
    assert is_done(SSEEvent("message", "[DONE]", None, 0.0))
    assert not is_done(SSEEvent("message", '{"done": true}', None, 0.0))


def test_without_raw_lines_the_items_are_the_same_and_trailing_is_the_last_line():
    chunks = [b"\xef\xbb\xbfdata: a\r", b"\nid: 7\n: ping\n\nevent: x\ndata: b\rdata: c\r\n\r\n",
              b"data: d\ndata: {\"pa"]
    kept, lean = SSEParser(), SSEParser(keep_raw=False)
    for t, chunk in enumerate(chunks):
        assert lean.feed(chunk, float(t)) == kept.feed(chunk, float(t))
    assert lean.close(9.0) == kept.close(9.0) == []
    assert kept.trailing == b'data: d\ndata: {"pa'
    assert lean.trailing == b'data: {"pa'
    assert len(lean._event_raw) == 0
