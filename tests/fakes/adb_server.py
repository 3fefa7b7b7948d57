"""A fake adb server on loopback that speaks the real adb wire protocol, so adbutils (and so
gui-gym's Android backend) runs against it unchanged.

Host side, as the real server: a request is four hex digits of length plus the service
name; answers are ``OKAY`` or ``FAIL`` + a hex-length-prefixed message. Services:
``host:version``, ``host:devices(-l)``, ``host:transport:<serial>``, ``host:tport:serial:<s>``
(eight bytes of transport id follow the OKAY), ``host:transport-any``, ``host:tport:any``,
``host-serial:<s>:features|get-state|get-serialno``. Device side, as adbd: ``shell:<cmd>``
(raw output, then close), ``shell,v2:<cmd>`` (packets of a 1-byte id, 1 stdout / 2 stderr /
3 exit, and a 4-byte little-endian length) and ``sync:`` (STAT, LIST, RECV, SEND, DATA,
DONE, QUIT; 4-byte id + 4-byte little-endian length).

Shell command lines run in `device_shell` (the parser and stock commands) and `app_shell`
(what apps and their data need): the commands gui-gym and adbutils send.

``python -m tests.fakes.adb_server`` serves one virtual device until interrupted, to try the
env by hand: ``ANDROID_ADB_SERVER_PORT=<port> python -c "import gymnasium as gym, gui_gym; ..."``.
"""

from __future__ import annotations

import argparse
import socket
import socketserver
import struct
import threading

from .app_shell import APP_COMMANDS
from .device_shell import BASE_COMMANDS, run_command_line
from .loopback_tcp import LoopbackTCPService
from .virtual_device import VirtualDevice

FEATURES = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec"
SYNC_CHUNK = 64 * 1024
TRANSPORT_PREFIXES = ("host:transport:", "host:tport:serial:")


class FakeAdbServer(LoopbackTCPService):
    """``with FakeAdbServer([VirtualDevice()]) as server:`` -> an adb server at
    ``server.host:server.port`` with those devices attached."""

    def __init__(self, devices: list[VirtualDevice] | None = None, version: int = 41) -> None:
        self.devices = {d.serial: d for d in (devices if devices is not None else [VirtualDevice()])}
        self.version = version
        self.requests: list[str] = []
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as adb does
                try:
                    _Connection(outer, self.request).serve()
                except ConnectionError:
                    pass  # the client hung up mid-answer, as clients may

        super().__init__(Handler, 0, name="fake-adb")

    @property
    def host(self) -> str:
        return "127.0.0.1"

    def close(self) -> None:
        """Stop serving and delete the devices' files."""
        self.stop()
        for device in self.devices.values():
            device.close()

    def __enter__(self) -> "FakeAdbServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


def _shell_options(request: str) -> set[str] | None:
    """The options of a shell service (``shell,v2,TERM=xterm,raw:cmd`` -> {v2, TERM=xterm, raw}),
    None for another service."""
    head = request.split(":", 1)[0].split(",")
    return set(head[1:]) if head[0] == "shell" and ":" in request else None


def is_device_service(request: str) -> bool:
    return _shell_options(request) is not None or request in ("sync:", "root:")


