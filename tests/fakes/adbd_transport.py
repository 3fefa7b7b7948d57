"""The virtual device's adbd on a TCP port, speaking adb's transport protocol, so a real adb
server (the ``adb`` binary) connects to it as it connects to an emulator.

Messages are a 24-byte header (command, arg0, arg1, data length, data checksum, command
xor 0xffffffff, all little-endian) and the data. The server opens with CNXN, the device answers
CNXN with its banner (features shell_v2, stat_v2, ...). Each OPEN of a service (``shell,v2:``,
``sync:``, ``root:``) gets OKAY and a stream: data flows in WRTE messages, each acknowledged
with OKAY before the next is sent, until either side sends CLSE. A stream's service runs the
fake adbd's own handlers (`adb_server`) on one end of a socket pair, the other end relayed.
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading

from .adb_server import _Connection, is_device_service
from .loopback_tcp import LoopbackTCPService
from .virtual_device import VirtualDevice

A_CNXN, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_AUTH = 0x4E584E43, 0x4E45504F, 0x59414B4F, 0x45534C43, 0x45545257, 0x48545541
VERSION = 0x01000001
MAX_PAYLOAD = 256 * 1024
FEATURES = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec"


def pack(command: int, arg0: int, arg1: int, data: bytes = b"") -> bytes:
    return struct.pack("<6I", command, arg0, arg1, len(data), sum(data) & 0xFFFFFFFF, command ^ 0xFFFFFFFF) + data


class _Stream:
    """One service stream: the local end of a socket pair, relayed to the remote peer."""

    def __init__(self, transport: "_Transport", local_id: int, remote_id: int, request: str) -> None:
        self.transport, self.local_id, self.remote_id = transport, local_id, remote_id
        self.ours, theirs = socket.socketpair()
        self.acked = threading.Event()
        self.acked.set()
        self.closed = False
        connection = _Connection(None, theirs)
        connection.device = transport.device

        def serve() -> None:
            try:
                connection.serve_device_service(request)
            except (ConnectionError, OSError):
                pass
            finally:
                theirs.close()
        threading.Thread(target=serve, name=f"adbd-{request[:20]}", daemon=True).start()
        threading.Thread(target=self.pump, name="adbd-pump", daemon=True).start()

    def pump(self) -> None:
        """Service output -> WRTE messages, one at a time."""
        while True:
            try:
                data = self.ours.recv(MAX_PAYLOAD)
            except OSError:
                data = b""
            if not data:
                break
            self.acked.wait()
            if self.closed:
                return
            self.acked.clear()
            self.transport.send(pack(A_WRTE, self.local_id, self.remote_id, data))
        self.close(notify=True)

    def received(self, data: bytes) -> None:
        try:
            self.ours.sendall(data)
        except OSError:
            pass
        self.transport.send(pack(A_OKAY, self.local_id, self.remote_id))

    def close(self, notify: bool) -> None:
        if self.closed:
            return
        self.closed = True
        self.acked.set()
        if notify:
            self.transport.send(pack(A_CLSE, self.local_id, self.remote_id))
        self.transport.streams.pop(self.local_id, None)
        try:
            self.ours.close()
        except OSError:
            pass


class _Transport:
    def __init__(self, device: VirtualDevice, sock: socket.socket) -> None:
        self.device, self.sock = device, sock
        self.streams: dict[int, _Stream] = {}
        self.next_id = 1
        self.send_lock = threading.Lock()

    def send(self, message: bytes) -> None:
        with self.send_lock:
            try:
                self.sock.sendall(message)
            except OSError:
                pass

    def read_exact(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def serve(self) -> None:
        while True:
            header = self.read_exact(24)
            if header is None:
                break
            command, arg0, arg1, length, _check, _magic = struct.unpack("<6I", header)
            data = self.read_exact(length) if length else b""
            if data is None:
                break
            if command == A_CNXN:
                banner = (f"device::ro.product.name=sdk_gphone64_x86_64;ro.product.model=sdk_gphone64_x86_64;"
                          f"ro.product.device=emu64xa;features={FEATURES}").encode()
                self.send(pack(A_CNXN, VERSION, MAX_PAYLOAD, banner))
            elif command == A_OPEN:
                request = data.rstrip(b"\0").decode(errors="replace")
                if not is_device_service(request):
                    self.send(pack(A_CLSE, 0, arg0))
                    continue
                local_id, self.next_id = self.next_id, self.next_id + 1
                self.send(pack(A_OKAY, local_id, arg0))
                self.streams[local_id] = _Stream(self, local_id, arg0, request)
            elif command == A_WRTE and arg1 in self.streams:
                self.streams[arg1].received(data)
            elif command == A_OKAY and arg1 in self.streams:
                self.streams[arg1].acked.set()
            elif command == A_CLSE and arg1 in self.streams:
                self.streams[arg1].close(notify=False)
        for stream in list(self.streams.values()):
            stream.close(notify=False)


class AdbdServer(LoopbackTCPService):
    """``AdbdServer(device, port).start()``: adbd for `device` on 127.0.0.1:`port`."""

    def __init__(self, device: VirtualDevice, port: int = 0) -> None:
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                try:
                    _Transport(outer.device, self.request).serve()
                except (ConnectionError, OSError):
                    pass

        self.device = device
        super().__init__(Handler, port, name="fake-adbd", wait_for_clients=False)

