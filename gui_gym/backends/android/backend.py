"""Android backend: a phone or emulator over adb, through adbutils (imported only when used).

What runs is what AndroidWorld's harness does over adb: ``screencap -p`` for screenshots,
``input tap/swipe/text/keyevent`` for input (text escaped for the device shell and for
``input``'s own ``%s``, see `input`), ``monkey`` to open an app by name or package,
``uiautomator dump`` for the element list (AndroidWorld's fields and indexing, see
`elements`), ``wm size`` for the screen and ``dumpsys window`` for the foreground
app. After every action the backend waits until two consecutive UI dumps are identical,
bounded by ``settle_timeout_s`` (dumps rather than screenshots: a blinking text caret never
makes two screenshots equal).

No process is started here: the adb server and the device belong to the user. adbutils
would spawn its bundled ``adb start-server`` when nothing listens on the adb port, leaving a
daemon behind; this backend refuses instead, fast, with a message saying how to start an
emulator and check ``adb devices``.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import re
import socket
import time
import weakref
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from PIL import Image

from gui_gym.actions import Action
from gui_gym.backends.android.elements import UIElement, element_at, elements_text, parse_uiautomator_xml
from gui_gym.backends.android.input import (direction_swipe, key_command, keycode, resolve_package, screen_swipe,
                                            scroll_swipe, text_commands)
from gui_gym.backends.android.sync import SyncSession
from gui_gym.backends.base import DEFAULT_STEP_TIMEOUT_S, Backend, Observation
from gui_gym.errors import ActionExecutionError, GUIGymError, InfraError, MissingResourceError
from gui_gym.extras import require_extra
from gui_gym.runtime.waiting import wait_until

DEFAULT_SCREEN_SIZE = (1080, 2400)
"""AndroidWorld's emulator (Pixel 6), assumed when no device answers while the env is made."""
SETUP_HELP = (
    "start an emulator (`emulator -avd <name> -no-snapshot-save`, AndroidWorld uses a Pixel 6 API 33 image) "
    "or connect a phone with USB debugging on, then check that `adb devices` lists it as `device`")


