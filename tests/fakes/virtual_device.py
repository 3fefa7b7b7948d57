"""A scripted Android phone for the fake adb server: a few stock-app screens over real state.

No emulator runs on the test machines, so tests drive this instead. The screens imitate the
stock apps AndroidWorld uses (launcher, Settings, Contacts, Files, Clock). One view tree per
screen is both what `uiautomator dump` writes and what the screenshot is drawn from, so the
pixels, the element tree and the state behind them never disagree. State lives where Android
keeps it: the settings tables, the contacts provider, files under /storage/emulated/0 on a
real directory, and the clock's alarms in a real SQLite database in WAL mode (so a reader that
pulls only ``alarms.db`` and not its ``-wal`` misses rows, as on a device).

An app launch shows two "Loading" frames first (each screen read consumes one), so a client
that does not wait for the UI to settle sees the splash.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import sqlite3
import tempfile
import threading
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from PIL import Image, ImageDraw, ImageFont

W, H = 360, 800
STATUS_BOTTOM, BAR_BOTTOM, NAV_TOP = 24, 80, 752
ROW_H = 56
STORAGE = "/storage/emulated/0"
STORAGE_FOLDERS = ("Alarms", "DCIM", "Documents", "Download", "Movies", "Music", "Pictures")
ALARMS_DB = "/data/data/com.google.android.deskclock/databases/alarms.db"
LAUNCHER = "com.google.android.apps.nexuslauncher"
LAUNCHER_ACTIVITY = "com.google.android.apps.nexuslauncher.NexusLauncherActivity"
OTHER_PACKAGES = ("android", "com.android.systemui", "com.android.providers.contacts", "com.android.chrome")
SPLASH_FRAMES = 2


@dataclass
class Node:
    """One view: what uiautomator reports for it, plus how it reacts to touch."""

    cls: str
    bounds: tuple[int, int, int, int]
    text: str = ""
    desc: str = ""
    rid: str = ""
    hint: str = ""
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    scrollable: bool = False
    focused: bool = False
    selected: bool = False
    progress: float | None = None
    on_tap: Callable[[int, int], None] | None = None
    on_long: Callable[[], None] | None = None
    on_drag: Callable[[int, int], None] | None = None
    on_scroll: Callable[[int], None] | None = None
    children: list["Node"] = field(default_factory=list)

    def contains(self, x: int, y: int) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x1 <= x < x2 and y1 <= y < y2

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


def text_view(text: str, box, **kw) -> Node:
    return Node("android.widget.TextView", box, text=text, **kw)


def button(label: str, box, on_tap, **kw) -> Node:
    return Node("android.widget.Button", box, text=label, clickable=True, on_tap=lambda x, y: on_tap(), **kw)


def image_button(desc: str, box, on_tap, **kw) -> Node:
    return Node("android.widget.ImageButton", box, desc=desc, clickable=True, on_tap=lambda x, y: on_tap(), **kw)


def switch(on: bool, box, **kw) -> Node:
    return Node("android.widget.Switch", box, text="ON" if on else "OFF", checkable=True, checked=on,
                rid="android:id/switch_widget", **kw)


class App:
    """An app's screens. `nodes` builds the content below the app bar from current state."""

    package = ""
    label = ""

    def __init__(self, device: "VirtualDevice") -> None:
        self.device = device
        self.reset()

    def reset(self) -> None:
        """Force-stop: the next launch starts at the first screen with nothing typed."""
        self.fields: dict[str, str] = {}
        self.focus: str | None = None

    def clear_data(self) -> None:
        self.reset()

    @property
    def activity(self) -> str:
        raise NotImplementedError

    def title(self) -> str:
        return self.label

    def nodes(self) -> list[Node]:
        raise NotImplementedError

    def back(self) -> bool:
        """Handle Back inside the app; False leaves the app."""
        return False

    def edit(self, name: str, box, rid: str) -> Node:
        def focus(x: int, y: int) -> None:
            self.focus = name
        return Node("android.widget.EditText", box, text=self.fields.get(name, ""), hint=name, rid=rid,
                    clickable=True, long_clickable=True, focused=self.focus == name, on_tap=focus)


