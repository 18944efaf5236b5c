from types import SimpleNamespace

import pytest

from llamatest.http import jsondata
from llamatest.streaming.checks import one_entry_per_token_chunk


def test_values_of_each_follows_a_dotted_path_through_objects_and_lists():
    items = [{"top_probs": [{"id": 7}, {"id": 9}]}, {"top_probs": [{"id": 3}]}]
    assert jsondata.values_of_each(items, "top_probs.0.id") == [7, 3]


def test_values_of_each_reads_attributes_of_objects():
    assert jsondata.values_of_each([SimpleNamespace(id="a"), SimpleNamespace(id="b")], "id") == ["a", "b"]


def test_a_missing_key_fails_unless_missing_is_given():
    chunks = [{"choices": [{"logprobs": {"content": [1]}}]}, {"choices": [{"logprobs": None}]}, {"choices": [{}]}]
    assert jsondata.values_of_each(chunks, "choices.0.logprobs.content", missing=[]) == [[1], [], []]
    with pytest.raises(AssertionError, match="no key 'logprobs'"):
        jsondata.values_of_each(chunks[2:], "choices.0.logprobs")


def test_field_in_index_order_sorts_by_index():
    results = [{"index": 2, "text": "c"}, {"index": 0, "text": "a"}, {"index": 1, "text": "b"}]
    assert jsondata.in_index_order(results, "text") == ["a", "b", "c"]


def test_totals_items_having_and_lower_case_names():
    items = [{"top_probs": [{"prob": 0.5}, {"prob": 0.25}]}, {"other": 1}]
    assert jsondata.totals_of_each(items[:1], "top_probs", "prob") == [0.75]
    assert jsondata.items_having(items, "other") == [{"other": 1}]
    tools = [{"tool": "a", "type": "mcp"}, {"tool": "b", "type": "server"}]
    assert jsondata.items_where(tools, "type", "server") == [{"tool": "b", "type": "server"}]
    assert jsondata.lower_case_names({"X-Api-Key": "k"}) == {"x-api-key": "k"}


def test_one_entry_per_token_chunk_returns_the_entries_and_checks_their_count():
    assert one_entry_per_token_chunk([["a"], ["b"], []]) == ["a", "b"]
    with pytest.raises(AssertionError, match=r"\[1, 2, 0\] != \[1, 1, 0\]"):
        one_entry_per_token_chunk([["a"], ["b", "c"], []])


def test_fields_lengths_and_first_values_of_each():
    adapters = [{"id": 0, "path": "a.gguf", "scale": 1.0}, {"id": 1, "path": "b.gguf", "scale": 0.5}]
    assert jsondata.fields_of_each(adapters, "id", "scale") == [{"id": 0, "scale": 1.0}, {"id": 1, "scale": 0.5}]
    assert jsondata.lengths_of_each([[1, 2], [3]]) == [2, 1]
    assert jsondata.lengths_of_each([{"embedding": [0.1, 0.2]}], "embedding") == [2]
    assert jsondata.first_value_of_each([{"http://x/m.gguf": {"done": 1}}]) == [{"done": 1}]
    with pytest.raises(AssertionError, match="an empty object has no first value"):
        jsondata.first_value_of_each([{}])


def test_values_starting_with_keeps_the_order_and_wants_strings():
    names = ["download_progress", "loaded", "download_finished"]
    assert jsondata.starting_with(names, "download_") == ["download_progress", "download_finished"]
    with pytest.raises(AssertionError, match="None is not a string, so it cannot start with 'download_'"):
        jsondata.starting_with(["download_progress", None], "download_")


def test_text_before_cuts_at_the_first_stop_and_fails_without_it():
    assert jsondata.text_before("a,b,c", ",") == "a"
    assert jsondata.text_before(",b", ",") == ""
    with pytest.raises(AssertionError, match="does not contain"):
        jsondata.text_before("abc", "x")


def test_keys_should_be_ignores_order_and_names_what_differs():
    jsondata.keys_should_be({"b": 1, "a": 2}, "a", "b")
    with pytest.raises(AssertionError, match=r"missing \['c'\], unexpected \['b'\]"):
        jsondata.keys_should_be({"a": 1, "b": 2}, "a", "c")


def test_should_count_from_zero():
    jsondata.should_count_from_zero([0, 1, 2])
    jsondata.should_count_from_zero([0, 1], count="2")
    jsondata.should_count_from_zero([])
    with pytest.raises(AssertionError):
        jsondata.should_count_from_zero([0, 2])
    with pytest.raises(AssertionError):
        jsondata.should_count_from_zero([0, 1], count=3)


@pytest.mark.parametrize("values, options, ok", [
    ([1, 1, 2], {}, True), ([2, 1], {}, False), ([1, 1, 2], {"strictly": True}, False),
    ([3, 2, 2], {"descending": True}, True), ([3, 2, 2], {"descending": True, "strictly": True}, False),
    ([1, 2], {"descending": True}, False), ([], {"strictly": True}, True),
])
def test_should_be_sorted(values, options, ok):
    if ok:
        jsondata.should_be_sorted(values, **options)
    else:
        with pytest.raises(AssertionError, match="not"):
            jsondata.should_be_sorted(values, **options)


def test_distinct_values_keep_the_order_of_first_appearance():
    assert jsondata.distinct_values([3, 1, 3, [], 1, []]) == [3, 1, []]


def test_common_prefix_length_counts_the_shared_leading_items():
    assert jsondata.common_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert jsondata.common_prefix_length([1, 2], [1, 2, 3]) == 2
    assert jsondata.common_prefix_length([], [1]) == 0


def test_every_value_should_be_names_the_first_other_value():
    jsondata.every_value_should_be([[], []], [])
    jsondata.every_value_should_be([], 1)
    with pytest.raises(AssertionError, match=r"1 of 3 values are not 1; the first, at position 2, is 2"):
        jsondata.every_value_should_be([1, 1, 2], 1)


def test_parsed_reads_json_text_and_fails_on_other_text():
    assert jsondata.parsed('{"a": [1, null]}') == {"a": [1, None]}
    assert jsondata.parsed('"hello"') == "hello"
    with pytest.raises(AssertionError, match="not JSON"):
        jsondata.parsed("hello")
