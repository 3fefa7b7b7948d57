"""Ports on 127.0.0.1: everything the project binds is loopback-only."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the OS picks it; another process
    may still take it before the caller binds, so callers that can should bind port 0)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_free(port: int) -> bool:
    """Whether nothing listens on `port` (a connection lingering in TIME_WAIT does not count:
    the bind uses SO_REUSEADDR, as servers such as the Android emulator do)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
