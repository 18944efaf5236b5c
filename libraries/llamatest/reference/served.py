"""What the reference needs to know about a server: the file of its model and the adapters it applies.

Asked of the server itself (``GET /props``: ``model_path``; ``GET /lora-adapters``: each adapter's path and
global scale), so a managed server and an external one started with our file are treated alike. A request's
own ``lora`` field replaces the global scales for that request (server README, "lora"), as it does here.
"""

from __future__ import annotations

from collections.abc import Sequence

import requests

from llamatest import deadlines
from llamatest.textutil import join_url


def _get(url: str, path: str, headers: dict):
    resp = requests.get(join_url(url, path), headers=headers, timeout=deadlines.deadline("probe"))
    resp.raise_for_status()
    return resp.json()


def model_path(url: str, headers: dict) -> str:
    """The server's model file, as its ``/props`` says."""
    path = _get(url, "/props", headers).get("model_path")
    if not path:
        raise AssertionError(f"{url}/props has no model_path: the reference cannot know the model")
    return str(path)


def adapters(url: str, headers: dict, request_lora: Sequence[dict] | None = None) -> tuple[tuple[str, float], ...]:
    """(file, scale) of every adapter the server applies: the global scales, or the request's ``lora`` list
    (id and scale; an adapter it leaves out is off for that request)."""
    try:
        listed = _get(url, "/lora-adapters", headers)
    except requests.HTTPError:
        return ()  # a server without the route applies none
    if request_lora is not None:
        scales = {int(item["id"]): float(item["scale"]) for item in request_lora}
        return tuple((item["path"], scales.get(int(item["id"]), 0.0)) for item in listed)
    return tuple((item["path"], float(item["scale"])) for item in listed)
