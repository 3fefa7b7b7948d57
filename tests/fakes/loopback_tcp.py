"""The threaded TCP server on 127.0.0.1 that the Android fakes (the adb server, adbd, the
emulator console) each speak their protocol on: bound at `start`, stopped at `stop`."""

from __future__ import annotations

import socketserver
import threading
from typing import Self


class LoopbackTCPService:
    """Base of a fake that answers TCP clients on loopback with `handler`, one thread each."""

    def __init__(self, handler: type[socketserver.BaseRequestHandler], port: int = 0, *, name: str,
                 wait_for_clients: bool = True) -> None:
        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", port), handler, bind_and_activate=False)
        self._server.daemon_threads = True
        # a client still connected (an adb server holding its transport) must not hold up the stop
        self._server.block_on_close = wait_for_clients
        self._server.allow_reuse_address = True
        self._name = name
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def start(self) -> Self:
        self._server.server_bind()
        self._server.server_activate()
        self._thread = threading.Thread(target=self._server.serve_forever, name=self._name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()
