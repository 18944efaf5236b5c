"""The servers of this process by alias: the pool LlamaServerLibrary fills, for the code that needs a server by name.

LlamaServerLibrary (one instance per robot process, scope GLOBAL) `install`s its pool here when Robot creates it.
The Robot glue (a server alias as a URL and its headers), CapabilityListener (the suite's server as a
capabilities target) and the other facades (is the server still running?) ask this module, not Robot for
another library's instance: no facade depends on another, and the lookup works without Robot.
"""

from __future__ import annotations

from llamatest import capabilities
from llamatest.server import target as _target
from llamatest.server.process import ServerPool, tail

SUITE = "suite"  # the default alias: the suite's own server

_current: list[ServerPool] = []  # at most one: the pool of the process's LlamaServerLibrary
_targets: dict[tuple, capabilities.Target] = {}  # (url, pid) -> what was discovered on a managed server


class NoServers(LookupError):
    """No LlamaServerLibrary in this process: no server has an alias."""


def install(pool: ServerPool) -> ServerPool:
    """Makes ``pool`` the servers of this process (a new library instance replaces the one before)."""
    _current[:] = [pool]
    _targets.clear()
    return pool


def pool() -> ServerPool:
    if not _current:
        raise NoServers("no LlamaServerLibrary in this process (the suite does not import it)")
    return _current[0]


def url(alias: str = SUITE) -> str:
    """The base URL of the running server ``alias``."""
    return pool().get(alias).url


def headers(alias: str = SUITE) -> dict:
    """The headers every request to ``alias`` needs (the external server's key); {} without servers."""
    try:
        return dict(pool().get(alias).headers)
    except NoServers:
        return {}


def should_be_running(alias: str = SUITE) -> None:
    """Fails if the server process has exited, showing its exit code and log tail."""
    server = pool().get(alias)
    code = server.exit_code()
    if code is not None:
        raise AssertionError(f"llama-server '{alias}' exited with code {code}:\n{tail(server.log, 20)}")


def capability_target(suite: str | None, alias: str = SUITE) -> capabilities.Target | None:
    """The server ``alias`` of ``suite`` as a capabilities target (discovered once per process and server);
    None when that suite has no such server, or no server at all."""
    if not _current or alias not in _current[0].aliases(suite):
        return None
    server = _current[0].get(alias)
    if server.external:
        return _target.external_target()
    key = (server.url, server.proc.pid)
    if key not in _targets:
        model = server.preset.model if server.preset else None
        _targets[key] = capabilities.Target(server.url, managed=True, model=model, flags=tuple(server.args[1:]))
    return _targets[key]
