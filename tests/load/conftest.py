"""Fixtures of the load tests: the scripted SSE server (tests/fixtures/scripted_server.py), in a process of its own."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.fixtures import scripted_server, workload_server


class Scripted:
    """The running scripted server: its base URL and the times it wrote each request's steps."""

    def __init__(self, url: str) -> None:
        self.url = url

    def stamps(self, request_id: str) -> dict:
        with urllib.request.urlopen(f"{self.url}/stamps/{request_id}", timeout=5) as resp:
            return json.loads(resp.read())


@pytest.fixture(scope="session")
def scripted():
    url, proc = scripted_server.start()
    yield Scripted(url)
    proc.terminate()
    proc.join(5)


@pytest.fixture(scope="session")
def workloads_url():
    """The base URL of the workload fixture server (see tests/fixtures/workload_server.py), in a process of its own."""
    url, proc = workload_server.start()
    yield url
    proc.terminate()
    proc.join(5)


@pytest.fixture(autouse=True, scope="session")
def quiet_machine():
    """Load runs here see a quiet machine: the flag machine_busy depends on what else runs meanwhile (tested on
    hand-built runs in test_load_validity.py), and the library tests must not skip on a busy machine. Session
    scope: the runs of session fixtures are made before any function fixture."""
    import types

    from llamatest import machine

    quiet = types.SimpleNamespace(sample=machine.sample,
                                  share_between=lambda a, b: machine.Share(cores=0.0, seconds=b.t - a.t, ours=0.5))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("llamatest.load.pipeline.machine", quiet)  # the pipeline's view only, not the module's
        yield
