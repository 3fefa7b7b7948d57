"""The stock apps of the virtual device: Settings, Contacts, Files and Clock screens over real state."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .views import BAR_BOTTOM, NAV_TOP, ROW_H, W, App, Node, button, image_button, switch, text_view

STORAGE = "/storage/emulated/0"


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

    LABELS = ("Mobile", "Home", "Work")

    def reset(self) -> None:
        super().reset()
        self.editing = False
        self.fields = {"First name": "", "Last name": "", "Phone": ""}
        self.phone_label = "Mobile"

    def prefill(self, name: str, phone: str) -> None:
        """The insert screen an ``INSERT`` intent with name and phone extras opens."""
        self.reset()
        first, _, last = name.partition(" ")
        self.editing = True
        self.fields.update({"First name": first, "Last name": last, "Phone": phone})

    def next_label(self) -> None:
        self.phone_label = self.LABELS[(self.LABELS.index(self.phone_label) + 1) % len(self.LABELS)]

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
            label = Node("android.widget.Spinner", (16, 310, 200, 350), text=self.phone_label,
                         desc=f"{self.phone_label} Phone", clickable=True, rid=rid + "spinner",
                         on_tap=lambda x, y: self.next_label())
            return [*fields, label, button("Save", (272, 30, 352, 74), self.save, rid=rid + "editor_menu_save_button")]
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


STOCK_APPS = (SettingsApp, ContactsApp, FilesApp, ClockApp)
