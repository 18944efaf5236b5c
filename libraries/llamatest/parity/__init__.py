"""docs/upstream-parity.md: llama.cpp's server unit tests mapped to our suites."""