class SettingsApp(App):
    package, label = "com.android.settings", "Settings"
    activity = "com.android.settings.Settings"

    def nodes(self) -> list[Node]:
        settings = self.device.settings
        out = []
        for n, (key, label) in enumerate((("wifi_on", "Wi-Fi"), ("bluetooth_on", "Bluetooth"))):
            y = BAR_BOTTOM + 72 * n
            on = settings["global"].get(key, "0") != "0"
            out.append(Node("android.widget.LinearLayout", (0, y, W, y + 72), clickable=True,
                            on_tap=lambda x, y, k=key: self.device.toggle_global(k), children=[
                                text_view(label, (16, y + 12, 260, y + 40), rid="android:id/title"),
                                text_view("On" if on else "Off", (16, y + 40, 260, y + 64), rid="android:id/summary"),
                                switch(on, (290, y + 20, 344, y + 52))]))
        y = BAR_BOTTOM + 144
        level = int(settings["system"].get("screen_brightness", "128"))
        fraction = (level - 1) / 254
        bar = (16, y + 44, 344, y + 76)

        def set_level(x: int, _y: int) -> None:
            share = min(1.0, max(0.0, (x - bar[0]) / (bar[2] - bar[0])))
            settings["system"]["screen_brightness"] = str(1 + round(share * 254))
        out.append(Node("android.widget.LinearLayout", (0, y, W, y + 88), children=[
            text_view("Brightness level", (16, y + 8, 260, y + 36), rid="android:id/title"),
            text_view(f"{round(fraction * 100)}%", (270, y + 8, 344, y + 36), rid="android:id/summary"),
            Node("android.widget.SeekBar", bar, desc="Brightness level", rid="com.android.settings:id/seekbar",
                 clickable=True, progress=fraction, on_tap=set_level, on_drag=set_level)]))
        return out


class ContactsApp(App):
    package, label = "com.google.android.contacts", "Contacts"

    def reset(self) -> None:
        super().reset()
        self.editing = False
        self.fields = {"First name": "", "Last name": "", "Phone": ""}

    @property
    def activity(self) -> str:
        return ("com.android.contacts.activities.ContactEditorActivity" if self.editing
                else "com.android.contacts.activities.PeopleActivity")

    def title(self) -> str:
        return "Create contact" if self.editing else "Contacts"

    def nodes(self) -> list[Node]:
        rid = "com.google.android.contacts:id/"
        if self.editing:
            fields = [self.edit(name, (16, 100 + 70 * n, 344, 148 + 70 * n), rid + "editor_field")
                      for n, name in enumerate(self.fields)]
            return [*fields, button("Save", (272, 30, 352, 74), self.save, rid=rid + "editor_menu_save_button")]
        names = sorted(name for name, _ in self.device.contacts)
        rows = [text_view(name, (16, BAR_BOTTOM + ROW_H * n, 344, BAR_BOTTOM + ROW_H * (n + 1)), clickable=True,
                          rid=rid + "cliv_name_textview") for n, name in enumerate(names[:10])]
        listing = Node("androidx.recyclerview.widget.RecyclerView", (0, BAR_BOTTOM, W, 660), rid=rid + "list",
                       scrollable=bool(rows), children=rows or [text_view("No contacts", (16, 300, 344, 340))])
        return [listing, image_button("Create contact", (288, 672, 344, 728), self.start_editing,
                                      rid=rid + "floating_action_button")]

    def start_editing(self) -> None:
        self.editing = True

    def save(self) -> None:
        name = " ".join(part for part in (self.fields["First name"], self.fields["Last name"]) if part)
        if name or self.fields["Phone"]:
            self.device.contacts.append((name, self.fields["Phone"]))
        self.reset()

    def back(self) -> bool:
        if self.editing:
            self.reset()
            return True
        return False


