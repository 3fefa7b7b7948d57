"""A folder served over HTTP on loopback: the stand-in for the hosts that OSWorld's tasks
download their files from (the real client code fetches from it)."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator


@contextmanager
def serve_folder(root: Path) -> Iterator[tuple[str, ThreadingHTTPServer]]:
    """Serve `root` on 127.0.0.1; yields the base URL and the server (a test that must see the
    site go away shuts it down itself; shutting down twice is harmless)."""

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server
    finally:
        server.shutdown()
        server.server_close()
