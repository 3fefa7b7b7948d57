"""The suites' loopback server answers only requests that carry its own token: another env's
browser, another env's token, or a plain client on the machine gets 403 and the app never runs."""

from __future__ import annotations

from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest

from gui_gym.suites.http_server import LoopbackServer, cookie_value


def _server(calls):
    def app(environ, start_response):
        calls.append(environ["PATH_INFO"])
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [b"ok"]
    return LoopbackServer(app).start()


def _status(url, headers=None):
    try:
        with urlopen(Request(url, headers=headers or {}), timeout=10) as response:
            return response.status
    except HTTPError as exc:
        return exc.code


def test_requests_without_the_servers_own_token_are_refused_before_the_app_runs():
    calls_a, calls_b = [], []
    a, b = _server(calls_a), _server(calls_b)
    try:
        name_a, token_a = a.cookie
        assert name_a.endswith(a.url.rsplit(":", 1)[1]) and len(token_a) >= 40 and a.token != b.token
        assert _status(a.url + "/state") == 403
        assert _status(a.url + "/state", b.auth_headers) == 403  # another server's cookie
        assert _status(a.url + "/state", {"Cookie": f"{name_a}={b.token}"}) == 403  # another server's token
        assert _status(a.url + "/state", {"Cookie": f"{name_a}={token_a[:-1]}"}) == 403
        assert _status(a.url + "/state", {"X-Token": token_a}) == 403
        assert calls_a == []
        both = {"Cookie": f"other=1; {b.auth_headers['Cookie']}; {name_a}={token_a}"}
        assert _status(a.url + "/state", both) == 200 and _status(a.url + "/x", a.auth_headers) == 200
        assert calls_a == ["/state", "/x"] and calls_b == []
        with pytest.raises(HTTPError) as refused:
            urlopen(a.url + "/", timeout=10)
        assert b"answers only the browser of the gui-gym env that started it" in refused.value.read()
    finally:
        a.stop()
        b.stop()


def test_cookie_header_parsing():
    assert cookie_value("a=1; b=2;c=3", "b") == "2" and cookie_value("a=1", "b") is None
    assert cookie_value("", "a") is None and cookie_value("a", "a") is None and cookie_value("a==x", "a") == "=x"
