"""The servers of the process by alias (llamatest.server.running): what the glue, the listener and the facades
find there with and without LlamaServerLibrary."""

from __future__ import annotations

import pytest

from llamatest.server import running
from llamatest.server.process import ServerPool


@pytest.fixture
def no_library(monkeypatch):
    monkeypatch.setattr(running, "_current", [])


def test_without_the_library_an_alias_says_why_and_has_no_headers_nor_target(no_library):
    with pytest.raises(running.NoServers, match="^no LlamaServerLibrary in this process"):
        running.url("suite")
    assert running.headers("suite") == {}
    assert running.capability_target("Suite") is None


def test_an_unknown_alias_names_the_running_ones(no_library):
    running.install(ServerPool())
    with pytest.raises(AssertionError, match=r"^no server with alias 'other' \(running: none\)$"):
        running.should_be_running("other")
    assert running.capability_target("Suite", "other") is None


def test_the_library_registers_its_pool_when_robot_creates_it(no_library):
    from LlamaServerLibrary import LlamaServerLibrary

    library = LlamaServerLibrary()
    assert running.pool() is library._pool
