"""`ServerClient` against a stand-in OSWorld VM speaking the protocol on loopback (the real
client runs; only the VM is a double), and over a Unix socket."""

from __future__ import annotations

import io
import json
import socketserver
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest
from PIL import Image

from gui_gym.backends.desktop.client import Endpoint, ServerClient, ServerError
from gui_gym.backends.desktop.inside.server import _Request
from gui_gym.errors import InfraError


class FakeVM:
    """An OSWorld VM's server, on loopback: files in a dict, commands answered by `run`.

    Records what setup asked for (launches, opened files, window operations)."""

    def __init__(self, run: Callable[[Any, bool], dict[str, Any]] | None = None, socket_path: str | None = None):
        self.files: dict[str, bytes] = {}
        self.calls: list[tuple[str, Any]] = []
        self.windows = ["sales.xlsx - LibreOffice Calc"]
        self.run = run or (lambda command, shell: {"status": "success", "output": "", "error": "", "returncode": 0})
        handler = self._handler()
        if socket_path:
            class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
                daemon_threads = True
            self.server = Server(socket_path, handler)
            self.endpoint = Endpoint(socket_path=socket_path)
        else:
            self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            self.endpoint = Endpoint(port=self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeVM":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def client(self) -> ServerClient:
        return ServerClient(self.endpoint, timeout_s=5)

    def _route(self, method: str, path: str, request: _Request) -> tuple[int, Any]:
        if (method, path) == ("GET", "/platform"):
            return 200, "Linux"
        if (method, path) == ("GET", "/screenshot"):
            out = io.BytesIO()
            Image.new("RGB", (4, 3), (10, 20, 30)).save(out, format="PNG")
            return 200, out.getvalue()
        if (method, path) == ("POST", "/screen_size"):
            return 200, {"width": 1920, "height": 1080}
        if path in ("/execute", "/setup/execute"):
            body = request.json()
            self.calls.append((path, body["command"]))
            return 200, self.run(body["command"], body.get("shell", False))
        if path == "/setup/launch":
            self.calls.append(("launch", request.json()["command"]))
            return 200, "launched"
        if path == "/file":
            name = request.form()["file_path"]
            return (200, self.files[name]) if name in self.files else (404, "not found")
        if path == "/setup/upload":
            fields = request.multipart()
            self.files[fields["file_path"].decode()] = fields["file_data"]
            return 200, "File Uploaded"
        if path == "/setup/open_file":
            self.calls.append(("open", request.json()["path"]))
            return 200, "opened"
        if path in ("/setup/activate_window", "/setup/close_window"):
            body = request.json()
            self.calls.append((path.rsplit("/", 1)[1], body["window_name"]))
            found = any(body["window_name"] in w for w in self.windows)
            return (200, "ok") if found else (404, "no window")
        if (method, path) == ("GET", "/accessibility"):
            return 200, {"AT": "<desktop-frame/>"}
        if (method, path) == ("GET", "/terminal"):
            return 200, {"output": "user@vm:~$ stty size\n43 132\n"}
        if path == "/list_directory":
            return 200, {"directory_tree": {"name": "user", "type": "directory", "children": []}}
        return 404, f"no endpoint {method} {path}"

    def _handler(self):
        vm = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def address_string(self) -> str:
                return "local"

            def do_GET(self) -> None:
                self._answer("GET")

            def do_POST(self) -> None:
                self._answer("POST")

            def _answer(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, result = vm._route(method, self.path, _Request(self.headers, body))
                data = result if isinstance(result, bytes) else (
                    json.dumps(result).encode() if isinstance(result, (dict, list)) else str(result).encode())
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
        return Handler


@pytest.fixture
def vm():
    with FakeVM() as fake:
        yield fake


def test_files_round_trip_and_a_missing_file_is_none(vm):
    client = vm.client()
    client.upload("/home/user/a b.txt", b"x < y\x00\xff")
    assert vm.files["/home/user/a b.txt"] == b"x < y\x00\xff"
    assert client.get_file("/home/user/a b.txt") == b"x < y\x00\xff"
    assert client.get_file("/home/user/none.txt") is None


def test_execute_sends_the_command_and_returns_osworld_reply(vm):
    vm.run = lambda command, shell: {"status": "success", "output": f"{command}|{shell}", "error": "", "returncode": 0}
    reply = vm.client().execute(["ls", "-l"], shell=False)
    assert reply["output"] == "['ls', '-l']|False" and reply["returncode"] == 0
    assert vm.client().execute("echo hi", shell=True, setup=True)["output"] == "echo hi|True"
    assert vm.calls[-1] == ("/setup/execute", "echo hi")


def test_windows_and_setup_endpoints(vm):
    client = vm.client()
    assert client.activate_window("sales.xlsx") is True
    assert client.close_window("nothing here") is False
    client.launch(["mousepad"])
    client.open_file("/home/user/x.txt")
    assert ("launch", ["mousepad"]) in vm.calls and ("open", "/home/user/x.txt") in vm.calls
    assert client.screen_size() == (1920, 1080)
    assert client.terminal_output().endswith("43 132\n")
    assert client.accessibility_tree() == "<desktop-frame/>"
    assert client.list_directory("/home/user")["directory_tree"]["name"] == "user"


def test_an_osworld_vm_has_no_gui_gym_extensions(vm):
    assert vm.client().extensions == frozenset()
    with pytest.raises(ServerError, match=r"GET /gui-gym/frame -> HTTP 404"):
        vm.client().frame()


def test_screenshot_is_png(vm):
    assert vm.client().screenshot_png().startswith(b"\x89PNG")


def test_unix_socket_transport(tmp_path: Path):
    with FakeVM(socket_path=str(tmp_path / "vm.sock")) as fake:
        client = fake.client()
        client.upload("/f", b"data")
        assert client.get_file("/f") == b"data"


def test_unreachable_server_is_an_infra_error(tmp_path: Path):
    client = ServerClient(Endpoint(socket_path=str(tmp_path / "missing.sock")), timeout_s=1)
    with pytest.raises(InfraError, match=r"desktop server at unix:.*missing.sock unreachable \(GET /platform\)"):
        client.call("GET", "/platform")
    with pytest.raises(InfraError, match="unreachable"):
        client.wait_ready(0.5)
