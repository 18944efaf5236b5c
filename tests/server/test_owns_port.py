"""The start-up identity check: the server's own "listening on" line first, /proc (psutil) only without it."""

from types import SimpleNamespace

from llamatest.server import process


def server_with_log(tmp_path, text: str, port: int = 41234) -> SimpleNamespace:
    log = tmp_path / "server.srvlog"
    log.write_text(text)
    return SimpleNamespace(port=port, log=log)


def test_the_line_that_names_our_port_proves_it_without_reading_proc(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "listens_on_port", lambda server: False)
    log = "0.01.823 I srv  llama_server: listening on http://127.0.0.1:41234\n"
    assert process.owns_port(server_with_log(tmp_path, log))


def test_another_port_in_the_line_is_no_proof(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "LISTEN_LINE_S", 0.01)
    asked = []
    monkeypatch.setattr(process, "listens_on_port", lambda server: asked.append(server.port) or False)
    log = "0.01.823 I srv  llama_server: listening on http://127.0.0.1:412345\n"
    assert not process.owns_port(server_with_log(tmp_path, log))
    assert asked == [41234]


def test_a_log_without_the_line_leaves_the_decision_to_proc(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "LISTEN_LINE_S", 0.01)
    monkeypatch.setattr(process, "listens_on_port", lambda server: True)
    assert process.owns_port(server_with_log(tmp_path, "0.00.001 I srv  llama_server: initializing ...\n"))
