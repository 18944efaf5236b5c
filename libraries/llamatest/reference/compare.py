"""The server's numbers against the reference's: each check returns its mismatches as lines that say what was
compared, where (token position, element, document), both numbers, their difference and the tolerance.

The server's ids say what to compare: a log-probability is checked for the token the server reports, after the
prefix the server says it had (the prompt, then the tokens it generated before); a rerank score for the
document its ``index`` names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from llamatest.reference import tolerance
from llamatest.reference.bert import Bert
from llamatest.reference.llama import KvCache, Llama
from llamatest.reference.pooling import log_probs, normalise, pool
from llamatest.reference.vision import Projector
from llamatest.reference.weights import load_weights

SHOWN = 5  # mismatches listed in a failure; the rest are counted


@dataclass(frozen=True)
class Mismatch:
    what: str
    where: str
    server: float
    reference: float
    tolerance: float

    @property
    def difference(self) -> float:
        return abs(float(self.server) - float(self.reference))

    @property
    def exceeds(self) -> bool:
        return self.difference > self.tolerance

    def __str__(self) -> str:
        return (f"{self.what} at {self.where}: server {self.server:.7g}, reference {self.reference:.7g}, "
                f"difference {self.difference:.3g} {'>' if self.exceeds else '<='} tolerance {self.tolerance:g}")


def largest(seen: Sequence[Mismatch]) -> str:
    """The largest difference of all the comparisons in `seen`, for the log (how close the server was)."""
    if not seen:
        return "nothing compared"
    worst = max(seen, key=lambda m: m.difference / m.tolerance)
    return f"{len(seen)} numbers compared; largest difference relative to its tolerance: {worst}"


def report(mismatches: Sequence[Mismatch | str], subject: str) -> str | None:
    """One failure message for `mismatches` (None when there are none)."""
    if not mismatches:
        return None
    lines = [str(m) for m in mismatches[:SHOWN]]
    more = f"\n… and {len(mismatches) - SHOWN} more" if len(mismatches) > SHOWN else ""
    return f"{subject} differs from the reference in {len(mismatches)} place(s):\n" + "\n".join(lines) + more


@lru_cache(maxsize=8)
def llama_model(path: str, loras: tuple[tuple[str, float], ...] = ()) -> Llama:
    """The llama reference of the file at `path` with the adapters (file, scale) merged in."""
    return Llama(load_weights(path), [(load_weights(p), scale) for p, scale in loras if scale])


@lru_cache(maxsize=4)
def projector(path: str) -> Projector:
    return Projector(load_weights(path))


@lru_cache(maxsize=8)
def bert_model(path: str) -> Bert:
    return Bert(load_weights(path))


def _kept(compared: list[Mismatch], seen: list | None) -> list[Mismatch]:
    """The comparisons beyond their tolerance; all of them go to `seen` (when given)."""
    if seen is not None:
        seen.extend(compared)
    return [m for m in compared if m.exceeds]


def logprob_mismatches(model: Llama, prompt: Sequence[int], entries: Sequence[dict],
                       seen: list | None = None) -> list[Mismatch | str]:
    """Each generated token's ``logprob`` and every ``top_logprobs`` entry (by ``id``), against the reference's
    log-softmax after the same prefix; and the listed alternatives must be the reference's most likely ones."""
    ids = [int(entry["id"]) for entry in entries]
    rows = log_probs(model.run([*prompt, *ids[:-1]]).logits[len(prompt) - 1:])
    return entries_against(rows, entries, len(prompt), seen)


