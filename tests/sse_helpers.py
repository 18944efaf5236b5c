"""SSE text for the fixture servers of the unit tests (tests/conftest.py, tests/load/scripted_server.py)."""

from __future__ import annotations

import json
from typing import Any

DONE = "data: [DONE]\n\n"  # the OpenAI end-of-stream event


def sse(obj: Any) -> str:
    """One SSE event whose data is ``obj`` as JSON."""
    return f"data: {json.dumps(obj)}\n\n"
