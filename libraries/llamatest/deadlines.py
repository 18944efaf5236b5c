"""Every deadline of the project in one place: how long a wait may take on a quiet machine, and that figure
scaled to what the machine can give at the moment of the wait.

A deadline only moves the point where a hang is called a hang; it never judges speed (benchmarks do). Each
figure below was picked on a quiet 2-core machine with room to spare. ``deadline(NAME)`` multiplies it by
`machine.deadline_factor` (1 on a quiet machine, up to 8 while other processes hold the cores) and by
``$LLAMATEST_DEADLINE_SCALE`` (a user's own factor, for a slow runner or a sanitizer build), at the moment the
wait starts, so a run beside a busy neighbour waits longer instead of failing.

A missed deadline says ``… within N s`` in its message; `TimingVerdictListener` then judges the test as it
judges every timing failure: not judged (a skip with the figures) when other processes kept the machine busy,
a failure on a quiet machine.

A wait that a caller sizes itself (a keyword's ``timeout=0.5`` that a test gives to provoke a timeout) is the
caller's and is used as given. Every other wait in ``libraries/`` takes its figure from here: a pytest
(``tests/codebase/test_deadlines.py``) fails on a timeout written as a number anywhere else.
"""

from __future__ import annotations

import time

from llamatest.settings import deadline_scale

# Seconds on a quiet machine, by what is waited for.
QUIET_S: dict[str, float] = {
    # HTTP
    "exchange": 30.0,  # one request and its whole answer through a RequestsLibrary session
    "stream": 30.0,  # one streamed answer, from the request to its last event
    "probe": 5.0,  # a request that computes nothing (/health, /props, /v1/models, /slots, /metrics)
    "health_poll": 1.0,  # one /health request while a server starts
    "tokenize": 30.0,  # one /tokenize, /detokenize or /apply-template call while a dataset is prepared
    "sdk_call": 30.0,  # one openai or anthropic SDK call, streamed or not
    "batch": 60.0,  # a batch of concurrent requests, all of its answers
    "settle": 5.0,  # the slots and /metrics to show a batch's end once its requests ended
    "slots_idle": 10.0,  # the slots going idle after their requests ended or were cancelled
    "slot_freed": 3.0,  # a slot to be left once its client hung up (noticed between decode steps)
    "slots_poll": 2.0,  # each socket operation of one /slots or /metrics poll (answered between decode steps)
    # processes
    "server_start": 60.0,  # a llama-server from spawn to its first /health 200 (a model is loaded)
    "server_stop": 10.0,  # SIGTERM to exit, before SIGKILL
    "server_exit": 10.0,  # a server that was told to exit (or crashed) to be gone
    "kill": 5.0,  # after SIGKILL: the kernel ends a process at once; only a stuck D-state one waits
    "failed_start": 5.0,  # a start that failed: its process to exit after SIGTERM
    "command": 30.0,  # a short command line (llama-server --version, --help, a rejected flag)
    "peer_start": 120.0,  # a peer server (llama-cpp-python) from spawn to ready
    "peer_probe": 2.0,  # one readiness request to a peer server
    "peer_version": 60.0,  # a peer's Python asked for its version
    # fixtures and clients
    "fixture": 10.0,  # a call into an in-process fixture server's event loop, and its stop
    "fixture_shutdown": 1.0,  # a fixture server's open handlers to finish when it stops (then cancelled)
    "mcp_call": 30.0,  # one MCP client session: connect, initialize, one call
    "mcp_import": 30.0,  # the mcp SDK imported in the background, its client sessions ready (about a second)
    "mcp_stop": 10.0,  # an MCP fixture server to stop
    "mcp_exit": 5.0,  # MCP fixture processes to end after their server stopped
    "download": 120.0,  # one download of upstream's test list
    # load
    "load_probe": 10.0,  # the /props read before a load run
    "ray_actor": 60.0,  # a Ray worker's first answer
    "ray_margin": 30.0,  # added to a profile's own bound before the driver gives up on a worker
    "ray_exit": 5.0,  # local Ray processes to exit by themselves after ray.shutdown()
    "ray_term": 2.0,  # then after SIGTERM, before SIGKILL
    "ray_node_start": 60.0,  # one `ray start` of a test cluster's node, to its prompt (8 to 21 s seen here)
    "ray_worker_run": 120.0,  # a test cluster's load worker to begin its shard (its start and clock rounds)
    "drain": 30.0,  # a load profile's requests still open when its schedule ends
    "telemetry": 2.0,  # one /metrics or /slots scrape during a load run
    "charts": 60.0,  # a load run's charts from the chart workers (about 1 s; the first also imports matplotlib)
    "mass_disconnect": 120.0,  # the whole mass-disconnect check: streams, hang-ups, idle slots, follow-ups
    "replay": 600.0,  # a whole answer replay (bounded by its request count: this is a backstop)
}


def scaled(seconds: float) -> float:
    """``seconds`` picked on a quiet machine, as long as the machine and the user allow now (0.1 s steps)."""
    return round(float(seconds) * _machine_factor() * deadline_scale(), 1)


def _machine_factor() -> float:
    now = time.monotonic()
    if now - _factor[0] >= FACTOR_TTL_S:  # the sampler reads the machine once a second: so does this
        _factor[:] = [now, _read_machine_factor()]
    return _factor[1]


def _read_machine_factor() -> float:
    try:  # psutil is not there yet while run.py sets up the venv (bootstrap imports this, stdlib only)
        from llamatest import machine
    except ImportError:
        return 1.0
    return machine.deadline_factor()


FACTOR_TTL_S = 1.0
_factor: list[float] = [float("-inf"), 1.0]  # when it was read, the factor


def deadline(name: str) -> float:
    """The deadline ``name`` of `QUIET_S`, scaled now; an unknown name is a programming error."""
    if name not in QUIET_S:
        raise KeyError(f"no deadline named '{name}': add it to llamatest.deadlines.QUIET_S ({', '.join(QUIET_S)})")
    return scaled(QUIET_S[name])


def or_default(timeout: float | None, name: str) -> float:
    """A caller's own ``timeout`` as given, or without one the deadline ``name``."""
    return deadline(name) if timeout is None else float(timeout)
