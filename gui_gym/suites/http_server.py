"""A WSGI app served on loopback in a background thread: how suites host their own pages.

Bound to 127.0.0.1 on a free port, so nothing outside the machine can reach it; started and
stopped by the suite that owns it (and so by ``env.close()``).

Loopback is shared by every process on the machine, so the port alone does not say who is
asking: each server draws a secret token and answers only requests that carry it, as the
cookie `cookie` names. `admit` hands the cookie to the env's browser (and lets the browser
reach this one origin); anything else (another env's browser, another program) gets 403.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from socketserver import ThreadingMixIn
from typing import Any, Callable
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

TOKEN_COOKIE_PREFIX = "gui_gym_token_"
FORBIDDEN = (b"403 Forbidden: this server answers only the browser of the gui-gym env that started it "
             b"(the request carried no valid token)\n")


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class _QuietHandler(WSGIRequestHandler):
    disable_nagle_algorithm = True
    """TCP_NODELAY: wsgiref writes the status line, the headers and the body apart, and
    Nagle's algorithm would hold the later writes for the client's ACK (each response closes
    its connection, which bounds the wait: ~1 ms a response, measured)."""

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - stdlib signature
        pass


def cookie_value(header: str, name: str) -> str | None:
    """The value of cookie `name` in a ``Cookie:`` header, or None."""
    for pair in header.split(";"):
        key, sep, value = pair.strip().partition("=")
        if sep and key == name:
            return value
    return None


class LoopbackServer:
    """Serve `app` at ``http://127.0.0.1:<port>``; `url` is set once started. Requests
    without the server's token cookie are answered 403 and never reach `app`."""

    def __init__(self, app: Callable, host: str = "127.0.0.1"):
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"suites serve on loopback only, received host {host!r}")
        self.app = app
        self.host = host
        self.token = secrets.token_urlsafe(32)
        self._cookie_name = ""
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("server not started")
        return f"http://{self.host}:{self._server.server_port}"

    @property
    def cookie(self) -> tuple[str, str]:
        """(name, value) of the token cookie. The name holds the port, so two servers on one
        host keep apart the cookies a browser sends them both."""
        if self._server is None:
            raise RuntimeError("server not started")
        return self._cookie_name, self.token

    @property
    def auth_headers(self) -> dict[str, str]:
        """Headers that admit a client other than the env's browser (a test, a tool)."""
        name, value = self.cookie
        return {"Cookie": f"{name}={value}"}

    def start(self) -> "LoopbackServer":
        if self._server is None:
            self._server = make_server(self.host, 0, self._guarded, server_class=_ThreadingWSGIServer,
                                       handler_class=_QuietHandler)
            self._cookie_name = f"{TOKEN_COOKIE_PREFIX}{self._server.server_port}"
            self._thread = threading.Thread(target=self._server.serve_forever, name="gui-gym-http", daemon=True)
            self._thread.start()
        return self

    def admit(self, backend: Any) -> "LoopbackServer":
        """Start, and let `backend` (a `BrowserBackend`) reach this server with its token."""
        self.start()
        backend.allow_server(self.url, self.cookie)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = self._thread = None

    def _guarded(self, environ: dict[str, Any], start_response: Callable) -> Any:
        given = cookie_value(environ.get("HTTP_COOKIE", ""), self._cookie_name)
        if given is None or not hmac.compare_digest(given.encode(), self.token.encode()):
            start_response("403 Forbidden", [("Content-Type", "text/plain; charset=utf-8"),
                                              ("Content-Length", str(len(FORBIDDEN))), ("Cache-Control", "no-store")])
            return [FORBIDDEN]
        return self.app(environ, start_response)
