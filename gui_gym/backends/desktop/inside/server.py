"""Our implementation of OSWorld's in-VM server protocol, for the local desktop provider.

It runs inside the sandbox (see `sandbox.py`) as the session's main process, serves the
endpoints gui-gym's client uses with OSWorld's request and reply shapes (``/screenshot``,
``/execute``, ``/setup/*``, ``/file``, ``/accessibility``, ...), and adds a few of its own
under ``/gui-gym/``: canonical actions carried out in-process (`x11input`), settling by
screen stability (`capture`), waiting for the task's apps at reset and for the agent's work
before evaluation (`readiness`), raw frames (no PNG round trip) and shutdown.

Every request must carry the per-env token (header ``X-GUI-Gym-Token``), which the server
reads from a pipe and keeps in memory only. It listens on a Unix socket in a folder only the
sandbox's root (the server's uid) may enter, which the host reaches through the sandbox's root
folder, or on a loopback TCP port; never on another interface.

Commands sent to ``/execute`` and ``/setup/*`` come from task files (as in OSWorld, where the
same commands run inside the VM); they run here, inside the sandbox, as ``user``, Python lines
isolated (`commands.py`), and so do the file reads, writes and listings of ``/file``,
``/setup/*`` and ``/list_directory``, through no link (`user_files.py`): the evaluator sees the
desktop as the user does, and nothing the agent left there steers it. The evaluator's own
Python runs (a task's test suite) run apart, under an id of their own (`evaluator_runs.py`). Agent actions never come here as code: the env parses them into canonical
actions first.

``POST /gui-gym/evaluation`` says the agent is done (`Session.begin_evaluation`: its leftover
processes stop, what runs for the evaluation runs under the evaluator's group, the files it
writes are guarded); ``GET /gui-gym/evaluation`` says which guarded file was replaced since.
What the server makes of the agent's content is bounded: a file read, a folder listing, a
command's output and the accessibility tree past their bound are answered ``413`` with the
reason, a refusal the evaluator scores 0.
"""

from __future__ import annotations

import logging
import argparse
import base64
import email.parser
import email.policy
import hmac
import json
import os
import signal
import socket
import socketserver
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from gui_gym.actions import Action
from gui_gym.backends.desktop.inside import activity, bounded_run, evaluator_runs
from gui_gym.backends.desktop.inside.session import MAX_FILE_BYTES, MAX_LISTING_BYTES, FileInTheWay, Session, TooBig
from gui_gym.backends.desktop.shell import DEFAULT_SHELL, SHELLS, WINDOW_KEYS
from gui_gym.errors import GUIGymError

logger = logging.getLogger(__name__)

TOKEN_HEADER = "X-GUI-Gym-Token"
A11Y_PYTHON = "/usr/bin/python3"
A11Y_SCRIPT = Path(__file__).with_name("a11y_dump.py")
MAX_A11Y_BYTES = 32 << 20
"""The largest accessibility tree the server hands out (an agent's web page names its nodes)."""
SERVER_VERSION = "1"
READY_STILL_FRAMES = 8
"""Identical frames (40 ms apart) that end the wait for the task's apps: a third of a second."""


class Reply(Exception):
    """Raised by a route to answer with a status code and a message (or a JSON body)."""

    def __init__(self, status: int, body: Any):
        super().__init__(str(body))
        self.status, self.body = status, body


