"""llama-server processes: the binary, start, readiness and stop, the servers by alias, the pid registry, the
presets, sanitizer reports in logs, a command line read as llama-server reads it, the target (managed or
external) and build ranges."""
