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

Shell command lines are parsed as ``sh`` would: quotes, backslashes, ``$?``, ``;``, ``&&``
and ``||``; any other shell operator (``|``, ``&``, ``<``, ``>``, ...) makes the command fail,
so a client that forgets to quote what it sends fails a test instead of passing by luck.
The commands are the ones gui-gym and adbutils send, run against a `VirtualDevice`.

``python -m tests.fakes.adb_server`` serves one virtual device until interrupted, to try the
env by hand: ``ANDROID_ADB_SERVER_PORT=<port> python -c "import gymnasium as gym, gui_gym; ..."``.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import socketserver
import struct
import threading
from typing import Callable

from .virtual_device import LAUNCHER, OTHER_PACKAGES, VirtualDevice

FEATURES = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec"
SYNC_CHUNK = 64 * 1024
TRANSPORT_PREFIXES = ("host:transport:", "host:tport:serial:")


class FakeAdbServer:
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

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        self._server.daemon_threads = True
        self._server.allow_reuse_address = True
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def start(self) -> "FakeAdbServer":
        self._server.server_bind()
        self._server.server_activate()
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-adb", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def close(self) -> None:
        """Stop serving and delete the devices' files."""
        self.stop()
        for device in self.devices.values():
            device.close()

    def __enter__(self) -> "FakeAdbServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


class _Connection:
    def __init__(self, server: FakeAdbServer, sock: socket.socket) -> None:
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
        if request.startswith("shell,v2:") or request.startswith("shell,v2,raw:"):
            self.okay()
            code, output = self.run(request.split(":", 1)[1])
            for packet_id, data in output:
                for start in range(0, len(data), SYNC_CHUNK):
                    chunk = data[start:start + SYNC_CHUNK]
                    self.sock.sendall(bytes([packet_id]) + struct.pack("<I", len(chunk)) + chunk)
            self.sock.sendall(bytes([3]) + struct.pack("<I", 1) + bytes([code & 0xFF]))
        elif request.startswith("shell:"):
            self.okay()
            _code, output = self.run(request[len("shell:"):])
            self.sock.sendall(b"".join(data for _, data in output))
        elif request == "sync:":
            self.okay()
            self.sync()
        else:
            self.fail(f"unknown service: {request}")

    def run(self, command_line: str) -> tuple[int, list[tuple[int, bytes]]]:
        if not command_line.strip():
            return 1, [(2, b"interactive shells are not supported by the fake adbd\n")]
        with self.device.lock:
            return run_command_line(self.device, command_line)

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
        if not path.parent.is_dir() or not self.readable(device_path):
            self.sync_fail(f"remote couldn't create file: {device_path}: No such file or directory")
            return False
        path.write_bytes(data)
        self.sock.sendall(b"OKAY" + struct.pack("<I", 0))
        return True


# ---- adbd's shell --------------------------------------------------------------------------

