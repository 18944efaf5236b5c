"""The Robot side of a server's RequestsLibrary session (robot_glue): opening it, and its log lines at TRACE."""

from types import SimpleNamespace

from RequestsLibrary import log as requests_library_log

import robot_glue


def test_open_session_without_robot_does_nothing():
    robot_glue.open_session("suite", "http://127.0.0.1:1")


class Endless:
    """A streamed answer whose body never ends: reading ``text`` fails the test."""

    status_code = 200
    url = "http://127.0.0.1:8080/models/sse"
    request = SimpleNamespace(method="GET", url=url, headers={"Authorization": "Bearer sk-secret"}, body=None)
    history = []

    @property
    def text(self):
        raise AssertionError("the body of a streamed answer was read for the log")


def test_requests_library_lines_move_to_trace_without_reading_the_body_or_the_headers(monkeypatch):
    lines = []
    monkeypatch.setattr(robot_glue.logger, "trace", lines.append)
    monkeypatch.setattr(requests_library_log, "log_request", requests_library_log.log_request)
    monkeypatch.setattr(requests_library_log, "log_response", requests_library_log.log_response)
    robot_glue.move_requests_library_log_to_trace()
    requests_library_log.log_request(Endless())
    requests_library_log.log_response(Endless())
    assert lines == ["GET http://127.0.0.1:8080/models/sse", "GET http://127.0.0.1:8080/models/sse → 200"]
