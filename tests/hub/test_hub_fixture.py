"""The hub fixture: the routes and JSON llama.cpp's downloader reads, the faults, and the cache checks."""

import hashlib

import pytest
import requests

from llamatest.hub import cache
from llamatest.hub.repos import Repo, sha256
from llamatest.hub.server import HubFixture

CONTENT = bytes(range(256)) * 40


@pytest.fixture
def hub():
    fixture = HubFixture()
    yield fixture
    fixture.stop()


def _resolve(hub: HubFixture, repo: Repo, path: str = "m-Q8_0.gguf") -> str:
    return f"{hub.url}{repo.repo_id}/resolve/{repo.commit}/{path}"


def test_refs_and_tree_describe_the_files(hub):
    repo = hub.add(Repo("o/r", {"m-Q8_0.gguf": CONTENT}))
    refs = requests.get(f"{hub.url}api/models/o/r/refs", timeout=5).json()
    assert refs["branches"][0] == {"name": "main", "ref": "refs/heads/main", "targetCommit": repo.commit}
    tree = requests.get(f"{hub.url}api/models/o/r/tree/{repo.commit}?recursive=true", timeout=5).json()
    git_oid = hashlib.sha1(b"blob %d\0" % len(CONTENT) + CONTENT).hexdigest()
    assert tree == [{"type": "file", "path": "m-Q8_0.gguf", "oid": git_oid, "size": len(CONTENT),
                     "lfs": {"oid": sha256(CONTENT), "size": len(CONTENT), "pointerSize": 134}}]


def test_resolve_serves_the_bytes_with_etag_and_ranges(hub):
    repo = hub.add(Repo("o/r", {"m-Q8_0.gguf": CONTENT}))
    head = requests.head(_resolve(hub, repo), timeout=5)
    assert head.headers["ETag"] == f'"{sha256(CONTENT)}"' and head.headers["Accept-Ranges"] == "bytes"
    assert int(head.headers["Content-Length"]) == len(CONTENT)
    assert requests.get(_resolve(hub, repo), timeout=5).content == CONTENT
    part = requests.get(_resolve(hub, repo), headers={"Range": "bytes=100-"}, timeout=5)
    assert part.status_code == 206 and part.content == CONTENT[100:]


def test_unknown_repo_commit_or_file_is_404(hub):
    repo = hub.add(Repo("o/r", {"m-Q8_0.gguf": CONTENT}))
    assert requests.get(f"{hub.url}api/models/o/none/refs", timeout=5).status_code == 404
    assert requests.get(f"{hub.url}api/models/o/r/tree/{'0' * 40}", timeout=5).status_code == 404
    assert requests.get(_resolve(hub, repo, "other.gguf"), timeout=5).status_code == 404


def test_cut_download_announces_everything_and_sends_half(hub):
    repo = hub.add(Repo("o/r", {"m-Q8_0.gguf": CONTENT}, fault="cut"))
    with pytest.raises(requests.exceptions.RequestException):
        requests.get(_resolve(hub, repo), timeout=5)


def test_oid_mismatch_lists_other_content_than_served(hub):
    repo = hub.add(Repo("o/r", {"m-Q8_0.gguf": CONTENT}, fault="oid-mismatch"))
    listed = repo.tree()[0]["lfs"]
    served = requests.get(_resolve(hub, repo), timeout=5).content
    assert served == CONTENT and listed["oid"] != sha256(served) and listed["size"] == len(CONTENT) + 1


def test_silent_repo_never_answers(hub):
    hub.add(Repo("o/r", {"m-Q8_0.gguf": CONTENT}, fault="silent"))
    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.get(f"{hub.url}api/models/o/r/refs", timeout=0.5)


def test_unknown_fault_is_refused():
    with pytest.raises(ValueError, match="unknown fault 'odd'"):
        Repo("o/r", {}, fault="odd")


def test_requests_are_recorded(hub):
    repo = hub.add(Repo("o/r", {"m-Q8_0.gguf": CONTENT}))
    requests.get(_resolve(hub, repo), headers={"Range": "bytes=5-"}, timeout=5)
    assert hub.requests[-1] == {"method": "GET", "path": f"/o/r/resolve/{repo.commit}/m-Q8_0.gguf",
                                "range": "bytes=5-"}


def test_cache_reads_blobs_partials_and_snapshots(tmp_path):
    folder = cache.repo_folder(tmp_path, "o/r")
    (folder / "blobs").mkdir(parents=True)
    (folder / "snapshots" / "c").mkdir(parents=True)
    (folder / "blobs" / "abc").write_bytes(b"x")
    (folder / "blobs" / "def.downloadInProgress").write_bytes(b"y")
    (folder / "snapshots" / "c" / "m.gguf").symlink_to(folder / "blobs" / "abc")
    assert folder.name == "models--o--r"
    assert list(cache.blobs(tmp_path, "o/r")) == ["abc"]
    assert [p.name for p in cache.partials(tmp_path, "o/r")] == ["def.downloadInProgress"]
    assert list(cache.snapshot_files(tmp_path, "o/r")) == ["c/m.gguf"]
    assert cache.blobs(tmp_path, "o/none") == {} and cache.snapshot_files(tmp_path, "o/none") == {}
