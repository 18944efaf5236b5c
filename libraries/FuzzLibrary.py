"""Robot facade of llamatest.fuzz: bounded, seeded fuzzing of a loopback llama-server's JSON routes."""

from __future__ import annotations

from robot.api import logger
from robot.api.deco import keyword, library

from llamatest.fuzz.report import findings, summary_html, summary_line
from llamatest.fuzz.run import FuzzSummary, fuzz
from llamatest.server import running
from llamatest.textutil import join_url
from robot_glue import server_base_url, server_headers


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class FuzzLibrary:
    """Sends seeded mutations of a valid request body to llama-server and checks that it survives them.

    %TOC%

    = Usage =

    | ${summary} =    Fuzz Requests    /completion    ${VALID_BODY}    count=500    seed=1    max_seconds=60
    | Fuzz Should Not Crash The Server    ${summary}
    | Fuzz Should Not Hang    ${summary}
    | Fuzz Should Find No Undocumented 5xx    ${summary}

    = Mutations =

    Each request is the valid body changed in one or two places: a field dropped, given a value of
    another JSON type, an extreme number written as raw JSON (``1e309``, ``18446744073709551616``,
    ``NaN``), a random string (unicode, control characters, lone surrogates, special-token and template
    syntax), nested up to 32 levels, a known llama-server field added with a random value, a top-level key
    repeated; a quarter of them are then cut at a random byte, get a few random bytes, or are replaced
    by an empty or non-object body. The same ``seed`` and body give the same requests, so a finding
    is reproduced by its index (shown with every finding).

    = Bounds =

    A run stops after ``count`` requests or ``max_seconds``, whichever comes first, and at once when
    the server refuses a connection. Requests are sent one at a time, each with a deadline of
    ``timeout`` seconds for the whole exchange. The fuzzer sends only to the machine it runs on: a URL
    whose host is not in 127.0.0.0/8, ``localhost`` or ``::1`` is refused before anything is sent.

    = Summary =

    `Fuzz Requests` logs one table (a row per answer: each status, ``no answer``, ``transport
    error``; 5xx answers whose message contains one of ``documented_5xx`` as ``(documented)``) and
    returns the summary: ``${summary.sent}``, ``${summary.elapsed}``, ``${summary.stopped_by}``
    (``count``, ``time`` or ``server gone``), ``${summary.statuses}`` (requests per answer).
    """

    @keyword("Fuzz Requests")
    def fuzz_requests(self, path: str, valid_body: dict, count: int = 500, seed: int = 1, max_seconds: float = 60,
                      server: str = "suite", timeout: float | None = None,
                      documented_5xx: list | tuple = ()) -> FuzzSummary:
        """POSTs ``count`` mutations of ``valid_body`` to ``path`` of ``server`` and returns the `Summary`.

        ``server`` is a server alias (default the suite's own) or a loopback base URL.
        ``documented_5xx`` lists error-message texts of 5xx answers the suite documents elsewhere
        (for example a 500 pinned as build-specific); other 5xx answers are findings.
        """
        base = server_base_url(server)
        alias = None if base == server else server
        summary = fuzz(join_url(base, path), dict(valid_body), count=int(count), seed=int(seed),
                       max_seconds=float(max_seconds), timeout=timeout,
                       documented_5xx=tuple(documented_5xx), server=alias, headers=server_headers(server))
        logger.info(summary_html(summary), html=True)
        if summary.stopped_by == "time":
            logger.warn(summary_line(summary))
        return summary

    @keyword("Fuzz Should Find No Undocumented 5xx")
    def fuzz_should_find_no_undocumented_5xx(self, summary: FuzzSummary) -> None:
        """Fails when a mutated request got a 5xx whose message contains none of the documented texts."""
        found = summary.undocumented_5xx
        if found:
            raise AssertionError(f"{len(found)} of {summary.sent} mutated requests got an undocumented 5xx "
                                 f"(seed {summary.seed}):\n{findings(found)}")

    @keyword("Fuzz Should Not Hang")
    def fuzz_should_not_hang(self, summary: FuzzSummary) -> None:
        """Fails when a mutated request got no complete answer within its deadline."""
        if summary.hangs:
            raise AssertionError(f"{len(summary.hangs)} of {summary.sent} mutated requests got no answer within "
                                 f"{summary.timeout:g} s (seed {summary.seed}):\n{findings(summary.hangs)}")

    @keyword("Fuzz Should Not Crash The Server")
    def fuzz_should_not_crash_the_server(self, summary: FuzzSummary) -> None:
        """Fails when a connection was refused, reset or cut during the run, or when the server process
        (for a run addressed by alias) is no longer running; the failure names the request that came
        first and, for a dead process, its exit code and log tail."""
        problems = []
        if summary.server is not None:
            try:
                running.should_be_running(summary.server)
            except AssertionError as exc:
                problems.append(str(exc))
        broken = summary.transport_errors
        if broken:
            problems.append(f"{len(broken)} of {summary.sent} mutated requests lost their connection "
                            f"(seed {summary.seed}):\n{findings(broken)}")
        if problems:
            raise AssertionError("\n".join(problems))