class _Connection:
    def __init__(self, server: FakeAdbServer | None, sock: socket.socket) -> None:
        self.server, self.sock = server, sock
        self.device: VirtualDevice | None = None

    # ---- framing ------------------------------------------------------------------------

    def read_exact(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def okay(self, payload: bytes = b"") -> None:
        self.sock.sendall(b"OKAY" + payload)

    def okay_block(self, text: str) -> None:
        data = text.encode()
        self.okay(b"%04x" % len(data) + data)

    def fail(self, message: str) -> None:
        data = message.encode()
        self.sock.sendall(b"FAIL" + b"%04x" % len(data) + data)

    # ---- services -----------------------------------------------------------------------

    def serve(self) -> None:
        while True:
            header = self.read_exact(4)
            if header is None:
                return
            payload = self.read_exact(int(header, 16))
            if payload is None:
                return
            request = payload.decode()
            self.server.requests.append(request)
            if self.device is None:
                if not self.host_service(request):
                    return
            else:
                self.device_service(request)
                return

    def host_service(self, request: str) -> bool:
        """Answer one host request; True when the connection now talks to a device."""
        devices = self.server.devices
        if request == "host:version":
            self.okay_block(f"{self.server.version:04x}")
        elif request in ("host:devices", "host:devices-l"):
            extra = " product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 transport_id:1" if request.endswith("-l") else ""
            self.okay_block("".join(f"{serial}\tdevice{extra}\n" for serial in devices))
        elif request in ("host:transport-any", "host:tport:any") or request.startswith(TRANSPORT_PREFIXES):
            prefix = next((p for p in TRANSPORT_PREFIXES if request.startswith(p)), None)
            device = self.pick(request[len(prefix):] if prefix else None)
            if device is None:
                return False
            self.device = device
            self.okay(struct.pack("<Q", 1) if request.startswith("host:tport:") else b"")
            return True
        elif request.startswith("host-serial:"):
            serial = next((s for s in devices if request.startswith(f"host-serial:{s}:")), None)
            if serial is None:
                self.fail(f"device '{request.split(':')[1]}' not found")
                return False
            command = request[len(f"host-serial:{serial}:"):]
            answers = {"features": FEATURES, "get-state": "device", "get-serialno": serial}
            if command not in answers:
                self.fail(f"unknown host service: {command}")
                return False
            self.okay_block(answers[command])
        else:
            self.fail(f"unknown host service: {request}")
        return False

    def pick(self, serial: str | None) -> VirtualDevice | None:
        devices = self.server.devices
        if serial is not None:
            if serial not in devices:
                self.fail(f"device '{serial}' not found")
            return devices.get(serial)
        if len(devices) != 1:
            self.fail("no devices/emulators found" if not devices else "more than one device/emulator")
            return None
        return next(iter(devices.values()))

    def device_service(self, request: str) -> None:
        """Answer a device service as the adb server does: OKAY, then the service's stream."""
        if not is_device_service(request):
            self.fail(f"unknown service: {request}")
            return
        self.okay()
        self.serve_device_service(request)

    def serve_device_service(self, request: str) -> None:
        """The stream of a device service, as adbd writes it (the fake adbd behind a real adb
        transport serves it too, see `adbd_transport`)."""
        options = _shell_options(request)
        if options is not None and "v2" in options:
            code, output = self.run(request.split(":", 1)[1])
            for packet_id, data in output:
                for start in range(0, len(data), SYNC_CHUNK):
                    chunk = data[start:start + SYNC_CHUNK]
                    self.sock.sendall(bytes([packet_id]) + struct.pack("<I", len(chunk)) + chunk)
            self.sock.sendall(bytes([3]) + struct.pack("<I", 1) + bytes([code & 0xFF]))
        elif options is not None:
            _code, output = self.run(request.split(":", 1)[1])
            self.sock.sendall(b"".join(data for _, data in output))
        elif request == "sync:":
            self.sync()
        elif request == "root:":
            with self.device.lock:
                answer = "adbd is already running as root\n" if self.device.root else "restarting adbd as root\n"
                self.device.root = True
            self.sock.sendall(answer.encode())

    def run(self, command_line: str) -> tuple[int, list[tuple[int, bytes]]]:
        if not command_line.strip():
            return 1, [(2, b"interactive shells are not supported by the fake adbd\n")]
        with self.device.lock:
            return run_command_line(self.device, command_line, COMMANDS)

    def sync(self) -> None:
        device = self.device
        while True:
            header = self.read_exact(8)
            if header is None:
                return
            command, length = header[:4].decode(), struct.unpack("<I", header[4:])[0]
            argument = self.read_exact(length).decode() if length else ""
            if command == "QUIT":
                return
            with device.lock:
                if command == "STAT":
                    path = device.host_path(argument)
                    if path.exists() and self.readable(argument):
                        st = path.stat()
                        self.sock.sendall(b"STAT" + struct.pack("<III", st.st_mode, st.st_size, int(st.st_mtime)))
                    else:
                        self.sock.sendall(b"STAT" + struct.pack("<III", 0, 0, 0))
                elif command == "LIST":
                    self.sync_list(argument)
                elif command == "RECV":
                    self.sync_recv(argument)
                elif command == "SEND":
                    if not self.sync_send(argument):
                        return
                else:
                    self.sync_fail(f"unknown sync command {command!r}")
                    return

    def sync_fail(self, message: str) -> None:
        data = message.encode()
        self.sock.sendall(b"FAIL" + struct.pack("<I", len(data)) + data)

    def readable(self, device_path: str) -> bool:
        return self.device.root or not device_path.startswith("/data/data/")

    def sync_list(self, device_path: str) -> None:
        path = self.device.host_path(device_path)
        if path.is_dir() and self.readable(device_path):
            for entry in [path, path.parent, *sorted(path.iterdir())]:
                name = {path: ".", path.parent: ".."}.get(entry, entry.name).encode()
                st = entry.stat()
                self.sock.sendall(b"DENT" + struct.pack("<IIII", st.st_mode, st.st_size, int(st.st_mtime), len(name)) + name)
        self.sock.sendall(b"DONE" + struct.pack("<IIII", 0, 0, 0, 0))

    def sync_recv(self, device_path: str) -> None:
        path = self.device.host_path(device_path)
        if not self.readable(device_path):
            self.sync_fail(f"remote open failed: {device_path}: Permission denied")
        elif not path.is_file():
            self.sync_fail(f"remote open failed: {device_path}: No such file or directory")
        else:
            data = path.read_bytes()
            for start in range(0, len(data), SYNC_CHUNK):
                chunk = data[start:start + SYNC_CHUNK]
                self.sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
            self.sock.sendall(b"DONE" + struct.pack("<I", 0))

    def sync_send(self, argument: str) -> bool:
        device_path, _, _mode = argument.rpartition(",")
        data = b""
        while True:
            header = self.read_exact(8)
            if header is None:
                return False
            kind, value = header[:4], struct.unpack("<I", header[4:])[0]
            if kind == b"DATA":
                data += self.read_exact(value) or b""
            elif kind == b"DONE":
                break
            else:
                self.sync_fail(f"unexpected {kind!r} while receiving a file")
                return False
        path = self.device.host_path(device_path)
        if not self.readable(device_path) or (path.parent.exists() and not path.parent.is_dir()):
            self.sync_fail(f"remote couldn't create file: {device_path}: Not a directory")
            return False
        path.parent.mkdir(parents=True, exist_ok=True)  # adbd makes the folders a pushed file needs
        path.write_bytes(data)
        self.device.stamp(path)
        self.sock.sendall(b"OKAY" + struct.pack("<I", 0))
        return True


COMMANDS = {**BASE_COMMANDS, **APP_COMMANDS}


def record_sample(out_dir: str) -> None:
    """Record gui-gym's bundled AndroidControl sample on a fresh virtual device."""
    from gui_gym.backends.android.backend import AndroidBackend, AndroidConfig
    from gui_gym.suites.android.recording import SAMPLE_SCRIPTS, record_episode

    with FakeAdbServer([VirtualDevice()]) as server:
        backend = AndroidBackend(AndroidConfig(adb_port=server.port))
        backend.start()
        for script in SAMPLE_SCRIPTS:
            backend.new_episode()
            print(record_episode(backend, script, out_dir))
        backend.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serial", default="emulator-5554")
    parser.add_argument("--record-sample", metavar="FOLDER", help="record the AndroidControl sample into FOLDER and exit")
    args = parser.parse_args()
    if args.record_sample:
        record_sample(args.record_sample)
        return
    with FakeAdbServer([VirtualDevice(args.serial)]) as server:
        print(f"fake adb server with {args.serial} on {server.host}:{server.port}; Ctrl-C to stop", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
