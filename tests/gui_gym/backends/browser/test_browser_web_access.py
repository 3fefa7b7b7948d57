"""The URL policy of browser envs, on its own: schemes, host and port, malformed URLs, and the
documents Chromium shows by itself. (The browser enforcing it: test_browser_backend.py.)"""

from __future__ import annotations

import pytest

from gui_gym.backends.browser.web_access import AccessPolicy, origin_of

OWN = "http://127.0.0.1:8123"


@pytest.fixture()
def policy():
    policy = AccessPolicy(hosts=())
    policy.allow_origin(OWN + "/shop/")
    return policy


@pytest.mark.parametrize("url", [
    "file://127.0.0.1/etc/passwd", "file:///etc/passwd", "FILE://localhost/etc/shadow", "chrome://version/",
    "chrome://127.0.0.1/", "view-source:http://127.0.0.1:8123/", "devtools://devtools/bundled/inspector.html",
    "ftp://127.0.0.1/", "javascript:alert(1)", "data:text/html,<h1>x</h1>", "blob:http://127.0.0.1:8123/x",
    "filesystem:http://127.0.0.1:8123/temporary/x", "chrome-extension://abc/x", "ws://127.0.0.1:8123/", "127.0.0.1:8123",
])
def test_only_http_and_https_may_be_navigated_to(policy, url):
    assert policy.refusal(url).startswith("only http and https URLs may be opened, received a")
    assert AccessPolicy(None).refusal(url) == policy.refusal(url)  # live mode too


def test_each_env_reaches_its_own_servers_host_and_port(policy):
    assert policy.refusal(OWN + "/shop/cart?x=1") is None
    assert policy.refusal("https://127.0.0.1:8123/") is None
    assert policy.refusal("http://user@127.0.0.1:8123/") is None  # the same origin, whatever the userinfo
    assert policy.refusal("http://127.0.0.1:8124/") == \
        "127.0.0.1:8124 is not one of this env's servers (it reaches 127.0.0.1:8123)"
    for other in ("http://127.0.0.1/", "http://localhost:8123/", "http://2130706433:8123/", "http://127.1:8123/",
                  "http://[::1]:8123/", "http://203.0.113.9:8123/", "http://127.0.0.1.nip.io:8123/"):
        assert "is not one of this env's servers" in policy.refusal(other), other


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/", "http://127.0.0.1:port/", "http://[::1", "http:///path",
                                 "http://", "https://:8123/"])
def test_malformed_urls_are_refused_not_guessed(policy, url):
    assert policy.refusal(url).startswith("the URL is malformed"), url
    assert AccessPolicy(None).refusal(url).startswith("the URL is malformed"), url


def test_subresources_may_be_inline_and_sockets_follow_the_host_rule(policy):
    assert policy.refusal("data:image/png;base64,AAAA", navigation=False) is None
    assert policy.refusal("blob:http://127.0.0.1:8123/uuid", navigation=False) is None
    assert policy.refusal("ws://127.0.0.1:8123/live", navigation=False) is None
    assert "is not one of this env's servers" in policy.refusal("ws://127.0.0.1:9000/", navigation=False)
    assert policy.refusal("file:///etc/passwd", navigation=False).startswith("only http and https")


def test_hosts_and_origins_in_the_allow_list():
    policy = AccessPolicy(["example.com", "127.0.0.1:9000", "[::1]:7000"])
    assert policy.refusal("https://example.com/a") is None and policy.refusal("http://example.com:8080/") is None
    assert policy.refusal("http://127.0.0.1:9000/") is None and policy.refusal("http://[::1]:7000/") is None
    assert policy.refusal("http://127.0.0.1:9001/") is not None
    assert policy.reachable == ["example.com", "127.0.0.1:9000", "[::1]:7000"]
    with pytest.raises(ValueError, match="expected an allowed host as 'host' or 'host:port', received 'a.com/x'"):
        AccessPolicy(["a.com/x"])
    assert AccessPolicy(None).refusal("http://203.0.113.9:1234/") is None
    assert origin_of("https://Example.COM/x") == ("example.com", 443)


def test_documents_the_browser_shows_by_itself_are_fine_the_rest_follow_the_policy(policy):
    for url in ("about:blank", "about:srcdoc", "chrome-error://chromewebdata/", OWN + "/", "data:text/html,x"):
        assert policy.document_refusal(url) is None, url
    for url in ("chrome://version/", "view-source:" + OWN + "/", "file:///etc/passwd", "http://127.0.0.1:1/",
                "devtools://devtools/bundled/inspector.html"):
        assert policy.document_refusal(url) is not None, url
