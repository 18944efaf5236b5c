"""The hub fixture: an aiohttp server on 127.0.0.1 (port 0) in a thread, serving `Repo` objects.

Routes (what llama.cpp's downloader asks for): ``GET /api/models/OWNER/NAME/refs``,
``GET /api/models/OWNER/NAME/tree/COMMIT``, ``HEAD``/``GET /OWNER/NAME/resolve/COMMIT/PATH`` (with
``ETag``, ``Accept-Ranges`` and ``Range``). Every request is recorded."""

import asyncio

from aiohttp import web

from ..http.loopback import LoopbackApp
from .repos import Repo, sha256

SILENT_S = 600.0  # longer than any test: a silent route is cancelled when the fixture stops


class HubFixture:
    """Serves ``repos`` (repo id -> `Repo`); ``url`` is the endpoint to give as ``MODEL_ENDPOINT``."""

    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.requests: list[dict] = []
        app = web.Application(middlewares=[self._record])
        app.router.add_get("/api/models/{owner}/{name}/refs", self._refs)
        app.router.add_get("/api/models/{owner}/{name}/tree/{commit}", self._tree)
        app.router.add_get("/{owner}/{name}/resolve/{commit}/{path:.+}", self._resolve)
        self._server = LoopbackApp(app, "hub-fixture")
        self.url = self._server.url + "/"

    def add(self, repo: Repo) -> Repo:
        """Serves ``repo`` (replacing one of the same id)."""
        self.repos[repo.repo_id] = repo
        return repo

    def stop(self) -> None:
        """Stops serving (silent routes are cancelled) and ends the thread."""
        self._server.stop()

    @web.middleware
    async def _record(self, request: web.Request, handler):
        self.requests.append({"method": request.method, "path": request.path,
                              "range": request.headers.get("Range")})
        return await handler(request)

    async def _repo(self, request: web.Request) -> Repo:
        repo = self.repos.get(f"{request.match_info['owner']}/{request.match_info['name']}")
        if repo is None:
            raise web.HTTPNotFound(text='{"error": "Repository not found"}', content_type="application/json")
        if repo.fault == "silent":
            await asyncio.sleep(SILENT_S)
        return repo

    async def _refs(self, request: web.Request) -> web.Response:
        return web.json_response((await self._repo(request)).refs())

    async def _tree(self, request: web.Request) -> web.Response:
        repo = await self._repo(request)
        if request.match_info["commit"] != repo.commit:
            raise web.HTTPNotFound(text='{"error": "Invalid rev id"}', content_type="application/json")
        return web.json_response(repo.tree())

    async def _resolve(self, request: web.Request) -> web.StreamResponse:
        repo = await self._repo(request)
        content = repo.files.get(request.match_info["path"])
        if content is None or request.match_info["commit"] != repo.commit:
            raise web.HTTPNotFound(text='{"error": "Entry not found"}', content_type="application/json")
        headers = {"ETag": f'"{sha256(repo.listed_content(request.match_info["path"]))}"',
                   "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"}
        start = _range_start(request.headers.get("Range"))
        if request.method == "HEAD" or repo.fault != "cut":
            status = 206 if start else 200
            return web.Response(body=content[start:], status=status, headers=headers)
        return await _cut(request, content, start, headers)


def _range_start(header: str | None) -> int:
    """The first byte of a ``Range: bytes=N-`` header; 0 without one."""
    if not header or not header.startswith("bytes="):
        return 0
    return int(header[len("bytes="):].split("-", 1)[0] or 0)


async def _cut(request: web.Request, content: bytes, start: int, headers: dict) -> web.StreamResponse:
    """Announces every remaining byte, sends half of them, then drops the connection."""
    remaining = content[start:]
    resp = web.StreamResponse(status=206 if start else 200, headers=headers)
    resp.content_length = len(remaining)
    await resp.prepare(request)
    await resp.write(remaining[:len(remaining) // 2])
    request.transport.close()
    return resp
