"""Several adb sync requests over one connection (LIST, RECV, SEND, then QUIT).

adbutils opens a new connection per file operation, and every connection costs a round trip
to the adb server and a pause when it closes. Reading a database with its ``-wal`` and
``-shm`` companions is five operations; a session does them on one connection, as ``adb
pull`` of several files does. The protocol is adb's: an 8-byte header (4-byte id, 4-byte
little-endian length) and the path; LIST answers DENT records then DONE, RECV answers DATA
chunks then DONE (or FAIL), SEND takes DATA chunks then DONE with a modification time and
answers OKAY (or FAIL).
"""

from __future__ import annotations

import socket
import struct
import time

from gui_gym.errors import ActionExecutionError

CHUNK = 64 * 1024


class SyncSession:
    """Sync requests on an open ``sync:`` connection (`socket`), until `close`."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def _send(self, request: bytes, argument: bytes) -> None:
        self._sock.sendall(request + struct.pack("<I", len(argument)) + argument)

    def _read(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self._sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the adb server closed the sync connection")
            data += chunk
        return data

    def list(self, path: str) -> list[tuple[str, int, int, int]]:
        """(name, mode, size, mtime) of each entry, . and .. included; [] when absent."""
        self._send(b"LIST", path.encode())
        entries = []
        while True:
            kind = self._read(4)
            mode, size, mtime, name_length = struct.unpack("<IIII", self._read(16))
            if kind == b"DONE":
                return entries
            if kind != b"DENT":
                raise ActionExecutionError(f"sync LIST {path}: unexpected {kind!r}")
            entries.append((self._read(name_length).decode(errors="replace"), mode, size, mtime))

    def read(self, path: str) -> bytes | None:
        """A file's bytes, None when it cannot be opened (absent or not readable)."""
        self._send(b"RECV", path.encode())
        parts = []
        while True:
            kind, length = self._read(4), struct.unpack("<I", self._read(4))[0]
            if kind == b"DATA":
                parts.append(self._read(length))
            elif kind == b"DONE":
                return b"".join(parts)
            elif kind == b"FAIL":
                self._read(length)
                return None
            else:
                raise ActionExecutionError(f"sync RECV {path}: unexpected {kind!r}")

    def write(self, path: str, data: bytes, mode: int = 0o644) -> None:
        """Create or replace a file (adbd makes missing folders)."""
        self._send(b"SEND", f"{path},{mode | 0o100000}".encode())
        for start in range(0, len(data), CHUNK):
            chunk = data[start:start + CHUNK]
            self._sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        self._sock.sendall(b"DONE" + struct.pack("<I", int(time.time())))
        kind, length = self._read(4), struct.unpack("<I", self._read(4))[0]
        if kind != b"OKAY":
            message = self._read(length).decode(errors="replace") if kind == b"FAIL" else repr(kind)
            raise ActionExecutionError(f"sync SEND {path} failed: {message}")

    def close(self) -> None:
        try:
            self._sock.sendall(b"QUIT" + struct.pack("<I", 0))
        except OSError:
            pass
