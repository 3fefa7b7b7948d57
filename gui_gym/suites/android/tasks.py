"""The Android tasks gui-gym implements, on stock apps, in AndroidWorld's shape.

Each AndroidWorld task here keeps its AndroidWorld name, goal template, complexity (so its
step budget) and success condition, re-implemented over `Device`:

- settings: SystemWifiTurnOn/Off(+Verify), SystemBluetoothTurnOn/Off(+Verify),
  SystemBrightnessMax/Min(+Verify), TurnOffWifiAndTurnOnBluetooth: ``settings get``;
- OpenAppTaskEval: the focused package (``dumpsys window``);
- ContactsAddContact: the contacts provider (``content query``);
- FilesDeleteFile: the file's absence on shared storage (adb sync STAT);
- ClockTimerEntry, ClockStopWatchRunning, ClockStopWatchPausedVerify: the Clock activity in
  focus and its UI elements, as AndroidWorld checks them.

One task is gui-gym's own (``source = "gui-gym"``, not in AndroidWorld's list):
ClockAddAlarm, read from the Clock app's SQLite database (``alarms.db``, table
``alarm_templates`` as AOSP DeskClock keeps it) pulled over adb, which needs ``adb root``.
"""

from __future__ import annotations

import random
import re
from typing import Any, ClassVar

from gui_gym.backends.android_elements import UIElement
from gui_gym.backends.android_input import STOCK_APPS
from gui_gym.suites.android.device import STORAGE, Device
from gui_gym.suites.android.task import AndroidWorldTask

FIRST_NAMES = ("Ada", "Grace", "Alan", "Barbara", "Edsger", "Frances", "Donald", "Radia", "Tim", "Margaret")
LAST_NAMES = ("Lovelace", "Hopper", "Turing", "Liskov", "Dijkstra", "Allen", "Knuth", "Perlman", "Berners", "Hamilton")
FILE_FOLDERS = ("Download", "Documents", "Pictures", "Music", "Movies", "DCIM")
FILE_WORDS = ("report", "holiday", "invoice", "notes", "budget", "draft", "summary", "receipt")
FILE_EXTENSIONS = {"Download": ".pdf", "Documents": ".txt", "Pictures": ".jpg", "Music": ".mp3", "Movies": ".mp4",
                   "DCIM": ".jpg"}
CLOCK = "com.google.android.deskclock"
ALARMS_DB = f"/data/data/{CLOCK}/databases/alarms.db"


class _Toggle(AndroidWorldTask):
    """A setting to be turned to `target` from `start` (equal in the Verify variants)."""

    app_names = ("settings",)
    complexity = 1
    key: ClassVar[str]
    """namespace/key of the setting that holds the state."""
    param: ClassVar[str]
    start: ClassVar[str]
    target: ClassVar[str]

    def set_state(self, device: Device, state: str) -> None:
        raise NotImplementedError

    @classmethod
    def reads(cls, value: str, target: str) -> bool:
        """Whether the setting's `value` means `target`."""
        raise NotImplementedError

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {cls.param: cls.target}

    def initialize_task(self, device: Device) -> None:
        self.set_state(device, self.start)

    def is_successful(self, device: Device) -> float:
        return float(self.reads(device.setting(*self.key.split("/")), self.params[self.param]))


class _Radio(_Toggle):
    param = "on_or_off"
    service: ClassVar[str]

    def set_state(self, device: Device, state: str) -> None:
        device.set_radio(self.service, state == "on")

    @classmethod
    def reads(cls, value: str, target: str) -> bool:
        # Wi-Fi reads 2 when it is on while airplane mode is on
        return value in ("1", "2") if target == "on" else value == "0"


class _Wifi(_Radio):
    template, key, service = "Turn wifi {on_or_off}.", "global/wifi_on", "wifi"


class _Bluetooth(_Radio):
    template, key, service = "Turn bluetooth {on_or_off}.", "global/bluetooth_on", "bluetooth"


