"""The working folder of every process a test starts: a new folder of the system's temporary folder.

A process inherits the working folder of whoever starts it, and run.py runs in the checkout: whatever a
server writes relative to its working folder would land in the user's work tree. Build 9905, which ignores
the ``x-tool-cwd`` header, ran the built-in tools there and left ``a/b/out.txt`` and ``ran`` in the
repository (issue 25). So every llama-server, peer server, MCP fixture and command a keyword runs starts in a
folder of its own, ``llamatest-NAME-XXXXXXXX`` under the system's temporary folder, which is removed when the
process is stopped (and by run.py's sweep when a killed run could not).

Stdlib only: the pid registry's sweep (run.py, before any dependency is installed) removes these folders too.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PREFIX = "llamatest-"


def file_name_part(text: str) -> str:
    """``text`` with every character that is not safe in a file name replaced by ``_``."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


def create(name: str) -> Path:
    """A new empty folder ``llamatest-NAME-XXXXXXXX`` of the system's temporary folder."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{file_name_part(name)}-"))


def is_own(folder: str | Path) -> bool:
    """True for a folder `create` makes: directly in the temporary folder, its name starting with the prefix."""
    path = Path(folder)
    return path.name.startswith(PREFIX) and path.parent == Path(tempfile.gettempdir())


def remove(folder: str | Path | None) -> None:
    """Removes ``folder`` with whatever the process wrote in it. Anything but a folder of `create` is left alone:
    the path may come from a registry file, and a wrong one must never delete a user's folder."""
    if folder is not None and is_own(folder):
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def own_folder(name: str) -> Iterator[Path]:
    """A folder of `create` for the ``with`` block, removed after it."""
    folder = create(name)
    try:
        yield folder
    finally:
        remove(folder)
