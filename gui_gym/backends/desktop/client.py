"""A client of OSWorld's in-VM server protocol (the HTTP API OSWorld's ``PythonController``
and ``SetupController`` speak), over loopback/TCP or a Unix socket.

The same client talks to a real OSWorld VM (providers ``docker``, ``vmware``, ``remote``) and
to our own server (provider ``local``). Our server also offers a few ``/gui-gym/`` extensions
(canonical actions in-process, settling by screen stability, raw frames); `extensions` says
which the server has, and callers fall back to the plain protocol when it has none.

Every call has a timeout, and `abort` ends the calls in flight at once (the backend's step
deadline); transport failures raise `InfraError` (the VM is gone), protocol answers that say
"no" come back as `ServerError` with the status and the server's message, and our server's
``413`` (a file, listing, command output or accessibility tree past its bound: the agent made
it so) as `LimitExceededError`.
"""

from __future__ import annotations

import base64
import http.client
import json
import secrets
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from gui_gym.actions import Action
from gui_gym.errors import GUIGymError, InfraError, LimitExceededError
from gui_gym.runtime.waiting import wait_until

TOKEN_HEADER = "X-GUI-Gym-Token"


class ServerError(GUIGymError):
    """The server answered a request with an error status."""

    def __init__(self, method: str, path: str, status: int, message: str):
        super().__init__(f"{method} {path} -> HTTP {status}: {message}")
        self.status, self.message = status, message


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, socket_path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self.socket_path = socket_path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self.socket_path)
        self.sock = sock


@dataclass(frozen=True)
class Endpoint:
    """Where a server listens: ``host``/``port`` over TCP, or a Unix ``socket_path``."""

    host: str = "127.0.0.1"
    port: int = 5000
    socket_path: str | None = None
    token: str | None = None

    def describe(self) -> str:
        return f"unix:{self.socket_path}" if self.socket_path else f"http://{self.host}:{self.port}"


