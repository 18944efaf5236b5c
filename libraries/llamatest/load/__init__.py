"""Load testing of llama-server: what to send, sending it with honest timing, what the numbers mean, what is kept.

Its rooms stand in `ROOMS`, bottom first: ``workloads`` (routes, prompts, the body makers), ``engine`` (schedules,
the request client, pacing, Ray shards), ``analysis`` (metrics, validity, summary, comparisons, verdicts, soak),
``output`` (summary files, charts, history). A room imports from its own room and those below, never from one
above; the modules here (``pipeline``: a named run end to end; ``catalog``: workloads by name; ``cli``: ``python -m
llamatest.load``) use them all and no room imports them (``tests/codebase/test_code_shape.py`` checks both).
"""

ROOMS = ("workloads", "engine", "analysis", "output")