class DesktopServer:
    """The routes, over one `Session`, its input and its screen."""

    def __init__(self, session, token: str):
        from gui_gym.backends.desktop.inside.capture import ScreenCapture
        from gui_gym.backends.desktop.inside.x11input import X11Input

        self.session = session
        self.token = token
        self.input = X11Input(":0")
        self.capture = ScreenCapture()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.new_programs: activity.NewPrograms | None = None
        """The programs the last action (or setup step) started, for the settle that follows."""
        self.routes: dict[tuple[str, str], Callable[[Any], Any]] = {
            ("GET", "/screenshot"): lambda r: ("image/png", self.capture.png()),
            ("GET", "/accessibility"): lambda r: {"AT": self.accessibility_tree()},
            ("GET", "/terminal"): lambda r: {"output": self.terminal_text()},
            ("GET", "/platform"): lambda r: ("text/plain", b"Linux"),
            ("GET", "/cursor_position"): lambda r: list(self.input.pointer),
            ("POST", "/screen_size"): lambda r: dict(zip(("width", "height"), self.capture.size)),
            ("POST", "/window_size"): self.window_size,
            ("POST", "/desktop_path"): lambda r: {"desktop_path": str(self.session.home / "Desktop")},
            ("POST", "/list_directory"): self.list_directory,
            ("POST", "/execute"): self.execute,
            ("POST", "/setup/execute"): lambda r: self.execute(r, setup=True),
            ("POST", "/setup/launch"): self.launch,
            ("POST", "/file"): self.get_file,
            ("POST", "/setup/upload"): self.upload,
            ("POST", "/setup/open_file"): self.open_file,
            ("POST", "/setup/activate_window"): lambda r: self.window_op(r, "activate"),
            ("POST", "/setup/close_window"): lambda r: self.window_op(r, "close"),
            ("POST", "/setup/download_file"): self.download,
            ("GET", "/gui-gym/info"): lambda r: {"version": SERVER_VERSION, "screen": list(self.capture.size),
                                                 "extensions": ["input", "settle", "mark", "frame", "ready", "idle",
                                                                "run_python", "evaluation"],
                                                 "running": self.session.alive()},
            ("POST", "/gui-gym/input"): self.perform,
            ("POST", "/gui-gym/settle"): self.settle,
            ("POST", "/gui-gym/mark"): self.mark,
            ("POST", "/gui-gym/ready"): self.ready,
            ("POST", "/gui-gym/idle"): self.idle,
            ("GET", "/gui-gym/frame"): self.frame,
            ("POST", "/gui-gym/run_python"): self.run_python,
            ("POST", "/gui-gym/evaluation"): self.begin_evaluation,
            ("GET", "/gui-gym/evaluation"): lambda r: {"replaced": self.session.guarded.replaced()},
            ("POST", "/gui-gym/shutdown"): self.shutdown,
        }

    # ---- protocol endpoints -----------------------------------------------------------------

    def execute(self, request, setup: bool = False) -> dict:
        """A command as the user, Python lines isolated (`commands.normalize_command`)."""
        body = request.json()
        command = _required(body, "command")
        timeout_s = float(body.get("timeout", 120))
        return self.session.run(command, bool(body.get("shell", False)), timeout_s, setup=setup)

    def launch(self, request) -> tuple[str, bytes]:
        body = request.json()
        command = _required(body, "command")
        try:
            self.session.launch(command, bool(body.get("shell", False)))
        except (OSError, ValueError) as exc:
            raise Reply(HTTPStatus.BAD_REQUEST, f"cannot launch {command!r}: {exc}") from exc
        return "text/plain", f"{command} launched successfully".encode()

    def get_file(self, request) -> tuple[str, bytes]:
        form = request.form()
        path = Path(_required(form, "file_path")).expanduser()
        data = self.session.read_file(path, _bound(form, "max_bytes", MAX_FILE_BYTES))
        if data is None:
            raise Reply(HTTPStatus.NOT_FOUND, f"file not found: {path}")
        return "application/octet-stream", data

    def upload(self, request) -> tuple[str, bytes]:
        fields = request.multipart()
        path = Path(_required(fields, "file_path").decode()).expanduser()
        self._write(path, _required(fields, "file_data"))
        return "text/plain", b"File Uploaded"

    def _write(self, path: Path, data: bytes) -> None:
        # LibreOffice compares modification times at 1 s resolution; a fraction reads as "changed by others"
        try:
            self.session.write_file(path, data, int(time.time()) - 1)
        except FileInTheWay as exc:
            raise Reply(HTTPStatus.CONFLICT, str(exc)) from exc
        except OSError as exc:
            raise Reply(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc)) from exc

    def open_file(self, request) -> tuple[str, bytes]:
        from gui_gym.backends.desktop.inside.windows import open_file

        path = _required(request.json(), "path")
        try:
            window = open_file(self.session, self.capture, path, float(request.json().get("timeout", 60)))
        except FileNotFoundError as exc:
            raise Reply(HTTPStatus.NOT_FOUND, str(exc)) from exc
        except TimeoutError as exc:
            raise Reply(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc)) from exc
        return "text/plain", f"File opened successfully: {window.title}".encode()

    def window_op(self, request, op: str) -> tuple[str, bytes]:
        from gui_gym.backends.desktop.inside import windows

        body = request.json()
        name = _required(body, "window_name")
        found = (windows.activate_window if op == "activate" else windows.close_window)(
            self.session.env, name, bool(body.get("strict", False)), bool(body.get("by_class", False)))
        if found is None:
            raise Reply(HTTPStatus.NOT_FOUND, f"window {name!r} not found")
        return "text/plain", f"Window {op}d successfully".encode()

    def window_size(self, request) -> dict:
        from gui_gym.backends.desktop.inside.windows import find_window

        name = _required(request.form(), "app_class_name")
        window = find_window(self.session.env, name, by_class=True)
        if window is None:
            raise Reply(HTTPStatus.NOT_FOUND, f"no window of class {name!r}")
        out = subprocess.run(["xwininfo", "-id", window.id], env=self.session.env, capture_output=True,
                             text=True, timeout=10)
        fields = dict(line.strip().split(":", 1) for line in out.stdout.splitlines() if ":" in line)
        return {"width": int(fields.get("Width", 0)), "height": int(fields.get("Height", 0))}

    def list_directory(self, request) -> dict:
        body = request.json()
        root = Path(_required(body, "path")).expanduser()
        tree = self.session.list_directory(root, _bound(body, "max_bytes", MAX_LISTING_BYTES))
        if tree is None:
            raise Reply(HTTPStatus.NOT_FOUND, f"not a directory: {root}")
        return {"directory_tree": tree}

    def download(self, request) -> tuple[str, bytes]:
        body = request.json()
        url, path = _required(body, "url"), Path(_required(body, "path")).expanduser()
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                data = response.read()
        except OSError as exc:
            raise Reply(HTTPStatus.BAD_GATEWAY, f"cannot download {url} inside the desktop: {exc}") from exc
        self._write(path, data)
        return "text/plain", b"File downloaded successfully"

    def accessibility_tree(self) -> str:
        return self._a11y_dump()

    def terminal_text(self) -> str | None:
        """What OSWorld's server reads as the terminal's output: the text of the focused terminal
        of GNOME Terminal's active window; None when there is not exactly one (an answer, not an
        error, as OSWorld's)."""
        return json.loads(self._a11y_dump("--terminal"))["output"]

    def _a11y_dump(self, *options: str) -> str:
        if not Path(A11Y_PYTHON).exists():
            raise Reply(HTTPStatus.NOT_IMPLEMENTED, f"{A11Y_PYTHON} (with pyatspi) is not available here")
        if not self.session.accessibility:
            raise Reply(HTTPStatus.NOT_IMPLEMENTED, "accessibility is off in this session")
        try:  # the user's bus; no module of the user's
            done = bounded_run.run([A11Y_PYTHON, "-I", str(A11Y_SCRIPT), *options], env=self.session.env, cwd="/",
                                   max_bytes=MAX_A11Y_BYTES, timeout_s=30, **self.session.as_user())
        except bounded_run.OutputTooLarge as exc:
            raise TooBig(f"the accessibility tree is too large: its dump {exc}") from exc
        if done.returncode != 0:
            error = "timed out after 30 s" if done.timed_out else done.stderr.decode(errors="replace").strip()[-500:]
            raise Reply(HTTPStatus.INTERNAL_SERVER_ERROR, f"accessibility tree failed: {error}")
        return done.stdout.decode(errors="replace")

    # ---- gui-gym extensions ------------------------------------------------------------------

    def perform(self, request) -> dict:
        try:
            action = Action.from_dict(_required(request.json(), "action"))
            with self.lock:
                self._mark(expect_window=action.kind in ("key", "hotkey") and frozenset(action.keys) in WINDOW_KEYS)
                self.input.perform(action)
        except GUIGymError as exc:
            raise Reply(HTTPStatus.UNPROCESSABLE_ENTITY, str(exc)) from exc
        return {"status": "success"}

    def mark(self, request) -> dict:
        """Remember the screen and the programs before a setup step, for `settle`."""
        self._mark()
        return {"status": "marked"}

    def _mark(self, expect_window: bool = False) -> None:
        self.capture.mark_baseline()
        if self.new_programs is not None:
            self.new_programs.close()
        self.new_programs = activity.NewPrograms(expect_window=expect_window)

    def settle(self, request) -> dict:
        body = request.json()
        programs, self.new_programs = self.new_programs, None
        try:
            result = self.capture.settle(stable_frames=int(body.get("stable_frames", 3)),
                                         interval_s=float(body.get("interval_s", 0.04)),
                                         change_timeout_s=float(body.get("change_timeout_s", 0.3)),
                                         timeout_s=float(body.get("timeout_s", 3.0)), busy=activity.busy,
                                         launching=programs.starting if programs is not None else None,
                                         launch_timeout_s=float(body.get("launch_timeout_s", 0.0)))
        finally:
            if programs is not None:
                programs.close()
        return result.to_dict()

    def ready(self, request) -> dict:
        """Wait until the programs the task's setup launched are up, then for a still screen."""
        from gui_gym.backends.desktop.inside.readiness import apps_ready

        timeout_s = float(request.json().get("timeout_s", 60.0))
        started = time.monotonic()
        result = apps_ready(self.session.launched_pids(), timeout_s)
        remaining = max(0.0, timeout_s - (time.monotonic() - started))
        screen = self.capture.settle(stable_frames=READY_STILL_FRAMES, interval_s=0.04, change_timeout_s=0.0,
                                     timeout_s=remaining)
        if not screen.stable:
            result.pending.append("a still screen")
        result.ready = result.ready and screen.stable
        result.elapsed_s = time.monotonic() - started
        return result.to_dict()

    def idle(self, request) -> dict:
        """Wait until nothing the agent started is at work (`readiness.desktop_idle`)."""
        from gui_gym.backends.desktop.inside.readiness import desktop_idle

        return desktop_idle(self.session.home, float(request.json().get("timeout_s", 20.0))).to_dict()

    def frame(self, request) -> tuple[str, bytes, dict[str, str]]:
        width, height, data = self.capture.rgb(cursor=True)
        return "application/octet-stream", data, {"X-Width": str(width), "X-Height": str(height)}

    def run_python(self, request) -> dict:
        """The evaluator's own Python run, out of the agent's reach (`evaluator_runs`)."""
        body = request.json()
        try:
            files = {name: base64.b64decode(data, validate=True) for name, data in _required(body, "files").items()}
            return evaluator_runs.run_python(self.session, files, _required(body, "script"),
                                             [str(a) for a in body.get("arguments", [])],
                                             float(body.get("timeout_s", 300)))
        except (ValueError, TypeError, AttributeError) as exc:
            raise Reply(HTTPStatus.BAD_REQUEST, f"bad run_python request: {exc}") from exc

    def begin_evaluation(self, request) -> dict:
        """The agent is done (`Session.begin_evaluation`): what was stopped."""
        stopped = self.session.begin_evaluation()
        return {"stopped": [{"pid": p.pid, "uid": p.uid, "command": p.command} for p in stopped]}

    def shutdown(self, request) -> dict:
        self.stopping.set()
        return {"status": "stopping"}


