"""Fixtures of the concurrency tests: a fresh fake llama-server (see tests/fixtures/fake_llama_slots.py) per test."""

import uuid

import pytest


@pytest.fixture
def fake(server):
    """Base URL of a fake two-slot llama-server of this test's own."""
    return f"{server}/fake/{uuid.uuid4().hex}"