class ShellError(Exception):
    """A command failed: exit `code`, `message` on stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


EXIT_STATUS = "\0"
"""Stands for ``$?`` inside a parsed word until the command runs."""
_UNSUPPORTED = set("|&<>()`{}")


def parse_command_line(line: str) -> list[tuple[str | None, list[str]]]:
    """``[(connector, argv), ...]`` as sh splits a line; connector is None, ';', '&&' or '||'."""
    commands: list[tuple[str | None, list[str]]] = []
    words: list[str] = []
    word: list[str] | None = None
    connector: str | None = None
    i = 0
    while i < len(line):
        c = line[i]
        if c in " \t\n":
            if word is not None:
                words.append("".join(word))
                word = None
            i += 1
            continue
        if c == "#" and word is None:
            break
        if c == ";" or line.startswith(("&&", "||"), i):
            op = ";" if c == ";" else line[i:i + 2]
            if word is not None:
                words.append("".join(word))
                word = None
            if not words:
                raise ShellError(2, f"syntax error: unexpected '{op}'")
            commands.append((connector, words))
            words, connector = [], op
            i += len(op)
            continue
        if c in _UNSUPPORTED:
            raise ShellError(2, f"the fake shell does not support the operator {c!r} (did a caller forget to quote?)")
        word = word if word is not None else []
        if c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShellError(2, "syntax error: unterminated quoted string")
            word.append(line[i + 1:end])
            i = end + 1
        elif c == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                if line[i] == "\\" and i + 1 < len(line) and line[i + 1] in '"\\$`':
                    word.append(line[i + 1])
                    i += 2
                elif line[i] in "$`":
                    i = _expand(line, i, word)
                else:
                    word.append(line[i])
                    i += 1
            if i >= len(line):
                raise ShellError(2, "syntax error: unterminated quoted string")
            i += 1
        elif c == "\\":
            word.append(line[i + 1:i + 2])
            i += 2
        elif c == "$":
            i = _expand(line, i, word)
        else:
            word.append(c)
            i += 1
    if word is not None:
        words.append("".join(word))
    if words:
        commands.append((connector, words))
    elif connector in ("&&", "||"):
        raise ShellError(2, f"syntax error: unexpected end after '{connector}'")
    return commands


def _expand(line: str, i: int, word: list[str]) -> int:
    if line.startswith("$?", i):
        word.append(EXIT_STATUS)
        return i + 2
    raise ShellError(2, f"the fake shell does not expand {line[i:i + 2]!r} (did a caller forget to quote?)")


def run_command_line(device: VirtualDevice, line: str) -> tuple[int, list[tuple[int, bytes]]]:
    """Run a shell command line on `device`: the exit code and the output in the order it was
    written, as (1 for stdout or 2 for stderr, bytes) pieces."""
    try:
        commands = parse_command_line(line)
    except ShellError as exc:
        return exc.code, [(2, f"/system/bin/sh: {exc}\n".encode())]
    code, output = 0, []
    for connector, words in commands:
        if (connector == "&&" and code != 0) or (connector == "||" and code == 0):
            continue
        argv = [w.replace(EXIT_STATUS, str(code)) for w in words]
        handler = COMMANDS.get(argv[0])
        try:
            if handler is None:
                raise ShellError(127, f"/system/bin/sh: {argv[0]}: inaccessible or not found")
            result = handler(device, argv[1:])
            output.append((1, result if isinstance(result, bytes) else result.encode()))
            code = 0
        except ShellError as exc:
            output.append((2, f"{exc}\n".encode()))
            code = exc.code
    return code, output


def _path(device: VirtualDevice, path: str):
    if not device.root and path.startswith("/data/data"):
        raise ShellError(1, f"{path}: Permission denied")
    return device.host_path(path)


def _flags(args: list[str]) -> tuple[set[str], list[str]]:
    flags = {c for a in args if a.startswith("-") and len(a) > 1 for c in a[1:]}
    return flags, [a for a in args if not (a.startswith("-") and len(a) > 1)]


def _rm(device: VirtualDevice, args: list[str]) -> str:
    flags, paths = _flags(args)
    for name in paths:
        path = _path(device, name)
        if path.is_dir():
            if "r" not in flags:
                raise ShellError(1, f"rm: {name}: Is a directory")
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        elif "f" not in flags:
            raise ShellError(1, f"rm: {name}: No such file or directory")
    return ""


def _mkdir(device: VirtualDevice, args: list[str]) -> str:
    flags, paths = _flags(args)
    for name in paths:
        path = _path(device, name)
        if path.exists() and "p" not in flags:
            raise ShellError(1, f"mkdir: '{name}': File exists")
        if not path.parent.is_dir() and "p" not in flags:
            raise ShellError(1, f"mkdir: '{name}': No such file or directory")
        path.mkdir(parents=True, exist_ok=True)
    return ""


def _ls(device: VirtualDevice, args: list[str]) -> str:
    _, paths = _flags(args)
    out = []
    for name in paths or ["/"]:
        path = _path(device, name)
        if not path.exists():
            raise ShellError(1, f"ls: {name}: No such file or directory")
        out += sorted(p.name for p in path.iterdir()) if path.is_dir() else [name]
    return "".join(f"{line}\n" for line in out)


def _cat(device: VirtualDevice, args: list[str]) -> bytes:
    out = b""
    for name in args:
        path = _path(device, name)
        if not path.is_file():
            raise ShellError(1, f"cat: {name}: No such file or directory")
        out += path.read_bytes()
    return out


def _settings(device: VirtualDevice, args: list[str]) -> str:
    if len(args) < 2 or args[1] not in device.settings:
        raise ShellError(255, f"Invalid namespace in {' '.join(args)!r}: expected global, system or secure")
    verb, table = args[0], device.settings[args[1]]
    if verb == "get" and len(args) == 3:
        return table.get(args[2], "null") + "\n"
    if verb == "put" and len(args) >= 4:
        table[args[2]] = args[3]
        return ""
    if verb == "delete" and len(args) == 3:
        return f"Deleted {int(table.pop(args[2], None) is not None)} rows\n"
    if verb == "list" and len(args) == 2:
        return "".join(f"{k}={v}\n" for k, v in sorted(table.items()))
    raise ShellError(255, f"settings: bad arguments {args}")


def _svc(device: VirtualDevice, args: list[str]) -> str:
    keys = {"wifi": "wifi_on", "bluetooth": "bluetooth_on"}
    if len(args) != 2 or args[0] not in keys or args[1] not in ("enable", "disable"):
        raise ShellError(1, f"svc: unsupported {' '.join(args)!r}")
    device.settings["global"][keys[args[0]]] = "1" if args[1] == "enable" else "0"
    return ""


KEYCODES = {3: "HOME", 4: "BACK", 61: "TAB", 62: "SPACE", 66: "ENTER", 67: "DEL", 111: "ESCAPE", 112: "FORWARD_DEL"}
KEY_NAMES = {
    *KEYCODES.values(), *(chr(c) for c in range(ord("A"), ord("Z") + 1)), *(str(d) for d in range(10)),
    *(f"F{n}" for n in range(1, 13)), "DPAD_UP", "DPAD_DOWN", "DPAD_LEFT", "DPAD_RIGHT", "DPAD_CENTER", "MOVE_HOME",
    "MOVE_END", "PAGE_UP", "PAGE_DOWN", "CTRL_LEFT", "SHIFT_LEFT", "ALT_LEFT", "META_LEFT", "INSERT", "CAPS_LOCK",
    "VOLUME_UP", "VOLUME_DOWN", "VOLUME_MUTE", "POWER", "MENU", "SEARCH", "APP_SWITCH", "CAMERA", "COMMA", "PERIOD"}


def _keycode(name: str) -> str:
    if name.isdigit() and int(name) in KEYCODES:
        return "KEYCODE_" + KEYCODES[int(name)]
    bare = name.removeprefix("KEYCODE_")
    if bare not in KEY_NAMES:
        raise ShellError(255, f"Error: Unknown keycode {name!r}")
    return "KEYCODE_" + bare


def android_input_text(arg: str) -> str:
    """What Android's `input text` types for its argument: ``%s`` is a space."""
    out, escape = [], False
    for ch in arg:
        if escape and ch == "s":
            out[-1], escape = " ", False
        else:
            out.append(ch)
            escape = ch == "%"
    return "".join(out)