class _Request:
    """The parsed parts of one HTTP request a route may read."""

    def __init__(self, headers, body: bytes):
        self.headers, self.body = headers, body

    def json(self) -> dict:
        try:
            value = json.loads(self.body or b"{}")
        except json.JSONDecodeError as exc:
            raise Reply(HTTPStatus.BAD_REQUEST, f"expected a JSON body: {exc}") from exc
        if not isinstance(value, dict):
            raise Reply(HTTPStatus.BAD_REQUEST, "expected a JSON object")
        return value

    def form(self) -> dict[str, str]:
        if "json" in (self.headers.get("Content-Type") or ""):
            return self.json()
        return {k: v[0] for k, v in parse_qs(self.body.decode()).items()}

    def multipart(self) -> dict[str, bytes]:
        ctype = self.headers.get("Content-Type") or ""
        if "multipart/form-data" not in ctype:
            raise Reply(HTTPStatus.BAD_REQUEST, f"expected multipart/form-data, received {ctype!r}")
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {ctype}\r\n\r\n".encode() + self.body)
        return {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                for part in message.iter_parts()}


def _bound(fields: dict, name: str, default: int) -> int:
    """A size bound the caller names (at most `default`, the server's own)."""
    try:
        value = int(fields.get(name) or default)
    except (TypeError, ValueError):
        value = -1
    if value < 0:
        raise Reply(HTTPStatus.BAD_REQUEST, f"{name} must be a whole number of bytes, received {fields.get(name)!r}")
    return min(default, value)


