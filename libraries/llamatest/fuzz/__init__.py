"""Bounded fuzzing of llama-server's JSON routes: seeded mutations of a valid request body (``mutate``),
sent one at a time to a loopback server with a deadline each, summarised by status (``run``), and the
summary as one log table (``report``)."""
