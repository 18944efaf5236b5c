"""RequestsLibrary sessions for llama-servers: one per server alias, with a whole-exchange deadline."""

from __future__ import annotations


def open_session(alias: str, url: str, timeout: float = 30.0) -> None:
    """Creates (or replaces) the RequestsLibrary session ``alias`` for the server at ``url``.

    Does nothing when Robot Framework is not running or RequestsLibrary is not imported.
    """
