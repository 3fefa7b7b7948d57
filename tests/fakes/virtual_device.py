"""A scripted Android phone for the fake adb server: stock-app screens and app data over real state.

No emulator runs on the test machines, so tests drive this instead. The screens imitate the
stock apps AndroidWorld uses (launcher, Settings, Contacts, Files, Clock; `stock_apps`), the
other apps show a title bar (`more_apps`), and AndroidWorld's apps keep their data where the
real apps do (`app_data`). One view tree per screen is both what `uiautomator dump` writes
and what the screenshot is drawn from, so the pixels, the element tree and the state behind
them never disagree. State lives where Android keeps it: the settings tables, the contacts
provider, the telephony provider's SQLite database, files under /storage/emulated/0 and /data
on a real directory, the clock's alarms in a real SQLite database in WAL mode (so a reader
that pulls only ``alarms.db`` and not its ``-wal`` misses rows, as on a device), the device
clock (set with ``date``; files written get its time), the clipboard.

An app launch shows two "Loading" frames first (each screen read consumes one), so a client
that does not wait for the UI to settle sees the splash.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable

from PIL import Image, ImageDraw

from .app_data import APPS as FAKE_APPS, TELEPHONY_DB, create_telephony_data
from .more_apps import ChromeApp, GenericApp, SmsApp
from .stock_apps import STOCK_APPS
from .views import BAR_BOTTOM, H, NAV_TOP, ROW_H, STATUS_BOTTOM, W, App, Node, _font, draw_node, text_view

STORAGE = "/storage/emulated/0"
STORAGE_FOLDERS = ("Alarms", "DCIM", "Documents", "Download", "Movies", "Music", "Pictures")
ALARMS_DB = "/data/data/com.google.android.deskclock/databases/alarms.db"
LAUNCHER = "com.google.android.apps.nexuslauncher"
LAUNCHER_ACTIVITY = "com.google.android.apps.nexuslauncher.NexusLauncherActivity"
OTHER_PACKAGES = ("android", "com.android.systemui", "com.android.providers.contacts",
                  "com.android.providers.telephony")
SPLASH_FRAMES = 2
PROPS = {"ro.build.version.sdk": "33", "ro.build.version.release": "13", "ro.product.model": "sdk_gphone64_x86_64",
         "ro.kernel.qemu": "1"}


class VirtualDevice:
    """One phone: state, the current screen, and the input it understands. Thread-safe
    through `lock`, which the adb server holds around every command."""

    def __init__(self, serial: str = "emulator-5554", root: bool = True) -> None:
        self.serial, self.root = serial, root
        self.size = (W, H)
        self.lock = threading.RLock()
        self.settings: dict[str, dict[str, str]] = {
            "global": {"wifi_on": "1", "bluetooth_on": "0", "airplane_mode_on": "0"},
            "system": {"screen_brightness": "128", "accelerometer_rotation": "1", "user_rotation": "0"},
            "secure": {}}
        self.contacts: list[tuple[str, str]] = []
        self.events: list[tuple] = []
        self.clock_offset_s = 0.0
        self.timezone = "GMT"
        self.clipboard = ""
        self.boot_completed = True
        self.recents: list[int] = []
        self.granted: set[tuple[str, str]] = set()
        self.installed: set[str] | None = None
        """Packages installed (None: every app of the virtual phone)."""
        self.apps: dict[str, App] = {cls.package: cls(self) for cls in STOCK_APPS}
        self.launcher_icons = list(self.apps)
        for cls in (ChromeApp, SmsApp):
            self.apps[cls.package] = cls(self)
        for fake in FAKE_APPS:
            self.apps.setdefault(fake.package, GenericApp(self, fake))
        self.foreground = LAUNCHER
        self.splash = 0
        self._fs = Path(tempfile.mkdtemp(prefix="gui-gym-fake-device-"))
        for folder in STORAGE_FOLDERS:
            self.host_path(f"{STORAGE}/{folder}").mkdir(parents=True)
        self.host_path("/data/local/tmp").mkdir(parents=True)
        create_telephony_data(self.host_path)
        self._alarms: sqlite3.Connection | None = None

    def props(self) -> dict[str, str]:
        return {**PROPS, "sys.boot_completed": "1" if self.boot_completed else ""}

    def now(self) -> float:
        """The device clock, in seconds since the epoch."""
        return time.time() + self.clock_offset_s

    def set_clock(self, epoch_s: float) -> None:
        self.clock_offset_s = epoch_s - time.time()

    def stamp(self, path: Path) -> None:
        """Give a file written now the device clock's time, as the device's file system would."""
        now = self.now()
        os.utime(path, (now, now))

    # ---- files and databases ---------------------------------------------------------------

    def host_path(self, device_path: str) -> Path:
        """Where a device path lives on the host (/sdcard and /data/media/0 are /storage/emulated/0)."""
        path = os.path.normpath("/" + device_path.lstrip("/"))
        for alias in ("/sdcard", "/data/media/0"):  # the same storage by other names
            if path == alias or path.startswith(alias + "/"):
                path = STORAGE + path[len(alias):]
        return self._fs / path.lstrip("/")

    def _alarm_db(self) -> sqlite3.Connection:
        if self._alarms is None:
            path = self.host_path(ALARMS_DB)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._alarms = sqlite3.connect(path, check_same_thread=False)
            self._alarms.execute("PRAGMA journal_mode=WAL")
            self._alarms.execute(
                "CREATE TABLE IF NOT EXISTS alarm_templates (_id INTEGER PRIMARY KEY, hour INTEGER NOT NULL, "
                "minutes INTEGER NOT NULL, daysofweek INTEGER NOT NULL DEFAULT 0, enabled INTEGER NOT NULL, "
                "vibrate INTEGER NOT NULL DEFAULT 1, label TEXT NOT NULL DEFAULT '', ringtone TEXT, "
                "delete_after_use INTEGER NOT NULL DEFAULT 0)")
            self._alarms.commit()
        return self._alarms

    def alarms(self) -> list[tuple[int, int, int, int]]:
        return self._alarm_db().execute(
            "SELECT _id, hour, minutes, enabled FROM alarm_templates ORDER BY hour, minutes").fetchall()

    def add_alarm(self, hour: int, minutes: int) -> None:
        self._alarm_db().execute("INSERT INTO alarm_templates (hour, minutes, enabled) VALUES (?, ?, 1)", (hour, minutes))
        self._alarm_db().commit()

    def toggle_alarm(self, alarm_id: int) -> None:
        self._alarm_db().execute("UPDATE alarm_templates SET enabled = 1 - enabled WHERE _id = ?", (alarm_id,))
        self._alarm_db().commit()

    def drop_alarm_connection(self) -> None:
        if self._alarms is not None:
            self._alarms.close()
            self._alarms = None

    def drop_alarms(self) -> None:
        self.drop_alarm_connection()
        shutil.rmtree(self.host_path(os.path.dirname(os.path.dirname(ALARMS_DB))), ignore_errors=True)

    def remove_app_data(self, package: str) -> None:
        """What ``pm clear`` deletes: the app's private data and its files on shared storage."""
        for folder in (f"/data/data/{package}", f"{STORAGE}/Android/data/{package}"):
            shutil.rmtree(self.host_path(folder), ignore_errors=True)

    # ---- messages ------------------------------------------------------------------------------

    def _telephony(self) -> sqlite3.Connection:
        create_telephony_data(self.host_path)
        connection = sqlite3.connect(self.host_path(TELEPHONY_DB))
        connection.execute("PRAGMA synchronous=OFF")
        connection.row_factory = sqlite3.Row
        return connection

    def add_sms(self, address: str, body: str, sent: bool, date_ms: int | None = None) -> None:
        """A message in the telephony provider: received (inbox, type 1) or sent (type 2),
        in the conversation with `address`."""
        connection = self._telephony()
        try:
            thread = connection.execute("SELECT _id FROM threads WHERE recipient_ids = ?", (address,)).fetchone()
            if thread is None:
                thread_id = connection.execute("INSERT INTO threads (recipient_ids) VALUES (?)", (address,)).lastrowid
            else:
                thread_id = thread[0]
            date = date_ms if date_ms is not None else int(self.now() * 1000)
            connection.execute("INSERT INTO sms (thread_id, address, date, type, body, read) VALUES (?, ?, ?, ?, ?, ?)",
                               (thread_id, address, date, 2 if sent else 1, body, int(sent)))
            connection.commit()
        finally:
            connection.close()

    def sms_messages(self, kind: int | None = None) -> list[dict]:
        """Messages newest first; `kind` 1 received, 2 sent, None both."""
        connection = self._telephony()
        try:
            where = "" if kind is None else f" WHERE type = {int(kind)}"
            return [dict(r) for r in connection.execute(f"SELECT * FROM sms{where} ORDER BY date DESC, _id DESC")]
        finally:
            connection.close()

    # ---- emulator snapshots -------------------------------------------------------------------

    def save_snapshot(self, folder: Path) -> None:
        """The whole device state into `folder` (the emulator's ``avd snapshot save``)."""
        self.drop_alarm_connection()
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(self._fs, folder / "fs", symlinks=True)
        state = {"settings": self.settings, "contacts": self.contacts, "clipboard": self.clipboard,
                 "clock_offset_s": self.clock_offset_s, "timezone": self.timezone, "foreground": self.foreground,
                 "installed": sorted(self.installed) if self.installed is not None else None}
        (folder / "state.json").write_text(json.dumps(state))

    def load_snapshot(self, folder: Path) -> None:
        """Back to a saved state: files, settings, providers, the screen (apps restart)."""
        state = json.loads((folder / "state.json").read_text())
        self.drop_alarm_connection()
        shutil.rmtree(self._fs, ignore_errors=True)
        shutil.copytree(folder / "fs", self._fs, symlinks=True)
        self.settings, self.clipboard = state["settings"], state["clipboard"]
        self.contacts = [tuple(c) for c in state["contacts"]]
        self.clock_offset_s, self.timezone = state["clock_offset_s"], state["timezone"]
        self.installed = set(state["installed"]) if state.get("installed") is not None else None
        for app in self.apps.values():
            app.reset()
        self.foreground, self.splash = state["foreground"], 0

    def close(self) -> None:
        self.drop_alarms()
        shutil.rmtree(self._fs, ignore_errors=True)

    # ---- what input does -------------------------------------------------------------------

    def toggle_global(self, key: str) -> None:
        self.settings["global"][key] = "0" if self.settings["global"].get(key, "0") != "0" else "1"

    @property
    def app(self) -> App | None:
        return self.apps.get(self.foreground)

    def is_installed(self, package: str) -> bool:
        return package in self.apps and (self.installed is None or package in self.installed)

    def launch(self, package: str) -> bool:
        if not self.is_installed(package) and package != LAUNCHER:
            return False
        if package != self.foreground:
            self.foreground, self.splash = package, SPLASH_FRAMES if package != LAUNCHER else 0
            if package != LAUNCHER:
                self.recents = [t for t in self.recents if t != hash(package) % 997] + [hash(package) % 997]
        launched = getattr(self.apps.get(package), "launched", None)
        if launched is not None:
            launched()
        return True

    def show(self, package: str) -> App:
        """The app in the foreground, past its launch splash (as after an agent opened it)."""
        if not self.launch(package):
            raise KeyError(f"no app {package!r} on the virtual device")
        self.splash = 0
        return self.apps[package]

    def force_stop(self, package: str) -> None:
        if package in self.apps:
            self.apps[package].reset()
            if self.foreground == package:
                self.foreground, self.splash = LAUNCHER, 0

    def home(self) -> None:
        self.foreground, self.splash = LAUNCHER, 0

    def back(self) -> None:
        if self.app is not None and not self.app.back():
            self.home()

    def tap(self, x: int, y: int) -> None:
        self.events.append(("tap", x, y))
        if y >= NAV_TOP:
            {0: self.back, 1: self.home}.get(x * 3 // W, lambda: None)()
            return
        node = self._hit(x, y, lambda n: n.on_tap is not None)
        if node is not None:
            node.on_tap(x, y)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        self.events.append(("swipe", x1, y1, x2, y2, duration_ms))
        if abs(x2 - x1) + abs(y2 - y1) < 8 and duration_ms >= 500:
            node = self._hit(x1, y1, lambda n: n.on_long is not None)
            if node is not None:
                node.on_long()
            return
        node = self._hit(x1, y1, lambda n: n.on_drag is not None or n.on_scroll is not None)
        if node is not None and node.on_drag is not None:
            node.on_drag(x2, y2)
        elif node is not None:
            node.on_scroll(round((y1 - y2) / ROW_H))

    def type_text(self, text: str) -> None:
        self.events.append(("text", text))
        app = self.app
        if app is not None and app.focus is not None and not self.splash:
            app.fields[app.focus] += text

    def key(self, name: str) -> None:
        self.events.append(("key", name))
        app = self.app
        if name == "KEYCODE_HOME":
            self.home()
        elif name == "KEYCODE_BACK":
            self.back()
        elif app is not None and app.focus is not None and not self.splash:
            bare = name.removeprefix("KEYCODE_")
            if bare == "DEL":
                app.fields[app.focus] = app.fields[app.focus][:-1]
            elif len(bare) == 1 or bare == "SPACE":
                app.fields[app.focus] += " " if bare == "SPACE" else bare.lower()

    def _hit(self, x: int, y: int, wanted: Callable[[Node], bool]) -> Node | None:
        """The deepest (top-most) node under the point that reacts, as Android dispatches."""
        hits = [n for n in self.tree(consume=False).walk() if n.contains(x, y) and wanted(n)]
        return hits[-1] if hits else None

    # ---- what the screen shows -------------------------------------------------------------

    @property
    def activity(self) -> str:
        return LAUNCHER_ACTIVITY if self.app is None else self.app.activity

    def tree(self, consume: bool = True) -> Node:
        """The foreground window's view tree. A read by screencap or uiautomator (`consume`)
        advances a launch splash by one frame."""
        content = (0, STATUS_BOTTOM, W, NAV_TOP)
        if self.splash:
            frame = SPLASH_FRAMES - self.splash + 1
            if consume:
                self.splash -= 1
            return Node("android.widget.FrameLayout", content, children=[
                text_view(f"{self.app.label}: Loading {frame}", (40, 360, 320, 400))])
        if self.app is None:
            icons = [text_view(self.apps[p].label, (10 + 88 * n, 560, 86 + 88 * n, 650), desc=self.apps[p].label,
                               clickable=True, on_tap=lambda x, y, p=p: self.launch(p))
                     for n, p in enumerate(self.launcher_icons)]
            return Node("android.widget.FrameLayout", content, children=[
                text_view("12:00", (40, 120, 320, 200), rid=f"{LAUNCHER}:id/clock"), *icons])
        bar = text_view(self.app.title(), (16, 32, 260, 72), rid="android:id/action_bar_title")
        return Node("android.widget.FrameLayout", content, children=[bar, *self.app.nodes()])

    def dump_xml(self) -> str:
        """The tree as `uiautomator dump` writes it."""
        root = ET.Element("hierarchy", rotation="0")

        def add(parent: ET.Element, node: Node, index: int) -> None:
            x1, y1, x2, y2 = node.bounds
            attrs = {"index": str(index), "text": node.text, "resource-id": node.rid, "class": node.cls,
                     "package": self.foreground, "content-desc": node.desc}
            if node.hint:
                attrs["hint"] = node.hint
            flags = {"checkable": node.checkable, "checked": node.checked, "clickable": node.clickable,
                     "enabled": True, "focusable": node.clickable, "focused": node.focused,
                     "scrollable": node.scrollable, "long-clickable": node.long_clickable,
                     "password": False, "selected": node.selected}
            attrs.update({k: str(v).lower() for k, v in flags.items()})
            attrs["bounds"] = f"[{x1},{y1}][{x2},{y2}]"
            element = ET.SubElement(parent, "node", attrs)
            for n, child in enumerate(node.children):
                add(element, child, n)

        add(root, self.tree(), 0)
        return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>" + ET.tostring(root, encoding="unicode")

    def screencap_png(self) -> bytes:
        image = Image.new("RGB", (W, H), "white")
        draw = ImageDraw.Draw(image)
        splashing = self.splash > 0
        tree = self.tree()
        draw.rectangle((0, 0, W, STATUS_BOTTOM), fill="#dddddd")
        draw.text((8, 4), "12:00", fill="black", font=_font(14))
        indicators = " ".join(label for key, label in (("wifi_on", "WiFi"), ("bluetooth_on", "BT"))
                              if self.settings["global"].get(key, "0") != "0")
        draw.text((250, 4), indicators, fill="black", font=_font(14))
        if self.app is not None and not splashing:
            draw.rectangle((0, STATUS_BOTTOM, W, BAR_BOTTOM), fill="#c8dcf0")
        for node in tree.walk():
            draw_node(draw, node)
        draw.rectangle((0, NAV_TOP, W, H), fill="black")
        draw.polygon(((52, 776), (68, 766), (68, 786)), fill="white")
        draw.ellipse((170, 766, 190, 786), outline="white", width=2)
        draw.rectangle((292, 768, 308, 784), outline="white", width=2)
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue()


