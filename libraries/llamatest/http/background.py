"""A request that takes seconds, sent from a thread of its own so that other tests run while it waits.

A folder set-up begins it (`post_in_background`), the test that checks it takes its answer (`background_answer`),
and a teardown ends it (`stop_background_post`), after ending what the request waits for (the fixture, the
server), so that its thread is done. Robot imports this module as a library: the names in ``__all__`` are its
keywords. Requests are keyed by a name, one at a time per name.
"""

from __future__ import annotations

import threading

import requests

from llamatest import deadlines

__all__ = ["post_in_background", "background_post_was_begun", "background_answer", "stop_background_post"]


class BackgroundPost:
    """One POST of a JSON body from a daemon thread; its response, or the error that ended it, kept for `answer`."""

    def __init__(self, name: str, url: str, body: dict, headers: dict | None = None) -> None:
        self._url, self._body, self._headers = url, body, headers
        self._outcome: requests.Response | BaseException | None = None
        self._thread = threading.Thread(target=self._post, name=f"background-post-{name}", daemon=True)
        self._thread.start()

    def _post(self) -> None:
        try:
            self._outcome = requests.post(self._url, json=self._body, headers=self._headers,
                                          timeout=deadlines.deadline("exchange"))
        except requests.RequestException as error:  # kept for the test, which reports it
            self._outcome = error

    def answer(self, timeout: float) -> requests.Response:
        """The response, waited for up to ``timeout`` s; fails if none came by then or the request failed."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise AssertionError(f"no answer from POST {self._url} within {timeout:.1f} s of waiting")
        if isinstance(self._outcome, BaseException):
            raise AssertionError(f"POST {self._url} failed: {self._outcome}")
        return self._outcome

    def join(self) -> bool:
        """Waits for the thread (the ``fixture`` deadline); True when it ended."""
        self._thread.join(deadlines.deadline("fixture"))
        return not self._thread.is_alive()


_posts: dict[str, BackgroundPost] = {}


def post_in_background(name: str, url: str, body: dict, headers: dict | None = None) -> None:
    """POSTs ``body`` (JSON) to ``url``, with the ``headers`` if any, from a thread of its own and returns at once;
    `Background Answer` takes the response. Fails if a request ``name`` was begun and not stopped."""
    if name in _posts:
        raise AssertionError(f"a background request '{name}' is already begun: stop it first")
    _posts[name] = BackgroundPost(name, url, body, headers)


def background_post_was_begun(name: str) -> bool:
    """True when a request ``name`` was begun and is not stopped yet."""
    return name in _posts


def background_answer(name: str) -> requests.Response:
    """The response to the request ``name``, waited for up to the ``exchange`` deadline from now."""
    if name not in _posts:
        raise AssertionError(f"no background request '{name}' was begun")
    return _posts[name].answer(deadlines.deadline("exchange"))


def stop_background_post(name: str) -> None:
    """Forgets the request ``name`` once its thread ended (end first what it waits for); nothing if none was
    begun. Fails if the thread goes on past the ``fixture`` deadline."""
    post = _posts.pop(name, None)
    if post is not None and not post.join():
        raise AssertionError(f"the background request '{name}' still runs: what it waits for was not ended")
