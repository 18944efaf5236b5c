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