class FilesApp(App):
    package, label = "com.google.android.documentsui", "Files"
    activity = "com.android.documentsui.files.FilesActivity"

    def reset(self) -> None:
        super().reset()
        self.path, self.selected, self.offset = STORAGE, set(), 0

    def title(self) -> str:
        return "sdk_gphone_x86_64" if self.path == STORAGE else os.path.basename(self.path)

    def nodes(self) -> list[Node]:
        host = self.device.host_path(self.path)
        entries = sorted(host.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower())) if host.is_dir() else []
        rows = []
        for n, entry in enumerate(entries[self.offset:self.offset + 10]):
            y = BAR_BOTTOM + ROW_H * n
            rows.append(Node("android.widget.LinearLayout", (0, y, W, y + ROW_H), clickable=True, long_clickable=True,
                             selected=entry.name in self.selected,
                             on_tap=lambda x, y, e=entry: self.open(e), on_long=lambda e=entry: self.selected.add(e.name),
                             children=[text_view(entry.name, (16, y + 6, 344, y + 32), rid="android:id/title"),
                                       text_view("Folder" if entry.is_dir() else f"{entry.stat().st_size} B",
                                                 (16, y + 32, 344, y + 52), rid="android:id/summary")]))
        listing = Node("androidx.recyclerview.widget.RecyclerView", (0, BAR_BOTTOM, W, NAV_TOP), scrollable=True,
                       rid="com.google.android.documentsui:id/dir_list", on_scroll=self.scroll, children=rows)
        out = [listing]
        if self.selected:
            out.append(image_button("Delete", (300, 28, 352, 76), self.delete_selected,
                                    rid="com.google.android.documentsui:id/action_menu_delete"))
        return out

    def open(self, entry: Path) -> None:
        if self.selected:
            self.selected ^= {entry.name}
        elif entry.is_dir():
            self.path, self.offset = f"{self.path}/{entry.name}", 0

    def scroll(self, rows: int) -> None:
        count = len(list(self.device.host_path(self.path).iterdir()))
        self.offset = max(0, min(self.offset + rows, max(0, count - 10)))

    def delete_selected(self) -> None:
        for name in self.selected:
            target = self.device.host_path(f"{self.path}/{name}")
            shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
        self.selected = set()

    def back(self) -> bool:
        if self.selected:
            self.selected = set()
        elif self.path != STORAGE:
            self.path, self.offset = os.path.dirname(self.path), 0
        else:
            return False
        return True


