"""Clock tasks (AndroidWorld's ``single/clock.py``), plus one of gui-gym's own.

There is no way to read the timer or stopwatch state over adb, so AndroidWorld reads the
screen: the Clock activity must be in focus and its UI elements must show the state (the
timer set-up's ``00h 00m 00s`` text or its spoken description; Pause and Lap buttons while
the stopwatch runs; Start and two "Stopwatch" labels while it is paused). Clearing the app's
data before and after resets the timer and stopwatch.

ClockAddAlarm (``source = "gui-gym"``, not in AndroidWorld's list) reads the Clock app's
SQLite database (``alarms.db``, table ``alarm_templates`` as AOSP DeskClock keeps it).
"""

from __future__ import annotations

import random
from typing import Any

from gui_gym.backends.android.elements import UIElement
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.tasks.base import AndroidWorldTask

CLOCK = "com.google.android.deskclock"
ALARMS_DB = f"/data/data/{CLOCK}/databases/alarms.db"


class _ClockTask(AndroidWorldTask):
    app_names, complexity = ("clock",), 1

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_app_data(CLOCK)

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_app_data(CLOCK)

    @staticmethod
    def clock_elements(device: Device) -> list[UIElement]:
        """The UI elements when the Clock app is in focus, else none."""
        return device.ui_elements() if "DeskClock" in device.foreground()[1] else []


class ClockTimerEntry(_ClockTask):
    """The timer set-up screen must show the duration (and the timer not be started)."""

    name = "ClockTimerEntry"
    template = "Create a timer with {hours} hours, {minutes} minutes, and {seconds} seconds. Do not start the timer."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"hours": rng.randint(0, 23), "minutes": rng.randint(0, 59), "seconds": rng.randint(0, 59)}

    def is_successful(self, device: Device) -> float:
        h, m, s = (self.params[k] for k in ("hours", "minutes", "seconds"))
        text, description = f"{h:02d}h {m:02d}m {s:02d}s", f"{h} hours, {m} minutes, {s} seconds"
        return float(any(e.text == text or e.content_description == description for e in self.clock_elements(device)))


class ClockStopWatchRunning(_ClockTask):
    """The stopwatch screen must show Pause and Lap: it runs."""

    name, template = "ClockStopWatchRunning", "Run the stopwatch."

    def is_successful(self, device: Device) -> float:
        descriptions = {e.content_description for e in self.clock_elements(device)}
        return float({"Pause", "Lap"} <= descriptions)


class ClockStopWatchPausedVerify(_ClockTask):
    """The stopwatch screen (title and tab both say Stopwatch) must offer Start: it is paused."""

    name, template = "ClockStopWatchPausedVerify", "Pause the stopwatch."

    def is_successful(self, device: Device) -> float:
        elements = self.clock_elements(device)
        start = any(e.content_description == "Start" for e in elements)
        stopwatch = sum(e.text == "Stopwatch" or e.content_description == "Stopwatch" for e in elements)
        return float(start and stopwatch >= 2)


class ClockAddAlarm(_ClockTask):
    """gui-gym's: an enabled alarm at the time must be in the Clock app's database."""

    name, source, complexity = "ClockAddAlarm", "gui-gym", 1.5
    template = "Add an alarm for {time} (24-hour clock) in the Clock app and leave it switched on."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"time": f"{rng.randint(5, 22):02d}:{rng.choice((0, 15, 30, 45)):02d}"}

    def is_successful(self, device: Device) -> float:
        hour, minute = (int(part) for part in self.params["time"].split(":"))
        rows = device.query(ALARMS_DB, "SELECT hour, minutes, enabled FROM alarm_templates") or []
        return float({"hour": hour, "minutes": minute, "enabled": 1} in rows)


TASKS = (ClockTimerEntry, ClockStopWatchRunning, ClockStopWatchPausedVerify, ClockAddAlarm)
