"""The server under test: the managed servers the suites start, or an external deployment.

With ``$LLAMA_SERVER_URL`` set, that server is the target: a suite's own server (alias ``suite``) is
bound to it and no managed server is started, unless ``$LLAMATEST_ALSO_MANAGED`` (``run.py
--also-managed``) lets a suite that cannot run there start its own. ``$LLAMATEST_API_KEY`` is the
external server's key (sent as ``Authorization: Bearer``; never ``LLAMA_API_KEY``, which every
managed llama-server would read itself). `check_external` is what run.py checks before robot starts.

No Robot Framework here: the facade wraps the key in a Robot ``Secret``.
"""

from __future__ import annotations

import os
from pathlib import Path

import requests

from llamatest import capabilities, deadlines
from llamatest.settings import ENV_ALSO_MANAGED, ENV_API_KEY, ENV_SERVER_URL
from llamatest.textutil import join_url

LLAMA_SERVER_PROPS = ("build_info", "default_generation_settings")

_suite_needs: dict[str, set[str]] = {}  # suite full name -> the needs of its tests' tags (the listener's)
_external: dict[str, capabilities.Target] = {}  # one per URL: discovered once per run


class Unavailable(Exception):
    """The external target lacks what a suite's server must have, and no managed server may be started."""


def external_url() -> str:
    return os.environ.get(ENV_SERVER_URL, "").strip().rstrip("/")


def also_managed() -> bool:
    return os.environ.get(ENV_ALSO_MANAGED, "").strip().lower() in ("1", "true", "yes")


def api_key() -> str:
    return os.environ.get(ENV_API_KEY, "")


def auth_headers(key: str | None = None) -> dict:
    """``Authorization: Bearer KEY`` for the external server; {} without a key."""
    key = api_key() if key is None else key
    return {"Authorization": f"Bearer {key}"} if key else {}


def external_target() -> capabilities.Target | None:
    """The external server as a capabilities target (one per URL), None without ``$LLAMA_SERVER_URL``."""
    url = external_url()
    if not url:
        return None
    if url not in _external:
        _external[url] = capabilities.Target(url, auth_headers(), managed=False)
    return _external[url]


def managed_allowed() -> bool:
    """Whether a suite may start a managed server: always without an external target, else if asked."""
    return not external_url() or also_managed()


def plan_suite(suite: str, needs: set[str]) -> None:
    """Records what the tests of ``suite`` need by their tags (the listener does, when the suite starts)."""
    _suite_needs[suite] = set(needs)


def choose(suite_server: bool, needs: list[str], suite: str | None) -> capabilities.Target | None:
    """The external target a server should use, or None to start a managed one.

    Only a suite's own server (``suite_server``) is ever bound to the external target. Without
    --also-managed it always is, and raises Unavailable with the skip reason when the target lacks one
    of ``needs`` (what the server's flags give). With --also-managed it is bound only when the target
    has those and everything the suite's tests need; otherwise the suite starts its own.
    """
    external = external_target()
    if external is None or not suite_server:
        return None
    if not also_managed():
        reason = capabilities.missing(external, needs)
        if reason:
            raise Unavailable(reason)
        return external
    wanted = [*needs, *sorted(_suite_needs.get(suite or "", set()))]
    return external if capabilities.missing(external, wanted) is None else None


def check_external(url: str, key: str, timeout: float | None = None) -> None:
    """Raises ValueError with one line when ``url`` (already answering /health) is not a usable llama-server.

    A key the server refuses (401 on ``GET /v1/models``, which needs it), a server that wants a key
    and got none, and a server whose ``GET /props`` is not llama-server's JSON.
    """
    headers = auth_headers(key)
    try:
        timeout = deadlines.or_default(timeout, "probe")
        models = requests.get(join_url(url, "/v1/models"), headers=headers, timeout=timeout)
        props = requests.get(join_url(url, "/props"), headers=headers, timeout=timeout)
    except requests.RequestException as exc:
        raise ValueError(f"{ENV_SERVER_URL}={url}: no answer: {type(exc).__name__}") from None
    if models.status_code == 401:
        if key:
            raise ValueError(f"{ENV_SERVER_URL}={url} refuses {ENV_API_KEY} (401 on GET /v1/models): "
                             f"give the key the server was started with (--api-key)")
        raise ValueError(f"{ENV_SERVER_URL}={url} wants an API key (401 on GET /v1/models): "
                         f"set {ENV_API_KEY}")
    if not _is_llama_server_props(props):
        raise ValueError(f"{ENV_SERVER_URL}={url} is not a llama-server: GET /props answers "
                         f"{props.status_code} without {' or '.join(LLAMA_SERVER_PROPS)}")


def files_holding(folder: Path, data: bytes) -> list[str]:
    """The names of the files under ``folder``, at any depth, whose bytes contain ``data`` (where a key must
    never be written: the output folder)."""
    return [path.name for path in folder.rglob("*") if path.is_file() and data in path.read_bytes()]


def _is_llama_server_props(resp: requests.Response) -> bool:
    try:
        body = resp.json()
    except ValueError:
        return False
    return resp.status_code == 200 and isinstance(body, dict) and any(k in body for k in LLAMA_SERVER_PROPS)
