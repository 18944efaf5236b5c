"""Fixtures of the load tests: the scripted SSE server (see scripted_server.py), in a process of its own."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.load import scripted_server


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
