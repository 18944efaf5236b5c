"""The numpy reference: shapes, the invariances a transformer must keep, and a case computed by hand."""

import math

import gguf
import numpy as np
import pytest

from llamatest import media
from llamatest.models import catalog
from llamatest.models.modelfile import write_out
from llamatest.reference import compare, tolerance
from llamatest.reference.bert import Bert, gelu
from llamatest.reference.llama import Llama
from llamatest.reference.pooling import INT16_RANGE, log_probs, normalise, pool
from llamatest.reference.vision import Projector, decode_image
from llamatest.reference.weights import load_weights

PROMPT = [1, 300, 301, 302, 303, 304]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The generated tiny model, its LoRA adapter and the reranker, in a cache of this module's own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LLAMATEST_CACHE", str(tmp_path_factory.mktemp("cache")))
        names = ("tiny", "tiny-lora", "tiny-reranker", "tiny-vision")
        return {name: str(catalog.resolve_model(name)) for name in names}


@pytest.fixture(scope="module")
def tiny(models):
    return Llama(load_weights(models["tiny"]))


def test_llama_outputs_have_one_row_per_token(tiny):
    out = tiny.run(PROMPT)
    assert out.hidden.shape == (len(PROMPT), 64)
    assert out.logits.shape == (len(PROMPT), load_weights(tiny.w.path).fields["tokenizer.ggml.tokens"].length)


def test_a_token_does_not_see_the_tokens_after_it(tiny):
    short, long = tiny.run(PROMPT[:3]).logits, tiny.run(PROMPT).logits
    np.testing.assert_allclose(long[:3], short, rtol=0, atol=1e-12)


def test_feeding_token_by_token_equals_one_pass(tiny):
    cache = tiny.empty_cache()
    rows = [tiny.feed(cache, [token]).logits[0] for token in PROMPT]
    np.testing.assert_allclose(np.array(rows), tiny.run(PROMPT).logits, rtol=0, atol=1e-9)


def test_greedy_chain_takes_the_argmax_after_each_token(tiny):
    chain = tiny.greedy(PROMPT, 6)
    logits = tiny.run([*PROMPT, *chain[:-1]]).logits[len(PROMPT) - 1:]
    assert chain == [int(np.argmax(row)) for row in logits]
    assert compare.greedy_mismatches(tiny, PROMPT, chain) == []


def test_the_tiny_model_keeps_to_printable_text(tiny):
    """Its generator bans control and byte tokens with a logit bias: the reference must see the same."""
    assert all(token >= 264 for token in tiny.greedy(PROMPT, 20))


