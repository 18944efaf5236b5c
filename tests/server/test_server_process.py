"""Server handling through a fake llama-server: readiness, bind retry, fail-fast, exit codes, external
servers, port choice, suite-end cleanup, and the facade keywords on top.
"""

from __future__ import annotations

import os
import shlex
import socket
import time
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest
import requests

import LlamaServerLibrary as facade
from llamatest.server.process import ServerPool, StartFailed, free_port, spawn, stop_servers
from tests.fixtures import FAKE_LLAMA_SERVER as FAKE


@pytest.fixture
def logs():
    return []


@pytest.fixture
def fake(monkeypatch, tmp_path, pid_registry):
    """$LLAMA_SERVER_BIN is the fake; no external server; each test's registry must end empty."""
    monkeypatch.setenv("LLAMA_SERVER_BIN", str(FAKE))
    monkeypatch.delenv("LLAMA_SERVER_URL", raising=False)
    monkeypatch.delenv("FAKE_MODE", raising=False)
    monkeypatch.setenv("FAKE_MARKER", str(tmp_path / "bind-failed-once"))
    yield tmp_path
    assert not list(pid_registry.glob("*.json")), "a started server was left registered"


@pytest.fixture
def pool(fake, logs):
    servers = ServerPool(log=lambda level, message: logs.append((level, message)))
    yield servers
    servers.stop_all(grace=1)


def start(pool: ServerPool, alias: str = "suite", mode: str = "ok", **options):
    """Starts the fake (in FAKE_MODE ``mode``) through the pool, logging to the test's folder."""
    output_dir = Path(os.environ["FAKE_MARKER"]).parent
    return pool.start(str(output_dir / "model.gguf"), options.pop("flags", ()), alias=alias, output_dir=output_dir,
                      env={"FAKE_MODE": mode}, **{"timeout": 10.0, **options})


def health(url: str) -> int:
    return requests.get(url + "/health", timeout=2).status_code


# ----- start and readiness -----
def test_start_is_ready_and_records_start_time_and_command_line(pool):
    server = start(pool, flags=("--alias", "my model"))
    assert health(server.url) == 200
    assert 0 < server.started_s < 5
    assert server.attempts == [(server.port, f"ready in {server.started_s:.2f} s")]
    assert server.log.name == f"server-suite-{server.port}.srvlog"
    first_line, *rest = server.log.read_text().splitlines()
    assert first_line == "$ " + server.command_line
    assert "'my model'" in server.command_line and shlex.split(server.command_line) == server.args
    assert f"main: server is listening on {server.url} - starting the main loop" in rest


def test_an_alias_runs_once(pool):
    start(pool)
    with pytest.raises(AssertionError, match="alias 'suite' is already running"):
        start(pool)


def test_bind_failure_is_retried_on_another_port_and_both_attempts_are_reported(pool, logs):
    server = start(pool, mode="bind-fail-once")
    assert health(server.url) == 200
    (first_port, first), (second_port, second) = server.attempts
    assert first_port != second_port == server.port
    assert "exited with code 1" in first and second.startswith("ready in")
    assert ("INFO", f"llama-server 'suite' could not bind port {first_port}; trying another port") in logs


def test_bind_failure_on_every_attempt_names_them(pool):
    with pytest.raises(StartFailed, match=r"could not bind a port in 1 attempts:\nport \d+: process exited"):
        start(pool, mode="bind-fail-once", attempts=1)


def test_crash_at_start_fails_at_once_with_the_log_tail(pool):
    started = time.monotonic()
    with pytest.raises(StartFailed) as failure:
        start(pool, mode="crash-at-start")
    assert time.monotonic() - started < 3
    message = str(failure.value)
    assert "llama-server 'suite' failed to start: process exited with code 1 before it was ready" in message
    assert "main: exiting due to model loading error" in message
    assert pool.aliases() == []


