"""The models the suites run on: the generated tiny model and its variants, the reranker, the MiniLM converter, the
vision and audio projectors, Gemma 3 assembled from its chunk packages, a fast GGUF header reader and the catalog
that finds each by name."""
