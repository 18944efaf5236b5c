"""A session reads the proxy variables of the environment once per host (`environment_read_once`)."""

import requests

from llamatest.http.session import environment_read_once


def test_the_environment_is_read_once_per_host_and_arguments(monkeypatch):
    session = requests.Session()
    calls = []
    original = session.merge_environment_settings

    def counting(url, proxies, stream, verify, cert):
        calls.append(url)
        return original(url, proxies, stream, verify, cert)

    session.merge_environment_settings = counting
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    environment_read_once(session)
    first = session.merge_environment_settings("http://127.0.0.1:8080/health", {}, None, None, None)
    again = session.merge_environment_settings("http://127.0.0.1:8080/slots", {}, None, None, None)
    other = session.merge_environment_settings("http://example.invalid/x", {}, None, None, None)
    assert calls == ["http://127.0.0.1:8080/health", "http://example.invalid/x"]
    assert first == again and "http" not in first["proxies"]  # NO_PROXY holds, as requests itself decides
    assert other["proxies"]["http"] == "http://proxy.invalid:3128"
    again["proxies"]["x"] = "y"  # a caller's change stays its own
    assert "x" not in session.merge_environment_settings("http://127.0.0.1:8080/", {}, None, None, None)["proxies"]
