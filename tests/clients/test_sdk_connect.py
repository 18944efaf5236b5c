"""llamatest.clients.connect: SDK clients bound to a server, no retries, the key from session headers."""

import anthropic
import openai
import pytest

from llamatest.clients.connect import NO_KEY, Endpoint, key_of, served_model, tls_context, versions


def test_openai_client_talks_to_the_v1_routes_without_retries():
    client = Endpoint("http://127.0.0.1:1234", "k1", timeout=7.5).client("openai")
    assert isinstance(client, openai.OpenAI)
    assert str(client.base_url) == "http://127.0.0.1:1234/v1/"
    assert (client.max_retries, client.timeout, client.api_key) == (0, 7.5, "k1")


def test_anthropic_client_talks_to_the_server_root():
    client = Endpoint("http://127.0.0.1:1234/").client("anthropic")
    assert isinstance(client, anthropic.Anthropic)
    assert str(client.base_url) == "http://127.0.0.1:1234/"
    assert (client.max_retries, client.api_key) == (0, NO_KEY)


def test_async_clients_are_the_async_classes():
    endpoint = Endpoint("http://127.0.0.1:1234")
    assert isinstance(endpoint.client("openai", asynchronous=True), openai.AsyncOpenAI)
    assert isinstance(endpoint.client("anthropic", asynchronous=True), anthropic.AsyncAnthropic)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_clients_share_one_tls_context_but_no_connection(asynchronous):
    # Building a TLS context reads the CA bundle (most of a client's cost); the pool must stay the client's own.
    endpoint = Endpoint("http://127.0.0.1:1234", timeout=4.0)
    first, second = (endpoint.client(sdk, asynchronous) for sdk in ("openai", "anthropic"))
    assert first._client is not second._client
    assert first._client._transport._pool is not second._client._transport._pool
    assert first._client._transport._pool._ssl_context is second._client._transport._pool._ssl_context
    assert first._client._transport._pool._ssl_context is tls_context()
    assert (first.timeout, second.timeout, first.max_retries, second.max_retries) == (4.0, 4.0, 0, 0)


def test_strict_endpoint_turns_on_the_sdk_validation():
    assert Endpoint("http://h:1", strict=True).client("openai")._strict_response_validation is True
    assert Endpoint("http://h:1").client("anthropic")._strict_response_validation is False


def test_unknown_sdk_is_refused_with_the_known_names():
    with pytest.raises(ValueError, match="openai, anthropic"):
        Endpoint("http://h:1").client("cohere")


def test_key_never_shows_in_the_endpoint_repr():
    assert "secret" not in repr(Endpoint("http://h:1", "secret"))


@pytest.mark.parametrize(("headers", "key"), [
    ({"Authorization": "Bearer abc"}, "abc"),
    ({"authorization": "bearer  abc "}, "abc"),
    ({"Authorization": "Basic abc"}, None),
    ({"Authorization": "Bearer "}, None),
    ({}, None),
])
def test_key_of_session_headers(headers, key):
    assert key_of(headers) == key


def test_served_model_is_the_first_listed_id(server):
    # The fixture server has no /v1/models; a 404 must fail loudly rather than name a wrong model.
    with pytest.raises(Exception, match="404"):
        served_model(server)


def test_versions_name_both_sdks():
    assert versions() == {"openai": openai.__version__, "anthropic": anthropic.__version__}