class _Brightness(_Toggle):
    template, key, param = "Turn brightness to the {max_or_min} value.", "system/screen_brightness", "max_or_min"
    LEVELS = {"max": "255", "min": "1"}

    def set_state(self, device: Device, state: str) -> None:
        device.put_setting("system", "screen_brightness", self.LEVELS[state])

    @classmethod
    def reads(cls, value: str, target: str) -> bool:
        return value == cls.LEVELS[target]


def _variant(base: type[_Toggle], name: str, start: str, target: str) -> type[_Toggle]:
    doc = f"{name}: precondition {start}, goal {target}."
    return type(name, (base,), {"name": name, "start": start, "target": target, "__doc__": doc})


TOGGLES = [
    _variant(_Wifi, "SystemWifiTurnOn", "off", "on"), _variant(_Wifi, "SystemWifiTurnOff", "on", "off"),
    _variant(_Wifi, "SystemWifiTurnOnVerify", "on", "on"), _variant(_Wifi, "SystemWifiTurnOffVerify", "off", "off"),
    _variant(_Bluetooth, "SystemBluetoothTurnOn", "off", "on"),
    _variant(_Bluetooth, "SystemBluetoothTurnOff", "on", "off"),
    _variant(_Bluetooth, "SystemBluetoothTurnOnVerify", "on", "on"),
    _variant(_Bluetooth, "SystemBluetoothTurnOffVerify", "off", "off"),
    _variant(_Brightness, "SystemBrightnessMax", "min", "max"), _variant(_Brightness, "SystemBrightnessMin", "max", "min"),
    _variant(_Brightness, "SystemBrightnessMaxVerify", "max", "max"),
    _variant(_Brightness, "SystemBrightnessMinVerify", "min", "min"),
]


class TurnOffWifiAndTurnOnBluetooth(AndroidWorldTask):
    """Two settings at once; half the score for each."""

    name, template, complexity, app_names = "TurnOffWifiAndTurnOnBluetooth", "Turn off WiFi, then enable bluetooth", 2, ("settings",)

    def initialize_task(self, device: Device) -> None:
        device.set_radio("wifi", True)
        device.set_radio("bluetooth", False)

    def is_successful(self, device: Device) -> float:
        wifi_off = device.setting("global", "wifi_on") == "0"
        bluetooth_on = device.setting("global", "bluetooth_on") == "1"
        return (wifi_off + bluetooth_on) / 2


class OpenAppTaskEval(AndroidWorldTask):
    """The named app must be in focus."""

    name, complexity = "OpenAppTaskEval", 1
    template = "Open the {app_name} app. Clear any pop-ups that may appear by granting all permissions that are required."
    app_names = ("camera", "clock", "contacts", "settings", "dialer")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"app_name": rng.choice(cls.app_names)}

    def is_successful(self, device: Device) -> float:
        return float(device.foreground()[0] in STOCK_APPS[self.params["app_name"]])


class ContactsAddContact(AndroidWorldTask):
    """A contact with the name and (digits of the) number must exist."""

    name, complexity, app_names = "ContactsAddContact", 1, ("contacts",)
    template = "Create a new contact for {name}. Their number is {number}."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"name": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
                "number": f"{rng.randint(200, 999)}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}"}

    def initialize_task(self, device: Device) -> None:
        device.clear_contacts()

    def is_successful(self, device: Device) -> float:
        digits = re.sub(r"\D", "", self.params["number"])
        return float(any(name == self.params["name"] and re.sub(r"\D", "", number) == digits
                         for name, number in device.contacts()))