def test_never_ready_fails_at_its_deadline_and_is_stopped(pool):
    started = time.monotonic()
    with pytest.raises(StartFailed, match=r"no /health 200 within 2.0 s \(last answer: HTTP 503 .*Loading model"):
        start(pool, mode="never-ready", timeout=2.0)
    assert 2.0 <= time.monotonic() - started < 8
    assert pool.aliases() == []


def launch(pool: ServerPool, alias: str = "watched", mode: str = "ok"):
    output_dir = Path(os.environ["FAKE_MARKER"]).parent
    return pool.launch(str(output_dir / "model.gguf"), (), alias=alias, output_dir=output_dir, env={"FAKE_MODE": mode})


def test_a_launched_server_is_not_waited_for_and_is_watched_from_its_start(pool):
    started = time.monotonic()
    server = launch(pool, mode="never-ready")
    assert time.monotonic() - started < 1.0 and pool.aliases() == ["watched"]
    pool.keep_running("watched", 1.5)
    assert time.monotonic() - server.spawned_at >= 1.5
    waited = time.monotonic()
    pool.keep_running("watched", 1.0)  # that long has passed already: no wait
    assert time.monotonic() - waited < 0.5
    assert pool.stop("watched", grace=1) == 0


def test_a_launched_server_that_exits_early_fails_keep_running_with_its_code_and_log(pool):
    launch(pool, mode="crash-at-start")
    with pytest.raises(AssertionError, match=r"(?s)'watched' exited with code 1 .* before 30 s.*model loading error"):
        pool.keep_running("watched", 30)
    assert pool.wait_exit("watched", timeout=1) == 1
    assert pool.stop("watched") == 1


def test_servers_launched_together_are_waited_for_one_by_one(pool):
    first, second = launch(pool, alias="first"), launch(pool, alias="second")
    assert pool.wait_ready("first") is first and pool.wait_ready("second") is second
    for server in (first, second):
        assert requests.get(server.url + "/health", timeout=2).status_code == 200
        assert server.started_s is not None and server.attempts == [(server.port, f"ready in {server.started_s:.2f} s")]
    assert pool.stop("first", grace=1) == 0 and pool.stop("second", grace=1) == 0


def test_a_launched_server_that_never_gets_ready_fails_the_wait_and_is_stopped(pool):
    launch(pool, mode="never-ready")
    with pytest.raises(StartFailed, match=r"'watched' failed to start: no /health 200 within 1.0 s .*Loading model"):
        pool.wait_ready("watched", timeout=1.0)
    assert pool.aliases() == []


# ----- exit codes -----
@pytest.mark.parametrize(("mode", "code"), [("ok", 0), ("exit3-on-term", 3), ("ignore-term", -9)])
def test_stop_reports_the_real_exit_code(pool, mode, code):
    server = start(pool, mode=mode)
    started = time.monotonic()
    assert pool.stop("suite", grace=0.5) == code
    assert time.monotonic() - started < 3
    assert server.proc.wait(timeout=1) == code  # the Popen agrees, instead of a made-up 0
    assert not psutil.pid_exists(server.proc.pid)


def test_a_killed_server_reports_minus_9(pool):
    server = start(pool)
    assert pool.kill("suite") == -9
    assert server.exit_code() == -9
    assert pool.stop("suite") == -9


def test_stopping_an_unknown_alias_does_nothing(pool):
    assert pool.stop("nobody") is None


# ----- ports -----
def test_a_taken_port_is_replaced_by_a_free_one_with_a_warning(pool, logs):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = start(pool, port=port)
    assert server.port != port
    assert logs == [("WARN", f"port {port} is already taken; starting 'suite' on a free port instead")]


def test_an_expected_taken_port_is_only_info(pool, logs):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        start(pool, port=port, port_taken="expected")
    assert [level for level, _ in logs] == ["INFO"]


def test_an_expected_taken_port_that_is_free_fails(pool):
    port = free_port()
    with pytest.raises(AssertionError, match=f"port {port} was expected to be taken, but it is free"):
        start(pool, port=port, port_taken="expected")


