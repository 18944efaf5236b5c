"""Token texts against their bytes, and lone surrogates (llamatest.unicode)."""

import json

import pytest

from llamatest.unicode import complete_text, lone_surrogates, token_bytes_text, token_text_mismatches


def test_complete_text_replaces_invalid_and_drops_an_unfinished_character():
    assert complete_text(bytes([166])) == "\ufffd"  # a lone continuation byte
    assert complete_text(bytes([208])) == ""  # the first byte of a two-byte character
    assert complete_text(bytes([239, 231, 173, 153])) == "\ufffd筙"
    assert complete_text("é".encode()) == "é"


def test_token_texts_are_checked_in_every_probability_list():
    doc = {"completion_probabilities": [
        {"id": 1, "token": "\ufffd", "bytes": [166],
         "top_logprobs": [{"id": 2, "token": "", "bytes": [208]}, {"id": 3, "token": "x", "bytes": [208]}]}]}
    assert token_text_mismatches(doc) == ["token id 3: token 'x', but bytes [208] decode to ''"]
    assert token_text_mismatches([doc, {"content": "a"}]) == token_text_mismatches(doc)


def test_lone_surrogates_are_found_by_path():
    doc = json.loads('{"content": "ok \\ud83d", "choices": [{"text": "\\ud83c\\udf89"}], "\\udc00": 1}')
    assert lone_surrogates(doc) == ["content", "<key '\\udc00'>"]
    assert lone_surrogates({"content": "🎉 日本"}) == []


def test_only_valid_skips_entries_whose_bytes_are_not_utf8():
    doc = {"completion_probabilities": [{"id": 250, "token": "", "bytes": [247]},
                                        {"id": 9, "token": "x", "bytes": list("é".encode())}]}
    assert token_text_mismatches(doc) == ["token id 250: token '', but bytes [247] decode to '\ufffd'",
                                          "token id 9: token 'x', but bytes [195, 169] decode to 'é'"]
    assert token_text_mismatches(doc, only_valid=True) == ["token id 9: token 'x', but bytes [195, 169] decode to 'é'"]


def test_token_bytes_text_joins_the_bytes_of_all_entries_before_decoding():
    entries = [{"token": "\ufffd", "bytes": [0xC3]}, {"token": "\ufffd", "bytes": [0xA9]},
               {"token": "!", "bytes": [33]}]
    assert token_bytes_text(entries) == "é!"
    with pytest.raises(UnicodeDecodeError):
        token_bytes_text(entries[:1])
