"""Sanitizer reports are found in a server log and quoted; ordinary logs have none."""

import pytest

from llamatest.server.sanitizer import QUOTE_LINES, report_in

ASAN = """0.00.001 I srv  llama_server: initializing
=================================================================
==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010
READ of size 4 at 0x602000000010 thread T0
    #0 0x55 in server_context::update_slots() server.cpp:123
"""


@pytest.mark.parametrize("text, first_line", [
    (ASAN, "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010"),
    ("x\n==7==ERROR: LeakSanitizer: detected memory leaks\n", "==7==ERROR: LeakSanitizer: detected memory leaks"),
    ("WARNING: ThreadSanitizer: data race (pid=9)\n", "WARNING: ThreadSanitizer: data race (pid=9)"),
    ("ggml.c:77:5: runtime error: signed integer overflow\n", "ggml.c:77:5: runtime error: signed integer overflow"),
])
def test_reports_are_found_and_quoted_from_their_first_line(tmp_path, text, first_line):
    log = tmp_path / "s.srvlog"
    log.write_text(text)
    assert report_in(log).splitlines()[0] == first_line


def test_quote_is_bounded(tmp_path):
    log = tmp_path / "s.srvlog"
    log.write_text(ASAN + "    #9 frame\n" * 100)
    assert len(report_in(log).splitlines()) == QUOTE_LINES


def test_clean_or_missing_logs_have_no_report(tmp_path):
    log = tmp_path / "s.srvlog"
    log.write_text("main: server is listening on http://127.0.0.1:8080\nerror: the runtime was fine\n")
    assert report_in(log) is None
    assert report_in(tmp_path / "missing.srvlog") is None
    assert report_in(None) is None