class ClockApp(App):
    package, label = "com.google.android.deskclock", "Clock"
    activity = "com.android.deskclock.DeskClock"
    TABS = ("Alarm", "Timer", "Stopwatch")

    def reset(self) -> None:
        super().reset()
        self.tab, self.adding = "Alarm", False
        self.fields = {"Hour": "", "Minute": ""}
        self.digits, self.timer_running, self.stopwatch = "", False, "reset"

    def clear_data(self) -> None:
        self.reset()
        self.device.drop_alarms()

    def title(self) -> str:
        return self.tab

    def nodes(self) -> list[Node]:
        rid = "com.google.android.deskclock:id/"
        out = [text_view(tab, (120 * n, 680, 120 * (n + 1), NAV_TOP), desc=tab, clickable=True, selected=tab == self.tab,
                         rid=rid + "tab_label", on_tap=lambda x, y, t=tab: setattr(self, "tab", t))
               for n, tab in enumerate(self.TABS)]
        if self.tab == "Alarm":
            out += self.alarm_nodes(rid)
        elif self.tab == "Timer":
            out += self.timer_nodes(rid)
        else:
            shown = "00:00.00" if self.stopwatch == "reset" else "00:03.20"
            out += [text_view(shown, (60, 200, 300, 260), rid=rid + "stopwatch_time_text"),
                    image_button("Pause" if self.stopwatch == "running" else "Start", (152, 600, 208, 656),
                                 self.toggle_stopwatch, rid=rid + "fab")]
            if self.stopwatch != "reset":
                out.append(image_button("Lap" if self.stopwatch == "running" else "Reset", (60, 600, 116, 656),
                                        self.lap_or_reset, rid=rid + "left_button"))
        return out

    def alarm_nodes(self, rid: str) -> list[Node]:
        if self.adding:
            return [self.edit("Hour", (16, 100, 344, 148), rid + "hour"),
                    self.edit("Minute", (16, 170, 344, 218), rid + "minute"),
                    button("Cancel", (16, 250, 170, 298), self.reset_form), button("OK", (190, 250, 344, 298), self.add_alarm)]
        rows = []
        for n, (alarm_id, hour, minutes, enabled) in enumerate(self.device.alarms()[:8]):
            y = BAR_BOTTOM + 64 * n
            rows += [text_view(f"{hour}:{minutes:02d}", (16, y + 8, 260, y + 56), rid=rid + "digital_clock"),
                     switch(bool(enabled), (290, y + 16, 344, y + 48), clickable=True,
                            on_tap=lambda x, y, a=alarm_id: self.device.toggle_alarm(a))]
        return rows + [image_button("Add alarm", (152, 600, 208, 656), self.start_adding, rid=rid + "fab")]

    def timer_nodes(self, rid: str) -> list[Node]:
        h, m, s = (int(self.digits.rjust(6, "0")[i:i + 2]) for i in (0, 2, 4))
        if self.timer_running:
            return [text_view(f"{h:02d}:{m:02d}:{s:02d}", (60, 200, 300, 260), rid=rid + "timer_time_text"),
                    image_button("Pause", (152, 600, 208, 656), self.stop_timer, rid=rid + "fab")]
        out = [text_view(f"{h:02d}h {m:02d}m {s:02d}s", (40, 110, 320, 170), desc=f"{h} hours, {m} minutes, {s} seconds",
                         rid=rid + "timer_setup_time")]
        for n, key in enumerate("123456789 0"):
            if key != " ":
                x, y = 60 + 90 * (n % 3), 200 + 80 * (n // 3)
                out.append(button(key, (x, y, x + 60, y + 60), lambda k=key: self.press_digit(k), rid=rid + f"timer_setup_digit_{key}"))
        out.append(image_button("Delete", (240, 440, 300, 500), self.delete_digit, rid=rid + "timer_setup_delete"))
        if self.digits:
            out.append(image_button("Start", (152, 600, 208, 656), self.start_timer, rid=rid + "fab"))
        return out

    def start_adding(self) -> None:
        self.adding = True

    def reset_form(self) -> None:
        self.adding, self.fields, self.focus = False, {"Hour": "", "Minute": ""}, None

    def add_alarm(self) -> None:
        hour, minute = self.fields["Hour"], self.fields["Minute"]
        if hour.isdigit() and minute.isdigit() and int(hour) < 24 and int(minute) < 60:
            self.device.add_alarm(int(hour), int(minute))
            self.reset_form()

    def press_digit(self, key: str) -> None:
        if len(self.digits) < 6 and (self.digits or key != "0"):
            self.digits += key

    def delete_digit(self) -> None:
        self.digits = self.digits[:-1]

    def start_timer(self) -> None:
        self.timer_running = True

    def stop_timer(self) -> None:
        self.timer_running = False

    def toggle_stopwatch(self) -> None:
        self.stopwatch = "paused" if self.stopwatch == "running" else "running"

    def lap_or_reset(self) -> None:
        if self.stopwatch == "paused":
            self.stopwatch = "reset"

    def back(self) -> bool:
        if self.adding:
            self.reset_form()
            return True
        return False


APPS = (SettingsApp, ContactsApp, FilesApp, ClockApp)


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
        self.apps = {cls.package: cls(self) for cls in APPS}
        self.foreground = LAUNCHER
        self.splash = 0
        self._fs = Path(tempfile.mkdtemp(prefix="gui-gym-fake-device-"))
        for folder in STORAGE_FOLDERS:
            self.host_path(f"{STORAGE}/{folder}").mkdir(parents=True)
        self.host_path("/data/local/tmp").mkdir(parents=True)
        self._alarms: sqlite3.Connection | None = None

    # ---- files and databases ---------------------------------------------------------------

    def host_path(self, device_path: str) -> Path:
        """Where a device path lives on the host (/sdcard is /storage/emulated/0)."""
        path = os.path.normpath("/" + device_path.lstrip("/"))
        if path == "/sdcard" or path.startswith("/sdcard/"):
            path = STORAGE + path[len("/sdcard"):]
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

    def drop_alarms(self) -> None:
        if self._alarms is not None:
            self._alarms.close()
            self._alarms = None
        shutil.rmtree(self.host_path(os.path.dirname(os.path.dirname(ALARMS_DB))), ignore_errors=True)

    def close(self) -> None:
        self.drop_alarms()
        shutil.rmtree(self._fs, ignore_errors=True)

    # ---- what input does -------------------------------------------------------------------

    def toggle_global(self, key: str) -> None:
        self.settings["global"][key] = "0" if self.settings["global"].get(key, "0") != "0" else "1"

    @property
    def app(self) -> App | None:
        return self.apps.get(self.foreground)

    def launch(self, package: str) -> bool:
        if package not in self.apps and package != LAUNCHER:
            return False
        if package != self.foreground:
            self.foreground, self.splash = package, SPLASH_FRAMES if package != LAUNCHER else 0
        return True

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
            icons = [text_view(app.label, (10 + 88 * n, 560, 86 + 88 * n, 650), desc=app.label, clickable=True,
                               on_tap=lambda x, y, p=app.package: self.launch(p)) for n, app in enumerate(self.apps.values())]
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
            _draw(draw, node)
        draw.rectangle((0, NAV_TOP, W, H), fill="black")
        draw.polygon(((52, 776), (68, 766), (68, 786)), fill="white")
        draw.ellipse((170, 766, 190, 786), outline="white", width=2)
        draw.rectangle((292, 768, 308, 784), outline="white", width=2)
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue()


@functools.lru_cache(maxsize=None)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _draw(draw: ImageDraw.ImageDraw, node: Node) -> None:
    x1, y1, x2, y2 = node.bounds
    kind = node.cls.rsplit(".", 1)[-1]
    if node.selected:
        draw.rectangle(node.bounds, fill="#d6e4ff")
    if kind == "Switch":
        draw.rounded_rectangle(node.bounds, radius=(y2 - y1) // 2, fill="#2e7d32" if node.checked else "#9e9e9e")
        cx = x2 - (y2 - y1) // 2 if node.checked else x1 + (y2 - y1) // 2
        draw.ellipse((cx - 12, y1 + 4, cx + 12, y2 - 4), fill="white")
    elif kind == "EditText":
        draw.line((x1, y2 - 2, x2, y2 - 2), fill="#1a73e8" if node.focused else "#777777", width=3 if node.focused else 1)
        draw.text((x1 + 4, y1 + 12), node.text or node.hint, fill="black" if node.text else "#999999", font=_font(18))
    elif kind == "Button":
        draw.rounded_rectangle(node.bounds, radius=8, fill="#e3ecfa", outline="#1a73e8")
        draw.text(((x1 + x2) // 2, (y1 + y2) // 2), node.text, fill="#1a73e8", font=_font(18), anchor="mm")
    elif kind == "ImageButton":
        draw.ellipse(node.bounds, fill="#1a73e8")
        draw.text(((x1 + x2) // 2, (y1 + y2) // 2), node.desc[:1], fill="white", font=_font(22), anchor="mm")
    elif kind == "SeekBar":
        mid = (y1 + y2) // 2
        draw.line((x1, mid, x2, mid), fill="#9e9e9e", width=4)
        thumb = x1 + round((node.progress or 0.0) * (x2 - x1))
        draw.line((x1, mid, thumb, mid), fill="#1a73e8", width=4)
        draw.ellipse((thumb - 10, mid - 10, thumb + 10, mid + 10), fill="#1a73e8")
    elif kind == "TextView" and node.text:
        big = node.rid.endswith(("clock", "_time_text", "timer_setup_time", "action_bar_title"))
        draw.text((x1, y1 + 4), node.text, fill="black", font=_font(28 if big else 18))