def _required(fields: dict, name: str) -> Any:
    if name not in fields or fields[name] in (None, ""):
        raise Reply(HTTPStatus.BAD_REQUEST, f"missing field {name!r}")
    return fields[name]


def make_handler(server: DesktopServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        @property
        def disable_nagle_algorithm(self) -> bool:
            """TCP_NODELAY on a loopback TCP connection (a Unix socket has no Nagle): the headers
            and the body are two writes, and on a kept-alive connection Nagle's algorithm holds
            the body until the client's delayed ACK of the headers (~40 ms a request, measured;
            0.2 ms without)."""
            return self.connection.family != socket.AF_UNIX

        def log_message(self, format: str, *args) -> None:
            pass

        def address_string(self) -> str:
            return "local"

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

        def _handle(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            route = server.routes.get((method, path))
            try:
                if not hmac.compare_digest(self.headers.get(TOKEN_HEADER, ""), server.token):
                    raise Reply(HTTPStatus.UNAUTHORIZED, f"missing or wrong {TOKEN_HEADER} header")
                if route is None:
                    raise Reply(HTTPStatus.NOT_FOUND, f"no endpoint {method} {path}")
                result = route(_Request(self.headers, body))
            except Reply as reply:
                self._send(reply.status, reply.body)
            except TooBig as exc:  # the agent's content past a bound: a refusal the evaluator scores
                self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, str(exc))
            except Exception as exc:  # a failed request must not take the server down
                logger.exception("%s %s failed", method, path)
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(exc).__name__}: {exc}")
            else:
                self._send(HTTPStatus.OK, result)

        def _send(self, status: int, result: Any) -> None:
            headers: dict[str, str] = {}
            if isinstance(result, tuple):
                ctype, data, *extra = result
                headers = extra[0] if extra else {}
            elif isinstance(result, (dict, list)):
                ctype, data = "application/json", json.dumps(result).encode()
            else:
                ctype, data = "text/plain; charset=utf-8", str(result).encode()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
    return Handler


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class _LoopbackServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(args: argparse.Namespace) -> None:
    with os.fdopen(args.token_fd, "rb") as pipe:
        token = pipe.read().decode().strip()
    session = Session(args.width, args.height, shell=args.shell, accessibility=not args.no_a11y)
    session.start()
    sudo = None
    if args.sudo:
        from gui_gym.backends.desktop.inside.session import SHIM_DIR
        from gui_gym.backends.desktop.inside.sudo import SudoService

        sudo = SudoService(SHIM_DIR)
        sudo.start()
    server = DesktopServer(session, token)
    handler = make_handler(server)
    if args.socket:
        folder = Path(args.socket).parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)  # the server's alone: the user cannot replace the socket or connect to it
        httpd: socketserver.BaseServer = _UnixServer(args.socket, handler)
        address = args.socket
    else:
        httpd = _LoopbackServer(("127.0.0.1", args.port), handler)
        address = f"127.0.0.1:{httpd.server_address[1]}"
    signal.signal(signal.SIGTERM, lambda *_: server.stopping.set())
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    if args.ready_fd is not None:  # written last: the host waits for it
        try:
            with os.fdopen(args.ready_fd, "w") as pipe:
                pipe.write(json.dumps({"address": address, "pid": os.getpid()}))
        except BrokenPipeError:
            # the host died while we booted (a spare desktop when its run got kill -9), maybe before
            # bubblewrap armed its parent-death signal: end the session, or its X server and window
            # manager would keep the sandbox's init waiting on them for good
            logger.warning("the host that started this desktop is gone; stopping")
            server.stopping.set()
    server.stopping.wait()
    httpd.shutdown()
    if sudo is not None:
        sudo.stop()
    session.stop()
    server.capture.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", help="Unix socket path to listen on")
    parser.add_argument("--port", type=int, default=0, help="loopback TCP port (when no --socket)")
    parser.add_argument("--token-fd", type=int, required=True, help="pipe to read the token from")
    parser.add_argument("--ready-fd", type=int, help="pipe to write the address to once the server answers")
    parser.add_argument("--width", type=int, default=1920)
    parser.add_argument("--height", type=int, default=1080)
    parser.add_argument("--shell", choices=SHELLS, default=DEFAULT_SHELL, help="the desktop around the apps")
    parser.add_argument("--no-a11y", action="store_true", help="no session bus, no accessibility tree")
    parser.add_argument("--sudo", action="store_true",
                        help="serve the desktop's sudo (only inside the sandbox, whose ids it maps)")
    serve(parser.parse_args(argv))


if __name__ == "__main__":
    main()
