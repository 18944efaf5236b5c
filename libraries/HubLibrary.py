"""A local Hugging Face hub for llama.cpp's downloader (``MODEL_ENDPOINT``), and the cache it fills."""

from pathlib import Path

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest.hub import cache as _cache
from llamatest.hub.repos import Repo, sha256
from llamatest.hub.server import HubFixture
from llamatest.models.catalog import resolve_model


@library(scope="GLOBAL", auto_keywords=False)
class HubLibrary:
    """Serves repositories of our models on 127.0.0.1 the way the hub's file routes do (refs, tree, resolve
    with ETag and Range), with faults on demand (see `Serve Repo`), and checks what a download left in a
    cache folder. Nothing leaves the machine: llama-server is pointed at the fixture by ``MODEL_ENDPOINT``.

    Fixtures are kept by name: a suite's own (``suite``, the default) and those a set-up keeps for cases of
    their own that other suites watch (``downloader-waits``, see resources/early_cases.resource).
    """

    def __init__(self) -> None:
        self._hubs: dict[str, HubFixture] = {}

    @keyword("Start Hub Fixture")
    def start_hub_fixture(self, name: str = "suite") -> str:
        """Starts the fixture ``name`` (one left running under that name is stopped first); returns its
        endpoint URL (ends with ``/``)."""
        self.stop_hub_fixture(name)
        self._hubs[name] = HubFixture()
        return self._hubs[name].url

    @keyword("Stop Hub Fixture")
    def stop_hub_fixture(self, name: str = "suite") -> None:
        """Stops the fixture ``name``, if it runs."""
        hub = self._hubs.pop(name, None)
        if hub is not None:
            hub.stop()

    @keyword("Hub Fixture Is Running")
    def hub_fixture_is_running(self, name: str = "suite") -> bool:
        """True when the fixture ``name`` was started and not stopped since."""
        return name in self._hubs

    @keyword("Serve Repo")
    def serve_repo(self, repo_id: str, fault: str = "none", hub: str = "suite", **files: str) -> str:
        """Serves ``repo_id`` on the fixture ``hub`` with ``files`` (``PATH=MODEL``, a ModelLibrary name) and
        ``fault``: ``none``, ``cut`` (every download drops the connection half-way), ``oid-mismatch`` (the tree
        lists another sha256 and size than the bytes served) or ``silent`` (no answer, ever). Returns the commit."""
        content = {path: resolve_model(model).read_bytes() for path, model in files.items()}
        return self._hub(hub).add(Repo(repo_id, content, fault=fault)).commit

    @keyword("Hub Request Count")
    def hub_request_count(self, method: str, path_contains: str = "", hub: str = "suite") -> int:
        """How many ``method`` requests the fixture ``hub`` got on a path that contains ``path_contains``."""
        return sum(1 for r in self._hub(hub).requests if r["method"] == method and path_contains in r["path"])

    def _hub(self, name: str) -> HubFixture:
        if name not in self._hubs:
            raise AssertionError(f"the hub fixture '{name}' is not running: call Start Hub Fixture first")
        return self._hubs[name]

    @keyword("Cached Model Should Be")
    def cached_model_should_be(self, cache: str, repo_id: str, path: str, model: str) -> None:
        """The cache holds ``repo_id``'s ``path`` complete: one blob named by the sha256 of the ModelLibrary
        ``model``, with its exact bytes, a snapshot link to it, and no partial download."""
        expected = resolve_model(model).read_bytes()
        blobs = _cache.blobs(Path(cache), repo_id)
        name = sha256(expected)
        if list(blobs) != [name]:
            raise AssertionError(f"blobs of {repo_id} are {sorted(blobs)}, expected only {name}")
        if blobs[name].read_bytes() != expected:
            raise AssertionError(f"blob {name} does not hold the bytes of '{model}'")
        links = [p for key, p in _cache.snapshot_files(Path(cache), repo_id).items() if key.endswith("/" + path)]
        if len(links) != 1 or links[0].resolve() != blobs[name].resolve():
            raise AssertionError(f"snapshot files {links} of {path} do not link to blob {name}")
        self.cache_should_hold_no_partial_download(cache, repo_id)

    @keyword("Cache Should Hold No Complete Model")
    def cache_should_hold_no_complete_model(self, cache: str, repo_id: str) -> None:
        """The cache holds no complete blob and no snapshot file of ``repo_id`` (a partial may remain)."""
        blobs = _cache.blobs(Path(cache), repo_id)
        snapshots = _cache.snapshot_files(Path(cache), repo_id)
        if blobs or snapshots:
            raise AssertionError(f"{repo_id} left blobs {sorted(blobs)} and snapshot files {sorted(snapshots)}")

    @keyword("Cache Should Hold No Partial Download")
    def cache_should_hold_no_partial_download(self, cache: str, repo_id: str) -> None:
        """No ``.downloadInProgress`` file of ``repo_id`` remains."""
        left = _cache.partials(Path(cache), repo_id)
        if left:
            raise AssertionError(f"partial downloads left: {[p.name for p in left]}")

    @keyword("Partial Download Sizes")
    def partial_download_sizes(self, cache: str, repo_id: str) -> list[int]:
        """The sizes of ``repo_id``'s partial downloads (``.downloadInProgress``), in name order."""
        sizes = [p.stat().st_size for p in _cache.partials(Path(cache), repo_id)]
        logger.info(f"partial downloads of {repo_id}: {sizes}")
        return sizes

    @keyword("Cached Blobs")
    def cached_blobs(self, cache: str, repo_id: str) -> dict[str, str]:
        """The complete blobs of ``repo_id``: name -> sha256 of the content."""
        return {name: sha256(p.read_bytes()) for name, p in _cache.blobs(Path(cache), repo_id).items()}