def test_a_free_given_port_is_used(pool):
    port = free_port()
    assert start(pool, port=port).url == f"http://127.0.0.1:{port}"


# ----- external server -----
def test_external_server_is_used_and_never_stopped(pool, monkeypatch):
    real = start(pool, alias="real")
    monkeypatch.setenv("LLAMA_SERVER_URL", real.url + "/")
    server = start(pool, alias="ext", external_ok=True)
    assert server.external and server.url == real.url
    assert server.command_line == f"external server at {real.url}"
    assert pool.description("ext") == f"b0-fake (external server at {real.url}); model {real.model}"
    assert pool.stop("ext") is None
    assert health(real.url) == 200 and real.exit_code() is None


def test_external_server_that_refuses_fails_at_once(pool, monkeypatch, closed_port_url):
    monkeypatch.setenv("LLAMA_SERVER_URL", closed_port_url)
    started = time.monotonic()
    with pytest.raises(AssertionError) as failure:
        start(pool, external_ok=True, timeout=60)
    assert time.monotonic() - started < 1
    assert str(failure.value) == (
        f"external server LLAMA_SERVER_URL={closed_port_url}: connection refused, nothing listens there: "
        f"start it, or unset LLAMA_SERVER_URL so that the suite starts its own server")


def test_external_server_that_stays_loading_fails_at_its_deadline(pool, monkeypatch, fake):
    loading = spawn(FAKE, "m.gguf", (), alias="loading", port=free_port(), output_dir=fake,
                    env={"FAKE_MODE": "never-ready"})
    try:
        deadline = time.monotonic() + 5
        while "listening" not in loading.log.read_text() and time.monotonic() < deadline:
            time.sleep(0.02)
        monkeypatch.setenv("LLAMA_SERVER_URL", loading.url)
        with pytest.raises(AssertionError, match=r"no /health 200 within 0.5 s .*HTTP 503.*: start it, or unset"):
            start(pool, external_ok=True, timeout=0.5)
    finally:
        stop_servers([loading], grace=1)


def test_external_ok_without_url_starts_a_local_server(pool):
    assert not start(pool, external_ok=True).external


# ----- the facade: keywords, logging, suite-end cleanup -----
@pytest.fixture
def suite():
    return SimpleNamespace(name="Suite One")


@pytest.fixture
def sessions():
    return []


@pytest.fixture
def library(fake, monkeypatch, suite, sessions, logged):
    warned = []
    monkeypatch.setattr(facade, "output_dir", lambda *_: fake)
    monkeypatch.setattr(facade, "current_suite", lambda: suite.name)
    monkeypatch.setattr(facade, "open_session", lambda alias, url: sessions.append((alias, url)))
    monkeypatch.setattr(facade.logger, "warn", lambda message, html=False: warned.append(message))
    lib = facade.LlamaServerLibrary()
    lib.warned = warned
    yield lib
    lib.close()


def test_start_keyword_opens_a_session_and_logs_the_command_line(library, sessions, logged, fake):
    url = library.start_llama_server(str(fake / "model.gguf"), "--alias", "a b")
    assert sessions == [("suite", url)]
    assert library.server_url() == url
    assert library.server_command_line() == shlex.join(
        [str(FAKE), "--model", str(fake / "model.gguf"), "--host", "127.0.0.1", "--port", url.rsplit(":", 1)[1],
         "--alias", "a b"])
    message, html = logged[-1]
    assert html and "ready at" in message and "<details><summary>command line</summary>" in message
    assert "&#x27;a b&#x27;" in message  # the quoted command line, escaped
    assert library.server_description() == \
        f"version: 0 (fake) built with fake-cc for fake-arch; model {fake}/model.gguf"
    library.server_should_be_running()
    library.server_log_should_contain(f"listening on {url}")
    assert library.stop_llama_server() == 0


