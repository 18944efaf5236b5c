"""The fuzz run against the local fixture server: loopback only, its bounds, the summary and its log table."""

import time

import pytest

from FuzzLibrary import FuzzLibrary
from llamatest.fuzz.report import findings, summary_html, summary_line
from llamatest.fuzz.run import FuzzTargetRefused, check_loopback, fuzz

BODY = {"prompt": "hello", "n_predict": 4, "stop": ["\n"]}
PROMPT_5XX = ("prompt must be a string",)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080", "http://127.9.9.9/x", "http://localhost:1/",
                                 "http://LOCALHOST:1", "http://[::1]:9/completion"])
def test_loopback_urls_are_accepted(url):
    assert check_loopback(url) == url


@pytest.mark.parametrize(("url", "host"), [
    ("http://example.com/completion", "example.com"),
    ("http://10.0.0.1:8080", "10.0.0.1"),
    ("http://0.0.0.0:8080", "0.0.0.0"),
    ("http://127.0.0.1.nip.io/", "127.0.0.1.nip.io"),
    ("http://127.0.0.1@example.com/", "example.com"),
    ("http://localhost.example.com/", "localhost.example.com"),
    ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
    ("http://[::2]/", "::2"),
    ("completion", "a URL without a host"),
])
def test_other_hosts_are_refused_with_a_clear_error(url, host):
    with pytest.raises(FuzzTargetRefused) as info:
        check_loopback(url)
    assert str(info.value) == (f"refusing to fuzz {url}: the fuzzer sends only to loopback hosts "
                               f"(127.0.0.0/8, localhost, ::1), not to {host}")


def test_a_refused_host_gets_no_request(monkeypatch):
    import llamatest.fuzz.run as module

    monkeypatch.setattr(module, "send", lambda *args: pytest.fail("a request was sent"))
    with pytest.raises(FuzzTargetRefused):
        fuzz("http://192.0.2.1/completion", BODY, count=5)


def test_count_bound_and_statuses(server):
    summary = fuzz(server + "/validate", BODY, count=60, seed=1, documented_5xx=PROMPT_5XX)
    assert summary.sent == 60 and summary.stopped_by == "count"
    assert sum(summary.statuses.values()) == 60
    assert set(summary.statuses) <= {"200", "400", "500"} and summary.statuses["400"] > 0
    assert summary.undocumented_5xx == []
    assert summary.known_5xx and all(o.message == "prompt must be a string" for o in summary.known_5xx)
    assert summary.hangs == [] and summary.transport_errors == []
    assert 0 < summary.elapsed < 10


def test_the_same_seed_gets_the_same_answers(server):
    def answers(seed):
        return [(o.mutation.data, o.status) for o in fuzz(server + "/validate", BODY, count=40, seed=seed).outcomes]

    assert answers(3) == answers(3)
    assert answers(3) != answers(4)


def test_a_5xx_without_a_documented_text_is_a_finding(server):
    summary = fuzz(server + "/validate", BODY, count=60, seed=1)
    assert summary.known_5xx == []
    assert summary.undocumented_5xx and all(o.status == 500 for o in summary.undocumented_5xx)
    assert all(o.error_type == "server_error" for o in summary.undocumented_5xx)


def test_a_server_that_never_answers_is_stopped_by_the_deadlines(server):
    start = time.perf_counter()
    summary = fuzz(server + "/hang", BODY, count=100, max_seconds=0.5, timeout=0.2)
    assert time.perf_counter() - start < 1.5
    assert summary.stopped_by == "time" and 1 <= summary.sent <= 4
    assert summary.hangs == summary.outcomes
    assert {o.failure for o in summary.hangs} == {"no answer within 0.2 s"}
    assert dict(summary.statuses) == {"no answer": summary.sent}


def test_a_refused_connection_ends_the_run(closed_port_url):
    summary = fuzz(closed_port_url + "/completion", BODY, count=100)
    assert summary.sent == 1 and summary.stopped_by == "server gone"
    assert [o.failure for o in summary.transport_errors] == ["connection refused"]


def test_a_reset_connection_is_a_transport_error(server):
    summary = fuzz(server + "/reset", BODY, count=3)
    assert summary.sent == 3 and summary.stopped_by == "count"
    assert [o.failure for o in summary.transport_errors] == ["connection reset"] * 3


@pytest.mark.parametrize("bounds", [{"count": -1}, {"max_seconds": 0}, {"timeout": 0}])
def test_bounds_must_make_sense(server, bounds):
    with pytest.raises(ValueError):
        fuzz(server + "/validate", BODY, **bounds)


# ----- the log table, the failure lines, the facade -----


def test_summary_line_table_and_findings(server):
    summary = fuzz(server + "/validate", BODY, count=30, seed=1, documented_5xx=PROMPT_5XX)
    line = summary_line(summary)
    assert line.startswith(f"fuzz POST {server}/validate: 30 of 30 mutated requests in ")
    assert "(seed 1): " in line and "× 400" in line
    assert repr(summary).startswith(f"<fuzz summary: 30 of 30 requests to {server}/validate in ")
    markup = summary_html(summary)
    assert markup.count("<table") == 1 and markup.startswith("<details><summary>")
    assert "500 (documented)" in markup and "server_error: prompt must be a string" in markup
    lines = findings(summary.known_5xx, limit=1).splitlines()
    assert lines[0].startswith(f"#{summary.known_5xx[0].mutation.index} (")
    assert " 500 server_error: prompt must be a string — body " in lines[0]
    assert len(lines) == 2 and lines[1].startswith("… and ")


def test_hostile_text_in_the_table_is_escaped(server):
    summary = fuzz(server + "/validate", {"prompt": "<script>x</script>"}, count=20, seed=2)
    assert "<script>" not in summary_html(summary)


def test_facade_logs_one_table_and_its_checks_pass(server, logged):
    lib = FuzzLibrary()
    summary = lib.fuzz_requests("/validate", BODY, count=40, seed=1, server=server,
                                documented_5xx=list(PROMPT_5XX))
    assert summary.sent == 40 and summary.server is None
    assert len(logged) == 1 and logged[0][1] and logged[0][0].count("<table") == 1
    lib.fuzz_should_find_no_undocumented_5xx(summary)
    lib.fuzz_should_not_hang(summary)
    lib.fuzz_should_not_crash_the_server(summary)


def test_facade_checks_fail_with_the_findings(server, closed_port_url):
    lib = FuzzLibrary()
    summary = lib.fuzz_requests("/validate", BODY, count=40, seed=1, server=server)
    with pytest.raises(AssertionError, match=r"^\d+ of 40 mutated requests got an undocumented 5xx \(seed 1\):\n#"):
        lib.fuzz_should_find_no_undocumented_5xx(summary)
    hung = lib.fuzz_requests("/hang", BODY, count=2, server=server, timeout=0.2)
    with pytest.raises(AssertionError, match=r"^2 of 2 mutated requests got no answer within 0.2 s .*\n#0 \("):
        lib.fuzz_should_not_hang(hung)
    gone = lib.fuzz_requests("/completion", BODY, count=5, server=closed_port_url)
    lost = r"^1 of 1 mutated requests lost their connection \(seed 1\):\n#0 \(.*\): connection refused — body "
    with pytest.raises(AssertionError, match=lost):
        lib.fuzz_should_not_crash_the_server(gone)


def test_facade_refuses_a_remote_server():
    with pytest.raises(FuzzTargetRefused, match="^refusing to fuzz http://example.com/completion: "):
        FuzzLibrary().fuzz_requests("/completion", BODY, server="http://example.com")