def continued_rows(model: Llama, cache: KvCache, prompt: Sequence[int], generated: Sequence[int],
                   shift: dict | None = None) -> np.ndarray:
    """The log-probabilities before each generated token, the cache already holding the first cells of `prompt`
    (the rest is fed); with `shift`, the slot of ``shift["n_ctx"]`` cells shifts its context as
    server-context.cpp does: before a token is decoded into a full slot (cached tokens + 1 >= n_ctx), it keeps
    the first ``n_keep`` (the request's, -1: the whole prompt; plus BOS), drops ``n_discard`` (the request's,
    0: half of the rest) and moves the others back."""
    rows = [model.feed(cache, prompt[len(cache.positions):]).logits[-1]]
    for token in generated[:-1]:
        if shift and len(cache.positions) + 1 >= shift["n_ctx"]:
            keep = len(prompt) - shift["add_bos"] if shift["n_keep"] < 0 else shift["n_keep"]
            keep = min(shift["n_ctx"] - 4, keep + shift["add_bos"])
            left = len(cache.positions) - keep
            model.shift(cache, keep, int(np.clip(shift["n_discard"] or left // 2, 0, max(0, left - 1))))
        rows.append(model.feed(cache, [int(token)]).logits[0])
    return log_probs(np.array(rows))


def reused_cache(model: Llama, cached: Sequence[int], prompt: Sequence[int], n_keep: int) -> KvCache:
    """The cache a slot that held `cached` offers `prompt` under ``--cache-reuse``: the cells after the first
    `n_keep` that `prompt` does not have are removed and the later ones shifted into place ("reusing from the
    cache via KV shifting", --help), computed as they were, after the removed tokens; then the cells beyond
    what `prompt` reuses (all of it but its last token, which the server evaluates again) are dropped."""
    cache = model.empty_cache()
    model.feed(cache, cached)
    model.shift(cache, n_keep, len(cached) - len(prompt))
    cache.truncate(len(prompt) - 1)
    return cache


def entries_against(rows: np.ndarray, entries: Sequence[dict], offset: int,
                    seen: list | None = None) -> list[Mismatch | str]:
    """The server's `entries` (one per generated token) against the reference's log-probability `rows`; every
    comparison goes to `seen` (when given)."""
    tol, found = tolerance.LOGPROB, []
    for i, (entry, row) in enumerate(zip(entries, rows, strict=True)):
        where = f"generated token {i} (position {offset + i}, id {{}})"
        pairs = [(int(entry["id"]), entry["logprob"]), *((int(t["id"]), t["logprob"]) for t in entry["top_logprobs"])]
        found += _kept([Mismatch("logprob", where.format(tid), value, row[tid], tol) for tid, value in pairs], seen)
        listed = [int(t["id"]) for t in entry["top_logprobs"]]
        rest = np.delete(row, listed)
        if listed and len(rest) and row[listed].min() < rest.max() - tol:
            best = int(np.flatnonzero(row == rest.max())[0])
            found.append(f"top_logprobs at generated token {i}: id {best} (reference logprob {rest.max():.7g}) "
                         f"is missing, and listed id {listed[int(np.argmin(row[listed]))]} has "
                         f"{row[listed].min():.7g} (tolerance {tol:g})")
    return found


def greedy_mismatches(model: Llama, prompt: Sequence[int], generated: Sequence[int]) -> list[Mismatch | str]:
    """Each generated token must be the reference's most likely one after the prompt and the tokens before it
    (a near tie, within the log-probability tolerance, may go either way)."""
    rows = log_probs(model.run([*prompt, *generated[:-1]]).logits[len(prompt) - 1:])
    found: list[Mismatch | str] = []
    for i, (token, row) in enumerate(zip(generated, rows, strict=True)):
        best = int(np.argmax(row))
        if row[best] - row[int(token)] > tolerance.LOGPROB:
            found.append(f"generated token {i} (position {len(prompt) + i}): server id {token} (reference logprob "
                         f"{row[int(token)]:.7g}), reference argmax id {best} ({row[best]:.7g}), difference "
                         f"{row[best] - row[int(token)]:.3g} > tolerance {tolerance.LOGPROB:g}")
    return found


def vector_mismatches(server: Sequence[float], reference: np.ndarray, where: str,
                      seen: list | None = None) -> list[Mismatch | str]:
    """Element by element, within `tolerance.EMBEDDING` of the reference's largest absolute element."""
    server_arr = np.asarray(server, dtype=np.float64)
    if server_arr.shape != reference.shape:
        return [f"{where}: the server's vector has shape {server_arr.shape}, the reference's {reference.shape}"]
    tol = tolerance.EMBEDDING * max(float(np.max(np.abs(reference))), np.finfo(np.float32).tiny)
    return _kept([Mismatch("embedding element", f"{where}, element {k}", server_arr[k], reference[k], tol)
                  for k in range(len(reference))], seen)


def embedding_reference(path: str, tokens: Sequence[int], pooling: str, embd_normalize: int) -> np.ndarray:
    """The reference's embedding of `tokens` as the server's answer holds it: pooled and normalised, or one
    raw vector per token for pooling ``none`` (the server normalises pooled vectors only)."""
    weights = load_weights(path)
    hidden = bert_model(path).hidden(tokens) if weights.arch == "bert" else llama_model(path).run(tokens).hidden
    pooled = pool(hidden, pooling)
    return pooled if pooling == "none" else normalise(pooled, embd_normalize)


def rerank_mismatches(path: str, pairs: Sequence[Sequence[int]], results: Sequence[dict], key: str,
                      top_n: int | None, seen: list | None = None) -> list[Mismatch | str]:
    """Every result's score (by its ``index``) against the reference's, and the results must be the reference's
    best `top_n` documents (all when None)."""
    model = bert_model(path)
    scores = np.array([model.rank_score(tokens) for tokens in pairs])
    found: list[Mismatch | str] = _kept([
        Mismatch("rerank score", f"document {item['index']}", item[key], scores[int(item["index"])], tolerance.RERANK)
        for item in results], seen)
    want = len(pairs) if top_n is None else min(int(top_n), len(pairs))
    if len(results) != want:
        found.append(f"{len(results)} results for {len(pairs)} documents and top_n {top_n}: the reference keeps {want}")
    kept = [int(item["index"]) for item in results]
    dropped = np.delete(scores, kept)
    if kept and len(dropped) and scores[kept].min() < dropped.max() - tolerance.RERANK:
        found.append(f"top_n: a document with reference score {dropped.max():.7g} was dropped while one with "
                     f"{scores[kept].min():.7g} was kept (tolerance {tolerance.RERANK:g})")
    return found