def test_preset_server_applies_overrides_and_extra_flags(library, monkeypatch, fake, sessions):
    monkeypatch.setattr(facade, "resolve_model", lambda name: fake / f"{name}.gguf")
    library.start_preset_server("tiny-2-slots", "--temp", "0", alias="p", n_slots=4, embeddings=True)
    line = library.server_command_line("p")
    assert f"--model {fake}/tiny.gguf" in line
    assert line.endswith("--ctx-size 1024 --parallel 4 --embeddings --temp 0")
    assert sessions[0][0] == "p"
    chosen = library.server_preset("p")
    assert (chosen.model, chosen.n_slots, chosen.n_ctx, chosen.n_ctx_per_slot) == ("tiny", 4, 1024, 256)


def test_launched_preset_server_gets_its_session_once_ready(library, monkeypatch, fake, sessions):
    monkeypatch.setattr(facade, "resolve_model", lambda name: fake / f"{name}.gguf")
    library.launch_preset_server("tiny-2-slots", "--temp", "0", alias="p", n_slots=4)
    assert sessions == []  # not waited for yet
    url = library.wait_until_server_is_ready("p")
    assert sessions == [("p", url)]
    assert library.server_command_line("p").endswith("--ctx-size 1024 --parallel 4 --temp 0")
    assert library.server_preset("p").n_slots == 4
    assert library.stop_llama_server("p") == 0


def test_server_preset_of_a_server_without_one_fails(library, fake):
    library.start_llama_server(str(fake / "m.gguf"))
    with pytest.raises(AssertionError, match="'suite' was not started from a preset"):
        library.server_preset()


def test_unknown_preset_fails_before_anything_starts(library):
    with pytest.raises(AssertionError, match="unknown server preset 'tiny-9'"):
        library.start_preset_server("tiny-9")


def test_end_suite_stops_that_suites_servers_only_with_a_warning(library, suite, fake):
    model = str(fake / "m.gguf")
    library.start_llama_server(model)
    suite.name = "Suite Two"
    library.start_llama_server(model, alias="other")
    library.end_suite(None, SimpleNamespace(full_name="Suite One"))
    assert library.warned == ["suite 'Suite One' ended with server(s) suite still running; stopping them"]
    with pytest.raises(AssertionError, match=r"no server with alias 'suite' \(running: other\)"):
        library.server_url()
    library.server_should_be_running("other")
    library.close()
    with pytest.raises(AssertionError, match=r"running: none"):
        library.server_url("other")


def test_stop_suite_servers_is_quiet_and_bounded(library, suite, fake, monkeypatch):
    model = str(fake / "m.gguf")
    library.start_llama_server(model, env={"FAKE_MODE": "ignore-term"})
    library.start_llama_server(model, alias="two", env={"FAKE_MODE": "ignore-term"})
    started = time.monotonic()
    library.stop_suite_servers(grace=0.5)
    assert time.monotonic() - started < 2.5  # one shared grace, not one per server
    assert library.warned == []
    library.end_suite(None, SimpleNamespace(full_name="Suite One"))
    assert library.warned == []


def test_state_keywords_on_a_killed_server(library, fake):
    library.start_llama_server(str(fake / "m.gguf"), alias="victim")
    library.kill_llama_server("victim")
    with pytest.raises(AssertionError, match="llama-server 'victim' exited with code -9:"):
        library.server_should_be_running("victim")
    assert library.server_should_have_exited("victim", timeout=1) == -9
    assert library.stop_llama_server("victim") == -9


def test_external_server_through_the_facade(library, monkeypatch, fake, sessions, logged):
    real = library.start_llama_server(str(fake / "m.gguf"), alias="real")
    monkeypatch.setenv("LLAMA_SERVER_URL", real)
    assert library.start_llama_server("ignored.gguf", external_ok=True) == real
    assert sessions[-1] == ("suite", real)
    assert "using external llama-server" in logged[-1][0]
    assert library.server_command_line() == f"external server at {real}"
    with pytest.raises(AssertionError, match="is an external server"):
        library.server_log_should_contain("listening")
    assert library.stop_llama_server() is None
    library.server_should_be_running("real")
