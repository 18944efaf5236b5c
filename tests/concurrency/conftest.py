"""Fixtures of the concurrency tests: a fresh fake llama-server (see fake_llama.py) per test."""

import uuid

import pytest


@pytest.fixture
def fake(server):
    """Base URL of a fake two-slot llama-server of this test's own."""
    return f"{server}/fake/{uuid.uuid4().hex}"
