"""The repositories the hub fixture serves: files, their commit, and what the hub's API says about them.

The JSON shapes are those llama.cpp's ``common/hf-cache.cpp`` reads: ``/api/models/REPO/refs`` gives the
``branches`` with their ``targetCommit``; ``/api/models/REPO/tree/COMMIT`` lists each file with its git
``oid``, ``size`` and ``lfs`` (``oid`` is the sha256 of the content, ``size`` its length)."""

import hashlib
from dataclasses import dataclass, field

FAULTS = ("none", "cut", "oid-mismatch", "silent")


@dataclass
class Repo:
    """One repository: ``files`` (path -> bytes) and a ``fault``:

    - ``none``: served as listed;
    - ``cut``: every download of a file sends its full ``Content-Length``, half the remaining bytes, then
      closes the connection;
    - ``oid-mismatch``: the tree lists the sha256 and size of other content than the bytes served;
    - ``silent``: no route of the repository ever answers.
    """
    repo_id: str
    files: dict[str, bytes]
    fault: str = "none"
    commit: str = field(init=False)

    def __post_init__(self) -> None:
        if self.fault not in FAULTS:
            raise ValueError(f"unknown fault '{self.fault}': one of {', '.join(FAULTS)}")
        digest = hashlib.sha1(self.repo_id.encode())
        for path in sorted(self.files):
            digest.update(path.encode() + hashlib.sha256(self.files[path]).digest())
        self.commit = digest.hexdigest()

    def listed_content(self, path: str) -> bytes:
        """The content the tree describes for ``path`` (not the served one under ``oid-mismatch``)."""
        content = self.files[path]
        return content + b"\0" if self.fault == "oid-mismatch" else content

    def refs(self) -> dict:
        """The body of ``/api/models/REPO/refs``."""
        return {"branches": [{"name": "main", "ref": "refs/heads/main", "targetCommit": self.commit}],
                "tags": [], "converts": []}

    def tree(self) -> list[dict]:
        """The body of ``/api/models/REPO/tree/COMMIT``."""
        items = []
        for path in sorted(self.files):
            listed = self.listed_content(path)
            git_oid = hashlib.sha1(b"blob %d\0" % len(listed) + listed).hexdigest()
            items.append({"type": "file", "path": path, "oid": git_oid, "size": len(listed),
                          "lfs": {"oid": sha256(listed), "size": len(listed), "pointerSize": 134}})
        return items


def sha256(content: bytes) -> str:
    """The hex sha256 of ``content``."""
    return hashlib.sha256(content).hexdigest()