@dataclass
class AndroidConfig:
    """Settings of an Android backend; units in the names."""

    serial: str | None = None
    """The device, as `adb devices` names it; None: $ANDROID_SERIAL, else the only one attached."""
    adb_host: str | None = None
    """adb server host; None: $ANDROID_ADB_SERVER_HOST, else 127.0.0.1."""
    adb_port: int | None = None
    """adb server port; None: $ANDROID_ADB_SERVER_PORT, else 5037."""
    screen_size: tuple[int, int] | None = None
    """(width, height); None: read from the device (`wm size`) when the env is made."""
    connect_timeout_s: float = 2.0
    command_timeout_s: float = 30.0
    step_timeout_s: float | None = DEFAULT_STEP_TIMEOUT_S
    """Bound on each action (with its settling) and each observation; past it the adb
    connections in flight are cut and the device is reconnected at the next reset."""
    settle_timeout_s: float = 4.0
    settle_interval_s: float = 0.05
    long_press_s: float = 1.0
    swipe_ms: int = 400
    """Duration of a drag, a two-point swipe, and a direction swipe from a given point."""
    screen_swipe_ms: int = 500
    """Duration of a direction swipe across the screen (AndroidWorld's swipe: 500 ms)."""
    scroll_ms: int | None = None
    """Duration of a scroll's swipe; None gives none, so the device's default (300 ms), as
    AndroidWorld's scroll does."""
    dump_path: str = "/data/local/tmp/gui_gym_window_dump.xml"

    def __post_init__(self) -> None:
        if self.screen_size is not None:
            size = tuple(self.screen_size)
            if len(size) != 2 or not all(isinstance(v, int) and v > 0 for v in size):
                raise ValueError(f"screen_size must be (width, height) in pixels, received {self.screen_size!r}")
            self.screen_size = size
        for name in ("connect_timeout_s", "command_timeout_s", "settle_timeout_s", "long_press_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, received {getattr(self, name)!r}")

    @classmethod
    def pop_from(cls, kwargs: dict[str, Any]) -> "AndroidConfig":
        """Take this config's fields out of an env factory's kwargs (the rest go to GUIEnv)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: kwargs.pop(k) for k in list(kwargs) if k in names})

    def address(self) -> tuple[str, int]:
        host = self.adb_host or os.environ.get("ANDROID_ADB_SERVER_HOST") or "127.0.0.1"
        port = self.adb_port or int(os.environ.get("ANDROID_ADB_SERVER_PORT") or 5037)
        return host, port


@dataclass(frozen=True)
class ShellResult:
    exit_code: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class DirEntry:
    """One entry of a device folder as adb sync lists it."""

    name: str
    mode: int
    size: int
    mtime_s: int

    @property
    def is_file(self) -> bool:
        return (self.mode & 0o170000) == 0o100000

    @property
    def is_dir(self) -> bool:
        return (self.mode & 0o170000) == 0o040000


class AndroidBackend(Backend):
    """One Android device driven over adb."""

    snapshot_refusal = ("a device reached over adb (provider='device') offers no snapshot of its whole state; "
                        "make the env with provider='emulator', whose console saves and loads one "
                        "(avd snapshot save|load)")

    observation_text_keys = ("app",)

    def __init__(self, config: AndroidConfig | None = None, **overrides: Any):
        super().__init__()
        self.config = dataclasses.replace(config or AndroidConfig(), **overrides)
        self.serial: str | None = None
        self._client = None
        self._device = None
        self._xml: str | None = None
        self._elements: list[UIElement] | None = None
        self._packages: list[str] | None = None
        self._screen_size = self.config.screen_size or self._probe_screen_size()

    @property
    def screen_size(self) -> tuple[int, int]:
        return self._screen_size

    @property
    def step_timeout_s(self) -> float | None:  # type: ignore[override]
        return self.config.step_timeout_s

    # ---- what suites ask of the device -----------------------------------------------------

    def shell(self, command: str | Sequence[str], *, check: bool = True) -> ShellResult:
        """Run a command in the device shell (a list is quoted argument by argument).
        `check`: raise ActionExecutionError on a non-zero exit."""
        self._xml = None  # the command may change the screen
        return self._guard(lambda: self._shell(command, check))

    def read_file(self, path: str) -> bytes | None:
        """A device file's bytes (adb pull), or None when it does not exist."""
        def work() -> bytes | None:
            if not self._device.sync.exists(path):
                return None
            return self._device.sync.read_bytes(path)
        return self._guard(work)

    def write_file(self, path: str, data: bytes, mode: int = 0o644) -> None:
        """Write a device file (adb push); adbd creates missing folders."""
        self._guard(lambda: self._device.sync.push(data, path, mode))
        self._xml = None

    def exists(self, path: str) -> bool:
        return self._guard(lambda: self._device.sync.exists(path))

    def list_dir(self, path: str) -> list[str]:
        """Names in a device folder (adb sync LIST), without . and ..; [] when it is absent."""
        return self._guard(lambda: [f.path for f in self._device.sync.list(path) if f.path not in (".", "..")])

    def list_entries(self, path: str) -> list[DirEntry]:
        """The entries of a device folder with their mode, size and modification time (adb
        sync LIST), without . and ..; [] when it is absent."""
        def work() -> list[DirEntry]:
            return [DirEntry(f.path, f.mode, f.size, int(f.mtime.timestamp()) if f.mtime else 0)
                    for f in self._device.sync.list(path) if f.path not in (".", "..")]
        return self._guard(work)

    def list_and_read(self, folder: str, names: Sequence[str]) -> dict[str, bytes]:
        """The files of `folder` among `names` that exist, read over one sync connection."""
        def work(session: SyncSession) -> dict[str, bytes]:
            present = {entry[0] for entry in session.list(folder)}
            found = {name: session.read(f"{folder}/{name}") for name in names if name in present}
            return {name: data for name, data in found.items() if data is not None}
        return self._guard(lambda: self._with_sync(work))

    def _with_sync(self, work):
        connection = self._device.open_transport()
        try:
            connection.send_command("sync:")
            connection.check_okay()
            session = SyncSession(connection.conn)
            result = work(session)
            session.close()
            return result
        finally:
            connection.close()

    def adb_root(self) -> str:
        """Ask adbd to restart as root (``adb root``); its answer. The device drops off the adb
        server for a moment while adbd restarts."""
        return self._guard(lambda: self._device.root())

    def foreground(self) -> tuple[str, str]:
        """(package, activity) of the focused window; ("", "") when none has focus."""
        return self._guard(self._foreground)

    def elements(self, fresh: bool = False) -> list[UIElement]:
        """The current screen's UI elements, indexed as element-index actions index them;
        `fresh`: dump the screen again rather than reuse the dump taken since the last action."""
        if fresh:
            self._xml = None
        return self._guard(self._current_elements)

    def open_app(self, name: str) -> str:
        """Launch an app by name ("Clock") or package and let it settle; returns the package."""
        package = self._guard(lambda: resolve_package(name, self._installed()))
        self.execute(Action("open_app", text=package))
        return package

    def go_home(self) -> None:
        """Press Home and let the launcher settle."""
        self.execute(Action("navigate_home"))

    # ---- Backend implementation -----------------------------------------------------------

    def _connect(self) -> None:
        host, port = self.config.address()
        try:
            socket.create_connection((host, port), timeout=self.config.connect_timeout_s).close()
        except OSError as exc:
            raise MissingResourceError(
                f"no adb server answers at {host}:{port} ({exc.strerror or exc}): start it with `adb start-server` "
                f"(or set adb_host/adb_port), {SETUP_HELP}") from None
        self._client = _client_class()(host, port, socket_timeout=self.config.command_timeout_s)
        self.serial = self._choose_serial()
        self._device = self._client.device(self.serial)

    def _choose_serial(self) -> str:
        infos = self._client.list()
        ready = [info.serial for info in infos if info.state == "device"]
        listing = ", ".join(f"{info.serial} ({info.state})" for info in infos) or "none"
        wanted = self.config.serial or os.environ.get("ANDROID_SERIAL")
        if wanted:
            if wanted not in ready:
                raise MissingResourceError(
                    f"Android device {wanted!r} is not ready on the adb server (attached: {listing}); {SETUP_HELP}")
            return wanted
        if not ready:
            raise MissingResourceError(f"no Android device or emulator is ready (attached: {listing}); {SETUP_HELP}")
        if len(ready) > 1:
            raise MissingResourceError(
                f"{len(ready)} Android devices are attached ({listing}); choose one with serial=... or $ANDROID_SERIAL")
        return ready[0]

    def _probe_screen_size(self) -> tuple[int, int]:
        """The device's screen when one answers now, else AndroidWorld's default: the env's
        spaces are fixed when it is made, before any reset reaches the device."""
        try:
            self._connect()
            return self._wm_size()
        except (GUIGymError, OSError, _adb_error()):
            return DEFAULT_SCREEN_SIZE
        finally:
            self._client = self._device = None

    def _wm_size(self) -> tuple[int, int]:
        output = self._shell(["wm", "size"], check=True).stdout
        match = re.search(r"Override size: (\d+)x(\d+)", output) or re.search(r"Physical size: (\d+)x(\d+)", output)
        if match is None:
            raise ActionExecutionError(f"`wm size` printed no size: {output!r}")
        return int(match.group(1)), int(match.group(2))

    def _start(self) -> None:
        self._connect()
        size = self._wm_size()
        if size != self._screen_size:
            raise MissingResourceError(
                f"device {self.serial} has a {size[0]}x{size[1]} screen but this env was made for "
                f"{self._screen_size[0]}x{self._screen_size[1]}; make the env again with screen_size={size} "
                "(or with the device attached, so that it is read)")
        for key in ("accelerometer_rotation", "user_rotation"):  # portrait, as the spaces assume
            self._shell(["settings", "put", "system", key, "0"], check=True)
        self._packages = None

    def _new_episode(self) -> None:
        self._input(["input", "keyevent", "KEYCODE_HOME"])
        self._settle()

    def _execute(self, action: Action) -> None:
        kind = action.kind
        if kind in ("click", "double_click", "long_press"):
            x, y = self._point(action)
            if kind == "long_press":
                ms = round((action.duration_s or self.config.long_press_s) * 1000)
                self._swipe(x, y, x, y, ms)
            for _ in range({"click": 1, "double_click": 2}.get(kind, 0)):
                self._input(["input", "tap", x, y])
        elif kind == "type":
            if action.element is not None or action.x is not None:
                self._input(["input", "tap", *self._point(action)])
            for command in text_commands(action.text):
                self._input(command)
        elif kind == "scroll":
            self._swipe(*scroll_swipe(self._scroll_region(action), action.direction, action.amount),
                        self.config.scroll_ms)
        elif kind in ("swipe", "drag"):
            if action.to_x is not None:
                path = (*self._checked(action.x, action.y), *self._checked(action.to_x, action.to_y))
            elif action.x is not None:
                path = direction_swipe(self._checked(action.x, action.y), action.direction, self._screen_size)
            else:
                path = screen_swipe(action.direction, self._screen_size)
            self._swipe(*path, self.config.swipe_ms if action.x is not None else self.config.screen_swipe_ms)
        elif kind == "key":
            self._input(key_command(action.keys[0]))
        elif kind == "hotkey":
            self._input(["input", "keycombination", *(keycode(k) for k in action.keys)])
        elif kind in ("navigate_back", "navigate_home"):
            self._input(["input", "keyevent", "KEYCODE_BACK" if kind == "navigate_back" else "KEYCODE_HOME"])
        elif kind == "open_app":
            package = resolve_package(action.text, self._installed())
            result = self._shell(["monkey", "-p", package, "-c", "android.intent.category.LAUNCHER", "1"], check=False)
            if result.exit_code != 0 or "No activities found" in result.stdout:
                raise ActionExecutionError(f"{package} has no launcher activity to open: {result.stderr or result.stdout}")
        elif kind == "goto":
            self._input(["am", "start", "-a", "android.intent.action.VIEW", "-d", action.text])
        elif kind == "wait":  # the agent asked for time to pass: nothing to poll for
            time.sleep(action.duration_s if action.duration_s is not None else 1.0)
        else:
            raise ActionExecutionError(f"an Android touchscreen has no {kind!r}; it taps, presses, swipes, "
                                       "scrolls, types, presses keys and opens apps")
        self._xml = None

    def _input(self, argv: Sequence[Any]) -> None:
        self._shell([str(a) for a in argv], check=True)

    def _swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int | None) -> None:
        self._input(["input", "swipe", x1, y1, x2, y2, *([] if duration_ms is None else [duration_ms])])

    def _checked(self, x: float, y: float) -> tuple[int, int]:
        """A point on the screen as whole pixels, cut with int() as AndroidWorld's actuation
        does (env/actuation.py: ``x, y = int(x), int(y)``)."""
        width, height = self._screen_size
        if not (0 <= x < width and 0 <= y < height):
            raise ActionExecutionError(f"point ({x:g}, {y:g}) is off the {width}x{height} screen")
        return int(x), int(y)

    def _point(self, action: Action) -> tuple[int, int]:
        if action.element is not None:
            return self._checked(*element_at(self._current_elements(), action.element).bbox_pixels.center)
        return self._checked(action.x, action.y)

    def _scroll_region(self, action: Action) -> tuple[int, int, int, int]:
        """What a scroll swipes over: the element's box cut to the screen, or the whole screen
        (0, 0, width, height), as AndroidWorld's scroll; or a box centred on the given point."""
        width, height = self._screen_size
        if action.element is not None:
            box = element_at(self._current_elements(), action.element).bbox_pixels
            return max(box.x_min, 0), max(box.y_min, 0), min(box.x_max, width), min(box.y_max, height)
        if action.x is not None:
            x, y = self._checked(action.x, action.y)
            half_w, half_h = min(x, width - 1 - x), min(y, height - 1 - y)
            return x - half_w, y - half_h, x + half_w, y + half_h
        return 0, 0, width, height

    def _installed(self) -> list[str]:
        if self._packages is None:
            output = self._shell(["pm", "list", "packages"], check=True).stdout
            self._packages = re.findall(r"^package:(\S+)", output, re.MULTILINE)
        return self._packages

    def _shell(self, command: str | Sequence[str], check: bool) -> ShellResult:
        raw = self._device.shell2(list(command) if not isinstance(command, str) else command,
                                  timeout=self.config.command_timeout_s, v2=True)
        # shell v2 separates the streams; a device without it (v1) gives one stream as output
        stdout = raw.stdout if raw.stdout or raw.stderr else raw.output
        result = ShellResult(raw.returncode, stdout, raw.stderr)
        if check and result.exit_code != 0:
            shown = command if isinstance(command, str) else " ".join(command)
            raise ActionExecutionError(f"`{shown}` failed on {self.serial} (exit {result.exit_code}): "
                                       f"{(result.stderr or result.stdout).strip()}")
        return result

    def _dump(self) -> str | None:
        """One `uiautomator dump`, or None when the UI would not hold still long enough."""
        result = self._shell(["uiautomator", "dump", self.config.dump_path], check=False)
        if result.exit_code != 0 or "dumped to" not in result.stdout:
            return None
        return self._device.sync.read_text(self.config.dump_path)

    def _settle(self) -> None:
        """Wait until two consecutive dumps are identical, at most `settle_timeout_s`."""
        self._xml, self._elements = self._dump(), None
        previous = self._xml

        def stable() -> bool:
            nonlocal previous
            self._xml = self._dump()
            same, previous = self._xml is not None and self._xml == previous, self._xml
            return same

        wait_until(stable, self.config.settle_timeout_s, interval_s=self.config.settle_interval_s)

    def _current_elements(self) -> list[UIElement]:
        if self._xml is None:
            self._xml, self._elements = self._dump(), None
            if self._xml is None:
                raise ActionExecutionError("uiautomator could not dump the screen (the UI never went idle)")
        if self._elements is None:
            try:
                self._elements = parse_uiautomator_xml(self._xml)
            except ValueError as exc:
                raise ActionExecutionError(f"uiautomator wrote no usable hierarchy: {exc}") from None
        return self._elements

    def _foreground(self) -> tuple[str, str]:
        try:
            app = self._device.app_current()
        except _adb_error():
            return "", ""
        return app.package, app.activity

    def _observe(self, a11y: bool, screenshot: bool = True) -> Observation:
        pixels = self._screencap() if screenshot else None
        tree = None
        if a11y:
            try:
                tree = elements_text(self._current_elements())
            except ActionExecutionError as exc:  # the screenshot still stands; say why the tree is missing
                tree = f"(no UI elements: {exc})"
        return Observation(screenshot=pixels, a11y_tree=tree, app=self._foreground()[0])

    def _screencap(self) -> np.ndarray:
        png = self._device.shell(["screencap", "-p"], encoding=None, timeout=self.config.command_timeout_s)
        try:
            image = Image.open(io.BytesIO(png)).convert("RGB")
        except OSError as exc:
            raise InfraError(f"screencap on {self.serial} returned no PNG ({len(png)} bytes: {png[:60]!r})") from exc
        if image.size != self._screen_size:  # a rotation the device forced despite the lock
            image = image.resize(self._screen_size)
        return np.asarray(image)

    def _alive(self) -> bool:
        if self._client is None:
            return False
        try:
            return any(info.serial == self.serial and info.state == "device" for info in self._client.list())
        except (OSError, _adb_error()):
            return False

    def _abort(self, force: bool) -> None:
        client = self._client
        if client is not None:
            client.abort()

    def _close(self) -> None:
        self._client = self._device = None  # adb holds no connection open between commands
        self._xml = self._elements = self._packages = None


