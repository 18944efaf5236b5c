"""What llama.cpp's downloader left in a cache folder (``LLAMA_CACHE``), in the Hugging Face layout:
``models--OWNER--NAME/blobs/OID`` holds the bytes, ``snapshots/COMMIT/PATH`` links to the blob, and a
download under way is ``blobs/OID.downloadInProgress``."""

from pathlib import Path

PARTIAL_SUFFIX = ".downloadInProgress"


def repo_folder(cache: Path, repo_id: str) -> Path:
    """The folder of ``repo_id`` in ``cache``."""
    return cache / ("models--" + repo_id.replace("/", "--"))


def blobs(cache: Path, repo_id: str) -> dict[str, Path]:
    """The complete blobs of ``repo_id``: name -> path (partial downloads left out)."""
    folder = repo_folder(cache, repo_id) / "blobs"
    if not folder.is_dir():
        return {}
    return {p.name: p for p in folder.iterdir() if p.is_file() and not p.name.endswith(PARTIAL_SUFFIX)}


def partials(cache: Path, repo_id: str) -> list[Path]:
    """The partial downloads of ``repo_id``."""
    folder = repo_folder(cache, repo_id) / "blobs"
    return sorted(folder.glob("*" + PARTIAL_SUFFIX)) if folder.is_dir() else []


def snapshot_files(cache: Path, repo_id: str) -> dict[str, Path]:
    """The files of every snapshot of ``repo_id``: ``COMMIT/PATH`` -> path (a link to its blob)."""
    folder = repo_folder(cache, repo_id) / "snapshots"
    if not folder.is_dir():
        return {}
    return {str(p.relative_to(folder)): p for p in folder.rglob("*") if p.is_file() or p.is_symlink()}