class FilesDeleteFile(AndroidWorldTask):
    """The file must be gone from its folder (other files are noise around it)."""

    name, complexity, app_names = "FilesDeleteFile", 2.2, ("files",)
    template = ("Delete the file {file_name} from the Android filesystem located in the {subfolder} folder within the "
                "sdk_gphone_x86_64 storage area.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        subfolder = rng.choice(FILE_FOLDERS)
        names = [f"{word}_{rng.randint(10, 99)}{FILE_EXTENSIONS[subfolder]}" for word in rng.sample(FILE_WORDS, 4)]
        return {"file_name": names[0], "subfolder": subfolder, "noise_files": names[1:]}

    @property
    def folder(self) -> str:
        return f"{STORAGE}/{self.params['subfolder']}"

    def initialize_task(self, device: Device) -> None:
        device.make_dirs(self.folder)
        device.clear_folder(self.folder)
        for name in (self.params["file_name"], *self.params["noise_files"]):
            device.write_file(f"{self.folder}/{name}", f"{name}\n".encode())
        device.media_scan(self.folder)

    def is_successful(self, device: Device) -> float:
        return float(not device.file_exists(f"{self.folder}/{self.params['file_name']}"))

    def tear_down(self, device: Device) -> None:
        device.clear_folder(self.folder)


class _ClockTask(AndroidWorldTask):
    app_names, complexity = ("clock",), 1

    def initialize_task(self, device: Device) -> None:
        device.force_stop(CLOCK)
        device.clear_app_data(CLOCK)  # the stopwatch and timer start from zero, no alarms

    @staticmethod
    def clock_elements(device: Device) -> list[UIElement] | None:
        """The UI elements when the Clock app is in focus, else None."""
        return device.ui_elements() if "DeskClock" in device.foreground()[1] else None


class ClockTimerEntry(_ClockTask):
    """The timer set-up screen must show the duration (and the timer not be started)."""

    name = "ClockTimerEntry"
    template = "Create a timer with {hours} hours, {minutes} minutes, and {seconds} seconds. Do not start the timer."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"hours": rng.randint(0, 23), "minutes": rng.randint(0, 59), "seconds": rng.randint(1, 59)}

    def is_successful(self, device: Device) -> float:
        h, m, s = (self.params[k] for k in ("hours", "minutes", "seconds"))
        text, description = f"{h:02d}h {m:02d}m {s:02d}s", f"{h} hours, {m} minutes, {s} seconds"
        elements = self.clock_elements(device) or []
        return float(any(e.text == text or e.content_description == description for e in elements))


class ClockStopWatchRunning(_ClockTask):
    """The stopwatch screen must show Pause and Lap: it runs."""

    name, template = "ClockStopWatchRunning", "Run the stopwatch."

    def is_successful(self, device: Device) -> float:
        descriptions = {e.content_description for e in self.clock_elements(device) or []}
        return float({"Pause", "Lap"} <= descriptions)


class ClockStopWatchPausedVerify(_ClockTask):
    """The stopwatch screen (title and tab both say Stopwatch) must offer Start: it is paused."""

    name, template = "ClockStopWatchPausedVerify", "Pause the stopwatch."

    def is_successful(self, device: Device) -> float:
        elements = self.clock_elements(device) or []
        start = any(e.content_description == "Start" for e in elements)
        stopwatch = sum(e.text == "Stopwatch" or e.content_description == "Stopwatch" for e in elements)
        return float(start and stopwatch == 2)


class ClockAddAlarm(_ClockTask):
    """gui-gym's: an enabled alarm at the time must be in the Clock app's database."""

    name, source, complexity = "ClockAddAlarm", "gui-gym", 1.5
    template = "Add an alarm for {time} (24-hour clock) in the Clock app and leave it switched on."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"time": f"{rng.randint(5, 22):02d}:{rng.choice((0, 15, 30, 45)):02d}"}

    def is_successful(self, device: Device) -> float:
        hour, minute = (int(part) for part in self.params["time"].split(":"))
        rows = device.sqlite_query(ALARMS_DB, "SELECT hour, minutes, enabled FROM alarm_templates") or []
        return float((hour, minute, 1) in rows)


TASKS: dict[str, type[AndroidWorldTask]] = {
    cls.name: cls for cls in (*TOGGLES, TurnOffWifiAndTurnOnBluetooth, OpenAppTaskEval, ContactsAddContact,
                              FilesDeleteFile, ClockTimerEntry, ClockStopWatchRunning, ClockStopWatchPausedVerify,
                              ClockAddAlarm)
}
"""Task id (the AndroidWorld name) -> class."""