@functools.lru_cache(maxsize=None)
def _client_class():
    """adbutils' AdbClient, except that it never spawns an adb server of its own."""
    require_extra("android", "the Android backend")
    import adbutils

    class Connection(adbutils.AdbConnection):
        def _safe_connect(self):
            return self._create_socket()  # adbutils would run `adb start-server` on failure

        def close(self):
            """adbutils' close, less its 10 ms sleep after shutting the write side: every
            request here is read to its end before the connection closes, and app-data checks
            make dozens of connections."""
            if self.closed:
                return
            sock = self.conn
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            sock.close()
            self._AdbConnection__conn = None

    class Client(adbutils.AdbClient):
        def __init__(self, host: str, port: int, socket_timeout: float):
            super().__init__(host, port, socket_timeout)
            self._timeout_s = socket_timeout
            self._open: weakref.WeakSet = weakref.WeakSet()

        def make_connection(self, timeout: float | None = None):
            connection = Connection(self.host, self.port)
            connection.conn.settimeout(timeout or self._timeout_s)
            self._open.add(connection)
            return connection

        def abort(self) -> None:
            """Shut down every connection in flight (from another thread), so that a command
            waiting on a hung device returns at once instead of after its socket timeout."""
            for connection in list(self._open):
                try:
                    connection.conn.shutdown(socket.SHUT_RDWR)
                except Exception:  # closed already (adbutils raises its own error for that)
                    pass

        @functools.cached_property
        def _version(self) -> int:
            return super().server_version()

        def server_version(self) -> int:
            """Asked once: adbutils asks before every device connection, and it cannot change
            while this client lives (a restarted server is a new client)."""
            return self._version

    return Client


def _adb_error() -> type[Exception]:
    try:
        from adbutils import AdbError
    except ImportError:
        return OSError
    return AdbError