def test_shifted_cache_keys_of_the_first_layer_equal_a_fresh_run_at_the_new_positions(models):
    exact = Llama(load_weights(models["tiny"]), kv_dtype=np.float64)
    shifted = exact.empty_cache()
    exact.feed(shifted, PROMPT)
    exact.shift(shifted, n_keep=1, n_discard=2)
    fresh = exact.empty_cache()
    exact.feed(fresh, [PROMPT[0], *PROMPT[3:]])
    assert shifted.positions.tolist() == list(range(len(PROMPT) - 2))
    np.testing.assert_allclose(shifted.keys[0], fresh.keys[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(shifted.values[0], fresh.values[0], rtol=0, atol=1e-12)


def test_lora_at_scale_zero_is_the_base_model_and_at_one_is_not(models, tiny):
    adapter = load_weights(models["tiny-lora"])
    off = Llama(load_weights(models["tiny"]), [(adapter, 0.0)]).run(PROMPT).logits
    on = Llama(load_weights(models["tiny"]), [(adapter, 1.0)]).run(PROMPT).logits
    np.testing.assert_array_equal(off, tiny.run(PROMPT).logits)
    assert np.max(np.abs(on - off)) > 100 * tolerance.LOGPROB


def test_rerank_score_depends_on_the_pair_only(models):
    bert = Bert(load_weights(models["tiny-reranker"]))
    pair = [2, 40, 41, 3, 50, 51, 3]
    assert bert.rank_score(pair) == bert.rank_score(list(pair))
    assert bert.rank_score(pair) != bert.rank_score([2, 50, 51, 3, 40, 41, 3])
    assert bert.hidden(pair).shape == (len(pair), 32)


def test_pooling_reduces_the_token_vectors():
    hidden = np.array([[1.0, 2.0], [3.0, -4.0], [5.0, 0.0]])
    assert pool(hidden, "mean").tolist() == [3.0, -2 / 3]
    assert pool(hidden, "cls").tolist() == [1.0, 2.0]
    assert pool(hidden, "last").tolist() == [5.0, 0.0]
    assert pool(hidden, "none") is hidden


@pytest.mark.parametrize(("p", "expected"), [(-1, [3.0, -4.0]), (0, [3 * INT16_RANGE / 4, -INT16_RANGE]),
                                             (1, [3 / 7, -4 / 7]), (2, [0.6, -0.8]),
                                             (3, [3 / 91 ** (1 / 3), -4 / 91 ** (1 / 3)])])
def test_normalisation_follows_embd_normalize(p, expected):
    np.testing.assert_allclose(normalise(np.array([3.0, -4.0]), p), expected, rtol=1e-12)


def test_log_probabilities_sum_to_one():
    rows = log_probs(np.array([[0.0, 0.0], [1000.0, 0.0]]))
    np.testing.assert_allclose(rows[0], [math.log(0.5)] * 2)
    np.testing.assert_allclose(np.exp(rows).sum(axis=1), [1.0, 1.0])


def test_gelu_goes_through_f16_as_ggml_cpu_does():
    assert gelu(np.array([-11.0, 11.0])).tolist() == [0.0, 11.0]
    value = float(gelu(np.array([1.0]))[0])
    assert value == float(np.float16(0.5 * (1 + math.tanh(math.sqrt(2 / math.pi) * (1 + 0.044715)))))


def hand_model(path):
    """A one-layer llama of width 2 whose every weight is 0 or 1, so its output can be worked out by hand."""
    writer = gguf.GGUFWriter(str(path), "llama")
    for key, value in {"block_count": 1, "embedding_length": 2, "feed_forward_length": 1, "head_count": 1,
                       "head_count_kv": 1, "rope_dimension_count": 2, "rope_freq_base": 10000.0,
                       "layer_norm_rms_eps": 0.0, "context_length": 8}.items():
        getattr(writer, f"add_{key}")(value)
    eye = np.eye(2, dtype=np.float32)
    tensors = {"token_embd.weight": np.array([[1, 1], [3, 0]], dtype=np.float32),
               "output_norm.weight": np.ones(2, np.float32), "output.weight": eye,
               "blk.0.attn_norm.weight": np.ones(2, np.float32), "blk.0.ffn_norm.weight": np.ones(2, np.float32),
               "blk.0.attn_q.weight": eye, "blk.0.attn_k.weight": eye, "blk.0.attn_v.weight": eye,
               "blk.0.attn_output.weight": eye, "blk.0.ffn_gate.weight": np.array([[1, 0]], np.float32),
               "blk.0.ffn_up.weight": np.array([[0, 1]], np.float32),
               "blk.0.ffn_down.weight": np.array([[1], [0]], np.float32)}
    write_out(writer, tensors)
    return path


def test_a_one_token_case_worked_out_by_hand(tmp_path):
    """Token 0 embeds as (1, 1), whose RMS is 1: attention over one token returns its value (1, 1), so the
    residual is (2, 2), normalised (1, 1); the FFN gives silu(1) * 1 in dimension 0; the output is that sum
    RMS-normalised, and the output head is the identity."""
    out = Llama(load_weights(hand_model(tmp_path / "hand.gguf"))).run([0])
    x = np.array([2 + 1 / (1 + math.exp(-1)), 2.0])
    expected = x / math.sqrt((x ** 2).mean())
    np.testing.assert_allclose(out.logits[0], expected, rtol=1e-12)
    np.testing.assert_allclose(out.hidden[0], expected, rtol=1e-12)


def test_a_second_token_attends_to_both_with_rope(tmp_path):
    """Token 1 embeds as (3, 0), RMS-normalised (√2, 0): its query, key and value. At position 1 RoPE turns its
    query and key by 1 radian (not its value); the key of token 0, (1, 1), stays at position 0. The scores are
    q·k / √2 over the two cells, the FFN adds silu(h0) * h1 to dimension 0."""
    model = Llama(load_weights(hand_model(tmp_path / "hand.gguf")), kv_dtype=np.float64)  # no f16 cache here
    out = model.run([0, 1]).logits[1]
    q = math.sqrt(2) * np.array([math.cos(1), math.sin(1)])
    scores = np.array([q @ np.array([1, 1]), q @ q]) / math.sqrt(2)
    weights = np.exp(scores) / np.exp(scores).sum()
    x = np.array([3.0, 0.0]) + weights[0] * np.array([1, 1]) + weights[1] * np.array([math.sqrt(2), 0.0])
    h = x / math.sqrt((x ** 2).mean())
    x = x + np.array([h[0] / (1 + math.exp(-h[0])) * h[1], 0.0])
    np.testing.assert_allclose(out, x / math.sqrt((x ** 2).mean()), rtol=1e-9)


def test_a_logprob_off_by_more_than_the_tolerance_is_reported_with_its_figures(tiny):
    row = log_probs(tiny.run(PROMPT).logits)[-1]
    best = int(np.argmax(row))
    entry = {"id": best, "logprob": row[best] + 0.1, "top_logprobs": [{"id": best, "logprob": row[best]}]}
    found = compare.logprob_mismatches(tiny, PROMPT, [entry])
    assert len(found) == 1
    assert f"generated token 0 (position {len(PROMPT)}, id {best})" in str(found[0])
    assert "difference 0.1 > tolerance 0.03" in str(found[0])


def test_a_rerank_answer_with_a_wrong_document_is_reported(models):
    pairs = [[2, 40, 3, 50, 3], [2, 40, 3, 60, 61, 3]]
    bert = Bert(load_weights(models["tiny-reranker"]))
    scores = [bert.rank_score(pair) for pair in pairs]
    right = [{"index": 0, "score": scores[0]}, {"index": 1, "score": scores[1]}]
    swapped = [{"index": 0, "score": scores[1]}, {"index": 1, "score": scores[0]}]
    assert compare.rerank_mismatches(models["tiny-reranker"], pairs, right, "score", None) == []
    assert len(compare.rerank_mismatches(models["tiny-reranker"], pairs, swapped, "score", None)) == 2


def test_without_a_shift_continued_rows_are_the_fresh_log_probabilities(tiny):
    chain = tiny.greedy(PROMPT, 8)
    rows = compare.continued_rows(tiny, tiny.empty_cache(), PROMPT, chain)
    fresh = log_probs(tiny.run([*PROMPT, *chain[:-1]]).logits[len(PROMPT) - 1:])
    np.testing.assert_allclose(rows, fresh, rtol=0, atol=1e-9)


def test_a_context_shift_happens_where_the_slot_is_full(tiny):
    chain = tiny.greedy(PROMPT, 12)
    shift = {"n_ctx": 12, "n_keep": 0, "n_discard": 0, "add_bos": 1}
    rows = compare.continued_rows(tiny, tiny.empty_cache(), PROMPT, chain, shift)
    fresh = log_probs(tiny.run([*PROMPT, *chain[:-1]]).logits[len(PROMPT) - 1:])
    # The slot holds 12 cells: the token decoded when 11 are cached is the first one read after a shift.
    first_shifted = 11 - len(PROMPT) + 1
    np.testing.assert_allclose(rows[:first_shifted], fresh[:first_shifted], rtol=0, atol=1e-9)
    assert np.max(np.abs(rows[first_shifted] - fresh[first_shifted])) > 10 * tolerance.LOGPROB


def test_a_reused_cache_without_a_dropped_part_is_the_fresh_prefix(tiny):
    cache = compare.reused_cache(tiny, PROMPT, PROMPT, len(PROMPT))
    assert cache.positions.tolist() == list(range(len(PROMPT) - 1))
    rows = compare.continued_rows(tiny, cache, PROMPT, [300, 301])
    np.testing.assert_allclose(rows, log_probs(tiny.run([*PROMPT, 300]).logits[len(PROMPT) - 1:]), atol=1e-9)


def test_an_image_becomes_one_tiny_embedding_per_patch_carrying_its_constant(models):
    projector = Projector(load_weights(models["tiny-vision"]))
    embeds = projector.embed(decode_image(media.image_base64("png", 5, 32, 32)))
    assert embeds.shape == (16, 64)
    np.testing.assert_allclose(embeds[:, 0], 4.0)  # tiny's constant dimension (models/vision.py)
    other = projector.embed(decode_image(media.image_base64("png", 6, 32, 32)))
    assert np.max(np.abs(other - embeds)) > 0.1


def test_an_image_of_another_size_is_refused_not_resized(models):
    projector = Projector(load_weights(models["tiny-vision"]))
    with pytest.raises(ValueError, match="takes 32x32 images"):
        projector.embed(decode_image(media.image_base64("png", 5, 48, 40)))