def _input(device: VirtualDevice, args: list[str]) -> str:
    if args and args[0] in ("touchscreen", "keyboard", "mouse", "touchpad", "dpad", "stylus"):
        args = args[1:]
    if not args:
        raise ShellError(255, "Usage: input [<source>] <command> [<arg>...]")
    command, rest = args[0], args[1:]
    try:
        numbers = [round(float(a)) for a in rest] if command in ("tap", "swipe", "draganddrop") else []
    except ValueError:
        raise ShellError(255, f"Error: {command} takes numbers, received {rest}") from None
    if command == "tap" and len(numbers) == 2:
        device.tap(*numbers)
    elif command in ("swipe", "draganddrop") and len(numbers) in (4, 5):
        device.swipe(*numbers[:4], numbers[4] if len(numbers) == 5 else 300)
    elif command == "text" and rest:
        text = android_input_text(rest[0])
        if not text.isascii():
            raise ShellError(255, "java.lang.NullPointerException: no key events map the text to the virtual keyboard")
        device.type_text(text)
    elif command == "keyevent" and rest:
        for name in (a for a in rest if not a.startswith("--")):
            device.key(_keycode(name))
    elif command == "keycombination" and rest:
        device.events.append(("keycombination", *(_keycode(a) for a in rest)))
    else:
        raise ShellError(255, f"Error: Unknown command or arguments: input {' '.join(args)}")
    return ""


def _screencap(device: VirtualDevice, args: list[str]) -> bytes:
    if args != ["-p"]:
        raise ShellError(1, "screencap: only `screencap -p` (PNG to stdout) is supported by the fake")
    return device.screencap_png()


def _uiautomator(device: VirtualDevice, args: list[str]) -> str:
    _, rest = _flags(args)
    if not rest or rest[0] != "dump" or len(rest) > 2:
        raise ShellError(1, f"uiautomator: unsupported {' '.join(args)!r}")
    target = rest[1] if len(rest) == 2 else "/sdcard/window_dump.xml"
    path = _path(device, target)
    if not path.parent.is_dir():
        raise ShellError(1, f"ERROR: could not write {target}")
    path.write_text(device.dump_xml(), encoding="utf-8")
    return f"UI hierchary dumped to: {target}\n"


def _dumpsys(device: VirtualDevice, args: list[str]) -> str:
    if not args or args[0] != "window":
        return f"Can't find service: {args[0] if args else ''}\n"
    component = f"{device.foreground}/{device.activity}"
    return (f"WINDOW MANAGER WINDOWS (dumpsys window windows)\n  Window #0 Window{{5c1e2a7 u0 {component}}}:\n"
            f"    mDisplayId=0 rootTaskId=1 mSession=Session{{1f0 1234:u0a10123}}\n"
            f"  mCurrentFocus=Window{{5c1e2a7 u0 {component}}}\n"
            f"  mFocusedApp=ActivityRecord{{9e83b01 u0 {component} t12}}\n")


