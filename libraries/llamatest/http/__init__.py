"""HTTP to llama-server: the Response view, JSON paths and checks, the RequestsLibrary session adapter (a deadline per
exchange), Prometheus text, curl commands, keep-alive probes and the exchange log block."""
