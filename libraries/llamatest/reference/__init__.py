"""An independent numpy reference for the models the project generates: logits, hidden states, pooled
embeddings and rerank scores for a token sequence, computed from the GGUF file itself.

- `weights`: the file's metadata and tensors (memory-mapped, F32 or F16), read with the fast header reader.
- `llama`: the causal llama graph of `tiny` and its variants (RMSNorm, RoPE as the file says, grouped-query
  attention, SwiGLU, output head), a KV cache that can be shifted as llama-server's context shift does, and
  LoRA adapters at a scale.
- `bert`: the non-causal BERT graph of `tiny-reranker` (and of any F32 BERT file): token, type and position
  embeddings, post-norm blocks, GELU, the pooled vector and the classification head.
- `pooling`: mean / CLS / last pooling and the server's `embd_normalize` choices; log-softmax.
- `tolerance`: how far the server may be from the reference, and why.
- `compare`: the comparisons, whose failures show both numbers, the difference, the tolerance and the position.

No Robot Framework here; `ReferenceLibrary` is the facade.
"""