def _am(device: VirtualDevice, args: list[str]) -> str:
    if args[:1] == ["force-stop"] and len(args) == 2:
        device.force_stop(args[1])
        return ""
    if args[:1] == ["broadcast"]:
        return "Broadcasting: Intent { act=" + (args[args.index("-a") + 1] if "-a" in args[:-1] else "") + " }\nBroadcast completed: result=0\n"
    if args[:1] == ["start"] and "-d" in args[:-1]:
        device.events.append(("view", args[args.index("-d") + 1]))
        return f"Starting: Intent {{ act=android.intent.action.VIEW dat={args[args.index('-d') + 1]} }}\n"
    if args[:1] == ["start"] and "-n" in args[:-1]:
        component = args[args.index("-n") + 1]
        if device.launch(component.split("/")[0]):
            return f"Starting: Intent {{ cmp={component} }}\n"
        raise ShellError(1, f"Error: Activity class {{{component}}} does not exist.")
    raise ShellError(1, f"am: unsupported {' '.join(args)!r}")


def _monkey(device: VirtualDevice, args: list[str]) -> str:
    if "-p" not in args[:-1]:
        raise ShellError(1, "monkey: expected -p <package>")
    if not device.launch(args[args.index("-p") + 1]):
        raise ShellError(252, "** No activities found to run, monkey aborted.")
    return "Events injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"


def _pm(device: VirtualDevice, args: list[str]) -> str:
    if args[:2] == ["list", "packages"]:
        return "".join(f"package:{p}\n" for p in sorted({LAUNCHER, *device.apps, *OTHER_PACKAGES}))
    if args[:1] == ["clear"] and len(args) == 2:
        if args[1] == "com.android.providers.contacts":
            device.contacts.clear()
        elif args[1] in device.apps:
            device.force_stop(args[1])
            device.apps[args[1]].clear_data()
        return "Success\n"
    raise ShellError(1, f"pm: unsupported {' '.join(args)!r}")


PHONES_URI = "content://com.android.contacts/data/phones"
RAW_CONTACTS_URI = "content://com.android.contacts/raw_contacts"


def _content(device: VirtualDevice, args: list[str]) -> str:
    options = dict(zip(args[1::2], args[2::2]))
    uri = options.get("--uri")
    if args[:1] == ["query"] and uri == PHONES_URI:
        rows = [{"_id": str(n + 1), "display_name": name, "number": number}
                for n, (name, number) in enumerate(device.contacts)]
        columns = options.get("--projection", "_id:display_name:number").split(":")
        if not set(columns) <= {"_id", "display_name", "number"}:
            raise ShellError(1, f"Error while accessing provider:contacts: no such column in {columns}")
        return "".join(f"Row: {n} " + ", ".join(f"{c}={row[c]}" for c in columns) + "\n"
                       for n, row in enumerate(rows)) or "No result found.\n"
    if args[:1] == ["delete"] and uri == RAW_CONTACTS_URI:
        device.contacts.clear()
        return ""
    raise ShellError(1, f"content: unsupported {' '.join(args)!r}")


PROPS = {"ro.build.version.sdk": "33", "ro.build.version.release": "13", "ro.product.model": "sdk_gphone64_x86_64"}

COMMANDS: dict[str, Callable[[VirtualDevice, list[str]], str | bytes]] = {
    "echo": lambda d, a: " ".join(a) + "\n",
    "getprop": lambda d, a: (PROPS.get(a[0], "") if a else "".join(f"[{k}]: [{v}]\n" for k, v in PROPS.items())) + "\n",
    "id": lambda d, a: ("0" if d.root else "2000") + "\n" if a == ["-u"] else f"uid={0 if d.root else 2000}\n",
    "touch": lambda d, a: "".join(_path(d, p).touch() or "" for p in a),
    "rm": _rm, "mkdir": _mkdir, "ls": _ls, "cat": _cat, "settings": _settings, "svc": _svc, "input": _input,
    "screencap": _screencap, "uiautomator": _uiautomator,
    "wm": lambda d, a: f"Physical size: {d.size[0]}x{d.size[1]}\n" if a == ["size"] else "Physical density: 420\n",
    "dumpsys": _dumpsys, "am": _am, "monkey": _monkey, "pm": _pm, "content": _content,
}


def record_sample(out_dir: str) -> None:
    """Record gui-gym's bundled AndroidControl sample on a fresh virtual device."""
    from gui_gym.backends.android import AndroidBackend, AndroidConfig
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
