"""A WSGI app served on loopback in a background thread: how suites host their own pages.

Bound to 127.0.0.1 on a free port, so nothing outside the machine can reach it; started and
stopped by the suite that owns it (and so by ``env.close()``).
"""

from __future__ import annotations

import threading
from socketserver import ThreadingMixIn
from typing import Callable
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - stdlib signature
        pass


class LoopbackServer:
    """Serve `app` at ``http://127.0.0.1:<port>``; `url` is set once started."""

    def __init__(self, app: Callable, host: str = "127.0.0.1"):
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"suites serve on loopback only, received host {host!r}")
        self.app = app
        self.host = host
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("server not started")
        return f"http://{self.host}:{self._server.server_port}"

    def start(self) -> "LoopbackServer":
        if self._server is None:
            self._server = make_server(self.host, 0, self.app, server_class=_ThreadingWSGIServer,
                                       handler_class=_QuietHandler)
            self._thread = threading.Thread(target=self._server.serve_forever, name="gui-gym-http", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = self._thread = None
