"""Robot facade of llamatest.reference: the server's numbers against a numpy forward pass of its model."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest.models.catalog import read_metadata
from llamatest.reference import compare, served
from llamatest.reference.vision import decode_image
from robot_glue import server_base_url, server_headers


def _fail_on(mismatches: list, subject: str, seen: list) -> None:
    """Logs how close the server came (`seen`: every comparison made), then fails on the `mismatches`."""
    logger.info(f"{subject}: {compare.largest(seen)}")
    message = compare.report(mismatches, subject)
    if message:
        raise AssertionError(message)


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class ReferenceLibrary:
    """Checks the numbers a server answers against an independent reference: a numpy forward pass of the
    model file the server runs (its ``/props`` ``model_path``), with the adapters it applies
    (``/lora-adapters``, or the request's ``lora`` list).

    The reference computes the models the project generates (``tiny`` and its variants: llama; ``tiny-reranker``:
    BERT); tests that use it need ``needs:generated-model``. A failure lists each place the server differs:
    what was compared, the token position (or element, or document), the server's number, the reference's,
    their difference and the tolerance. The tolerances and their reasons are in ``llamatest.reference.tolerance``
    and docs/reference.md.

    Token ids come from the server (``/tokenize`` for a prompt, the answer's ``id`` for generated tokens), so
    the reference is fed exactly what the server says it had.
    """

    @staticmethod
    def _where(server: str) -> tuple[str, dict]:
        return server_base_url(server), server_headers(server)

    def _llama(self, server: str, lora):
        url, headers = self._where(server)
        path, adapters = served.model_path(url, headers), served.adapters(url, headers, lora)
        logger.info(f"reference: {path}" + "".join(f", adapter {p} at scale {s:g}" for p, s in adapters if s))
        return compare.llama_model(path, adapters)

    @keyword("Log Probabilities Should Match Reference")
    def log_probabilities_should_match_reference(self, entries: list, prompt_tokens: list, server: str = "suite",
                                                 lora: list | None = None) -> None:
        """Each generated token's ``logprob`` and its ``top_logprobs`` in ``entries`` (a native answer's
        ``completion_probabilities``, or an OpenAI answer's ``logprobs.content``) must match the reference's
        log-softmax after ``prompt_tokens`` and the generated tokens before it, and the listed alternatives must
        be the reference's most likely tokens. ``lora``: the request's own ``lora`` list, when it sent one."""
        model, seen = self._llama(server, lora), []
        found = compare.logprob_mismatches(model, [int(t) for t in prompt_tokens], entries, seen)
        _fail_on(found, "the server's logprobs", seen)

    @keyword("Greedy Tokens Should Match Reference")
    def greedy_tokens_should_match_reference(self, tokens: list, prompt_tokens: list, server: str = "suite",
                                             lora: list | None = None) -> None:
        """The ids a temperature-0 request generated must be the reference's argmax chain after ``prompt_tokens``
        (a near tie within the log-probability tolerance may go either way)."""
        model = self._llama(server, lora)
        found = compare.greedy_mismatches(model, [int(t) for t in prompt_tokens], [int(t) for t in tokens])
        _fail_on(found, "the server's greedy continuation", [])

    @keyword("Log Probabilities After Context Shift Should Match Reference")
    def log_probabilities_after_context_shift_should_match_reference(
            self, entries: list, prompt_tokens: list, n_ctx: int, n_keep: int = 0, n_discard: int = 0,
            server: str = "suite") -> None:
        """As `Log Probabilities Should Match Reference`, for a generation that ran past its slot's ``n_ctx``
        cells: the reference shifts its own KV cache where the server does (the request's ``n_keep`` and
        ``n_discard``, llama-server's rule), so each token is judged on what the server kept."""
        url, headers = self._where(server)
        path = served.model_path(url, headers)
        shift = {"n_ctx": int(n_ctx), "n_keep": int(n_keep), "n_discard": int(n_discard),
                 "add_bos": int(bool(read_metadata(path)["add_bos_token"]))}
        prompt, model = [int(t) for t in prompt_tokens], compare.llama_model(path)
        rows = compare.continued_rows(model, model.empty_cache(), prompt, [int(e["id"]) for e in entries], shift)
        seen: list = []
        found = compare.entries_against(rows, entries, len(prompt), seen)
        _fail_on(found, "the server's logprobs after a context shift", seen)

    @keyword("Log Probabilities After Cache Reuse Should Match Reference")
    def log_probabilities_after_cache_reuse_should_match_reference(
            self, entries: list, cached_tokens: list, prompt_tokens: list, n_common: int,
            server: str = "suite") -> None:
        """As `Log Probabilities Should Match Reference`, for a prompt served with ``--cache-reuse`` from a slot
        that held ``cached_tokens``: ``prompt_tokens`` is their first ``n_common`` tokens followed by their end
        (a middle part dropped). The reference computes the end's cells as the server did, after the dropped
        part, and shifts them into place."""
        url, headers = self._where(server)
        model = compare.llama_model(served.model_path(url, headers))
        cached, prompt = [int(t) for t in cached_tokens], [int(t) for t in prompt_tokens]
        cache = compare.reused_cache(model, cached, prompt, int(n_common))
        rows = compare.continued_rows(model, cache, prompt, [int(e["id"]) for e in entries])
        seen: list = []
        found = compare.entries_against(rows, entries, len(prompt), seen)
        _fail_on(found, "the server's logprobs after cache reuse", seen)

    @keyword("Log Probabilities With An Image Should Match Reference")
    def log_probabilities_with_an_image_should_match_reference(
            self, entries: list, before_tokens: list, image_base64: str, after_tokens: list, projector: str,
            server: str = "suite") -> None:
        """As `Log Probabilities Should Match Reference`, for a prompt of ``before_tokens``, one image
        (``image_base64``: an encoded image of the projector's own size) and ``after_tokens``: the reference feeds
        the image embeddings the ``projector`` file (a LLaVA-style ``mlp`` projector, `tiny-vision`) makes of it
        between the two."""
        url, headers = self._where(server)
        model, vision = compare.llama_model(served.model_path(url, headers)), compare.projector(projector)
        before, after = [int(t) for t in before_tokens], [int(t) for t in after_tokens]
        cache = model.empty_cache()
        model.feed(cache, before)
        embeds = vision.embed(decode_image(image_base64))
        model.feed_vectors(cache, embeds)
        prompt = [*before, *([-1] * len(embeds)), *after]  # the image's cells hold no token id
        seen: list = []
        rows = compare.continued_rows(model, cache, prompt, [int(e["id"]) for e in entries])
        found = compare.entries_against(rows, entries, len(prompt), seen)
        _fail_on(found, "the server's logprobs after an image", seen)

    @keyword("Embedding Should Match Reference")
    def embedding_should_match_reference(self, embedding: list, tokens: list, pooling: str = "mean",
                                         embd_normalize: int = 2, server: str = "suite") -> None:
        """``embedding`` (a pooled vector, or for pooling ``none`` one vector per token) must match the
        reference's embedding of ``tokens`` (the whole sequence the server embeds, special tokens included),
        pooled with ``pooling`` and normalised as ``embd_normalize`` asks (pooled vectors only)."""
        url, headers = self._where(server)
        expected = compare.embedding_reference(served.model_path(url, headers), [int(t) for t in tokens],
                                               pooling, int(embd_normalize))
        where, seen = f"pooling {pooling}, embd_normalize {embd_normalize}", []
        if pooling == "none":
            found = [m for i, (vector, row) in enumerate(zip(embedding, expected, strict=False))
                     for m in compare.vector_mismatches(vector, row, f"{where}, token position {i}", seen)]
            found += [] if len(embedding) == len(expected) else [
                f"{len(embedding)} token vectors, the reference has {len(expected)}"]
        else:  # a native answer holds the pooled vector in a list of one, an OpenAI answer holds it alone
            vector = embedding[0] if len(embedding) == 1 and isinstance(embedding[0], list) else embedding
            found = compare.vector_mismatches(vector, expected, where, seen)
        _fail_on(found, "the server's embedding", seen)

    @keyword("Rerank Scores Should Match Reference")
    def rerank_scores_should_match_reference(self, results: list, pairs: list, key: str = "relevance_score",
                                             top_n: int | None = None, server: str = "suite") -> None:
        """Each result's score (field ``key``: ``relevance_score`` in the Jina shape, ``score`` in the TEI one)
        must match the reference's score of the pair its ``index`` names (``pairs``: the token ids of each
        query-document pair as the server builds them), and the results must be the reference's best ``top_n``."""
        url, headers = self._where(server)
        pair_ids = [[int(t) for t in pair] for pair in pairs]
        seen: list = []
        found = compare.rerank_mismatches(served.model_path(url, headers), pair_ids, results, key,
                                          None if top_n is None else int(top_n), seen)
        _fail_on(found, "the server's rerank scores", seen)
