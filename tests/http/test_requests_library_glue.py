"""The Robot side of a server's RequestsLibrary session (robot_glue): opening it, and its log lines at TRACE."""

from robot.result import Message

import robot_glue
from robot_glue import REQUESTS_LIBRARY_LOG_TO_TRACE

REQUEST_LINE = ("POST Request : url=http://127.0.0.1:8080/completion \n path_url=/completion \n "
                "headers={'Authorization': 'Bearer sk-secret'} \n body=b'{\"prompt\": \"status=1,\"}' \n ")
RESPONSE_LINE = ("POST Response : url=http://127.0.0.1:8080/completion \n status=200, reason=OK \n "
                 "headers={'Content-Type': 'application/json'} \n body={\"content\": \"x\"} \n ")


def test_open_session_without_robot_does_nothing():
    robot_glue.open_session("suite", "http://127.0.0.1:1")


def logged(text: str, level: str = "INFO", html: bool = False) -> Message:
    message = Message(text, level, html=html)
    REQUESTS_LIBRARY_LOG_TO_TRACE.log_message(message)
    return message


def test_requests_library_lines_move_to_trace_as_one_line_without_headers():
    request, response = logged(REQUEST_LINE), logged(RESPONSE_LINE)
    assert (request.level, request.message) == ("TRACE", "POST http://127.0.0.1:8080/completion")
    assert (response.level, response.message) == ("TRACE", "POST http://127.0.0.1:8080/completion → 200")


def test_other_messages_are_left_as_they_were():
    for text, level, html in [("Creating Session using : alias=suite, url=http://x", "INFO", False),
                              (REQUEST_LINE, "WARN", False), (REQUEST_LINE, "INFO", True)]:
        message = logged(text, level, html)
        assert (message.message, message.level) == (text, level)