class ServerClient:
    """Requests to one desktop server."""

    def __init__(self, endpoint: Endpoint, timeout_s: float = 30.0):
        self.endpoint = endpoint
        self.timeout_s = timeout_s
        self._extensions: frozenset[str] | None = None
        self._open: set[http.client.HTTPConnection] = set()
        self._open_lock = threading.Lock()

    # ---- transport ---------------------------------------------------------------------------

    def request(self, method: str, path: str, *, json_body: Any = None, form: dict[str, str] | None = None,
                body: bytes | None = None, content_type: str | None = None, timeout_s: float | None = None,
                max_bytes: int | None = None) -> tuple[int, dict[str, str], bytes]:
        """One HTTP exchange; returns (status, headers, body). Raises InfraError when the
        server cannot be reached, LimitExceededError when the body is over `max_bytes` (read
        no further than that: the body may be an agent's file)."""
        headers: dict[str, str] = {}
        if json_body is not None:
            body, content_type = json.dumps(json_body).encode(), "application/json"
        elif form is not None:
            body, content_type = urlencode(form).encode(), "application/x-www-form-urlencoded"
        if content_type:
            headers["Content-Type"] = content_type
        if self.endpoint.token:
            headers[TOKEN_HEADER] = self.endpoint.token
        timeout = timeout_s or self.timeout_s
        ep = self.endpoint
        conn = (_UnixConnection(ep.socket_path, timeout) if ep.socket_path
                else http.client.HTTPConnection(ep.host, ep.port, timeout=timeout))
        with self._open_lock:
            self._open.add(conn)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, _read(response, max_bytes)
        except (OSError, http.client.HTTPException) as exc:
            raise InfraError(f"desktop server at {ep.describe()} unreachable ({method} {path}): "
                             f"{type(exc).__name__}: {exc}") from exc
        finally:
            with self._open_lock:
                self._open.discard(conn)
            conn.close()

    def abort(self) -> None:
        """Make every request in flight fail at once (from another thread): its socket is shut
        down, so a call waiting on a hung server returns instead of waiting out its timeout."""
        with self._open_lock:
            sockets = [conn.sock for conn in self._open if conn.sock is not None]
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed

    def call(self, method: str, path: str, **kwargs: Any) -> bytes:
        """`request`, raising ServerError on a non-200 answer (LimitExceededError on a 413)."""
        status, _, data = self.request(method, path, **kwargs)
        if status != 200:
            _refuse(method, path, status, data)
        return data

    def call_json(self, method: str, path: str, **kwargs: Any) -> Any:
        return json.loads(self.call(method, path, **kwargs) or b"null")

    def wait_ready(self, timeout_s: float) -> None:
        """Poll until the server answers (OSWorld VMs take a while to boot); InfraError with
        the last failure when it does not within `timeout_s`."""
        failure: list[InfraError] = []

        def answers() -> bool:
            try:
                self.call("GET", "/platform", timeout_s=min(5.0, timeout_s))
            except InfraError as exc:
                failure[:] = [exc]
                return False
            return True
        if not wait_until(answers, timeout_s, interval_s=0.25, max_interval_s=2.0):
            raise failure[0] if failure else InfraError(f"{self.endpoint.describe()} did not answer")

    # ---- the OSWorld protocol ------------------------------------------------------------------

    def screenshot_png(self) -> bytes:
        return self.call("GET", "/screenshot")

    def accessibility_tree(self) -> str:
        return self.call_json("GET", "/accessibility")["AT"]

    def terminal_output(self) -> str | None:
        return self.call_json("GET", "/terminal").get("output")

    def execute(self, command: str | Sequence[str], shell: bool = False, timeout_s: float = 120.0,
                setup: bool = False) -> dict[str, Any]:
        """Run a command in the VM: ``{status, output, error, returncode}``."""
        path = "/setup/execute" if setup else "/execute"
        payload = {"command": command if isinstance(command, str) else list(command), "shell": shell}
        return self.call_json("POST", path, json_body=payload, timeout_s=timeout_s + 10)

    def launch(self, command: str | Sequence[str], shell: bool = False) -> None:
        payload = {"command": command if isinstance(command, str) else list(command), "shell": shell}
        self.call("POST", "/setup/launch", json_body=payload)

    def get_file(self, path: str, max_bytes: int | None = None) -> bytes | None:
        """The file's bytes, or None when the VM has no such file; LimitExceededError when it
        is over `max_bytes` (our server stops reading there: it is told the bound)."""
        form = {"file_path": path} if max_bytes is None else {"file_path": path, "max_bytes": str(max_bytes)}
        status, _, data = self.request("POST", "/file", form=form, timeout_s=120, max_bytes=max_bytes)
        if status == 404:
            return None
        if status != 200:
            _refuse("POST", "/file", status, data)
        return data

    def upload(self, path: str, data: bytes) -> None:
        boundary = secrets.token_hex(16)
        name = path.rsplit("/", 1)[-1]
        body = b"".join([
            f'--{boundary}\r\nContent-Disposition: form-data; name="file_path"\r\n\r\n{path}\r\n'.encode(),
            f'--{boundary}\r\nContent-Disposition: form-data; name="file_data"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode(), data, b"\r\n",
            f"--{boundary}--\r\n".encode()])
        self.call("POST", "/setup/upload", body=body, content_type=f"multipart/form-data; boundary={boundary}",
                  timeout_s=600)

    def open_file(self, path: str, timeout_s: float = 120.0) -> None:
        self.call("POST", "/setup/open_file", json_body={"path": path}, timeout_s=timeout_s)

    def activate_window(self, window_name: str, strict: bool = False, by_class: bool = False) -> bool:
        """True when a window matched (OSWorld only logs a miss; callers decide)."""
        status, _, _ = self.request("POST", "/setup/activate_window",
                                    json_body={"window_name": window_name, "strict": strict, "by_class": by_class})
        return status == 200

    def close_window(self, window_name: str, strict: bool = False, by_class: bool = False) -> bool:
        status, _, _ = self.request("POST", "/setup/close_window",
                                    json_body={"window_name": window_name, "strict": strict, "by_class": by_class})
        return status == 200

    def screen_size(self) -> tuple[int, int]:
        size = self.call_json("POST", "/screen_size")
        return int(size["width"]), int(size["height"])

    def window_size(self, app_class_name: str) -> dict[str, int] | None:
        status, _, data = self.request("POST", "/window_size", form={"app_class_name": app_class_name})
        return json.loads(data) if status == 200 else None

    def list_directory(self, path: str, max_bytes: int | None = None) -> dict | None:
        """The folder's tree, or None when it is not a folder; LimitExceededError when the
        answer is over `max_bytes` (our server stops listing there) or took our server too long."""
        body = {"path": path} if max_bytes is None else {"path": path, "max_bytes": max_bytes}
        status, _, data = self.request("POST", "/list_directory", json_body=body, max_bytes=max_bytes)
        if status == 413:
            _refuse("POST", "/list_directory", status, data)
        return json.loads(data) if status == 200 else None

    def wallpaper(self) -> bytes | None:
        """The desktop's wallpaper image (OSWorld's ``/wallpaper``), or None when it has none."""
        status, _, data = self.request("POST", "/wallpaper", timeout_s=60)
        return data if status == 200 and data else None

    def cursor_position(self) -> tuple[int, int]:
        x, y = self.call_json("GET", "/cursor_position")
        return int(x), int(y)

    # ---- gui-gym extensions (our server only) --------------------------------------------------

    @property
    def extensions(self) -> frozenset[str]:
        """The ``/gui-gym/`` extensions the server offers (none on an OSWorld VM)."""
        if self._extensions is None:
            status, _, data = self.request("GET", "/gui-gym/info")
            self._extensions = frozenset(json.loads(data).get("extensions", ())) if status == 200 else frozenset()
        return self._extensions

    def perform(self, action: Action) -> None:
        self.call("POST", "/gui-gym/input", json_body={"action": action.to_dict()}, timeout_s=120)

    def settle(self, timeout_s: float, stable_frames: int, interval_s: float, change_timeout_s: float,
               launch_timeout_s: float = 0.0) -> dict:
        return self.call_json("POST", "/gui-gym/settle", timeout_s=max(timeout_s, launch_timeout_s) + 10, json_body={
            "timeout_s": timeout_s, "stable_frames": stable_frames, "interval_s": interval_s,
            "change_timeout_s": change_timeout_s, "launch_timeout_s": launch_timeout_s})

    def ready(self, timeout_s: float) -> dict:
        """Wait until the programs the setup launched are up and the screen is still:
        ``{ready, elapsed_s, pending}``."""
        return self.call_json("POST", "/gui-gym/ready", json_body={"timeout_s": timeout_s}, timeout_s=timeout_s + 10)

    def idle(self, timeout_s: float) -> dict:
        """Wait until nothing the agent started is at work: ``{ready, elapsed_s, pending}``."""
        return self.call_json("POST", "/gui-gym/idle", json_body={"timeout_s": timeout_s}, timeout_s=timeout_s + 10)

    def mark(self) -> None:
        """Remember the current screen; the next settle waits for a change from it."""
        self.call("POST", "/gui-gym/mark")

    def frame(self) -> tuple[int, int, bytes]:
        """(width, height, RGB24 bytes) of the screen, pointer drawn."""
        status, headers, data = self.request("GET", "/gui-gym/frame")
        if status != 200:
            raise ServerError("GET", "/gui-gym/frame", status, data.decode(errors="replace")[:500])
        return int(headers["x-width"]), int(headers["x-height"]), data

    def run_python(self, files: dict[str, bytes], script: str, arguments: list[str], timeout_s: float) -> dict:
        """Run ``python -I SCRIPT FOLDER RESULT_FD ARGUMENTS...`` in a fresh folder holding
        `files`, out of the agent's reach (our server's ``run_python`` extension; see
        `evaluator_runs`): ``{returncode, output, error, result}``."""
        payload = {"files": {name: base64.b64encode(data).decode() for name, data in files.items()},
                   "script": script, "arguments": arguments, "timeout_s": timeout_s}
        return self.call_json("POST", "/gui-gym/run_python", json_body=payload, timeout_s=timeout_s + 30)

    def begin_evaluation(self) -> list[dict]:
        """The agent is done: our server stops its leftover processes, runs what comes next for
        the evaluation and guards the files it writes (its ``evaluation`` extension; see
        `Session.begin_evaluation`). The processes stopped (pid, uid, command)."""
        return self.call_json("POST", "/gui-gym/evaluation", timeout_s=60)["stopped"]

    def replaced_files(self) -> list[str]:
        """The files written since `begin_evaluation` whose name was removed, moved or replaced."""
        return self.call_json("GET", "/gui-gym/evaluation")["replaced"]

    def shutdown(self) -> None:
        self.request("POST", "/gui-gym/shutdown", timeout_s=5)


def _refuse(method: str, path: str, status: int, data: bytes) -> None:
    """Raise for a non-200 answer: LimitExceededError for our server's 413 (the agent's content
    past a bound), ServerError otherwise."""
    message = data.decode(errors="replace")[:500]
    if status == 413:
        raise LimitExceededError(f"the desktop refused {method} {path}: {message}")
    raise ServerError(method, path, status, message)


def _read(response: http.client.HTTPResponse, max_bytes: int | None) -> bytes:
    """The response's body, refused past `max_bytes` (from its announced length when it has one)."""
    if max_bytes is None:
        return response.read()
    announced = response.getheader("Content-Length")
    if announced is not None and announced.isdigit() and int(announced) > max_bytes:
        raise LimitExceededError(f"the answer is {int(announced)} bytes, over the {max_bytes} bytes allowed")
    data = response.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise LimitExceededError(f"the answer is over the {max_bytes} bytes allowed")
    return data
