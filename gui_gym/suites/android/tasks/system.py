"""System tasks: Wi-Fi, Bluetooth, brightness, the clipboard, opening an app; and the two
composite system tasks (AndroidWorld's ``single/system.py`` and ``composite/system.py``).

Success is read as AndroidWorld reads it: ``settings get global wifi_on`` (1 or 2 is on: 2
means on while airplane mode is on), ``settings get global bluetooth_on``, ``settings get
system screen_brightness`` (255 is max, 1 is min), the clipboard through the Clipper app
(fuzzy match), and the package of the focused activity. The Verify variants start in the goal
state. Composite tasks score the mean of their parts.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from gui_gym.suites.android.device import Device
from gui_gym.suites.android.matching import fuzzy_match
from gui_gym.suites.android.tasks.base import AndroidWorldTask, CompositeTask

CLIPBOARD_TEXTS = (
    "17 Harbor View, Portland, ME", "Northwind Traders, Desk 4", "mila.ortiz@example.org", "Ravi's Bike Repair",
    "Ring me at 555-2301", "Ticket No: T448210", "Table booked under: Ines", "Voucher code: SPRING15",
    "Member number: QRT552", "Invoice #60417", "Parcel ref: 7PX31Q9", "Payment ID: kzm204",
    "88 Cedar Loop, Eugene, OR", "Blue Heron Labs, Level 2", "owen.price@example.net", "Lotte's Tea Room",
    "Text 555-4417 after six", "Order ref: D220983", "Reservation name: Tariq", "Gift code: WINTER40")
"""Texts to copy (the kind AndroidWorld uses: addresses, e-mails, codes, numbers)."""
OPEN_APP_PACKAGES = {"camera": "com.android.camera2", "clock": "com.google.android.deskclock",
                     "contacts": "com.google.android.contacts", "settings": "com.android.settings",
                     "dialer": "com.google.android.dialer"}


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
        super().initialize_task(device)
        self.set_state(device, self.start)

    def is_successful(self, device: Device) -> float:
        return float(self.reads(device.setting(*self.key.split("/")), self.params[self.param]))


class _Radio(_Toggle):
    param = "on_or_off"
    service: ClassVar[str]

    def set_state(self, device: Device, state: str) -> None:
        device.set_radio(self.service, state == "on")


class _Wifi(_Radio):
    template, key, service = "Turn wifi {on_or_off}.", "global/wifi_on", "wifi"

    @classmethod
    def reads(cls, value: str, target: str) -> bool:
        return value in ("1", "2") if target == "on" else value == "0"


class _Bluetooth(_Radio):
    template, key, service = "Turn bluetooth {on_or_off}.", "global/bluetooth_on", "bluetooth"

    @classmethod
    def reads(cls, value: str, target: str) -> bool:
        return value == ("1" if target == "on" else "0")


class _Brightness(_Toggle):
    template, key, param = "Turn brightness to the {max_or_min} value.", "system/screen_brightness", "max_or_min"
    LEVELS = {"max": "255", "min": "1"}

    def set_state(self, device: Device, state: str) -> None:
        device.put_setting("system", "screen_brightness", self.LEVELS[state])

    @classmethod
    def reads(cls, value: str, target: str) -> bool:
        return value.isdigit() and int(value) == int(cls.LEVELS[target])


def _variant(base: type[_Toggle], name: str, start: str, target: str) -> type[_Toggle]:
    doc = f"{name}: precondition {start}, goal {target}."
    return type(name, (base,), {"name": name, "start": start, "target": target, "__doc__": doc,
                                "__module__": __name__})


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
_BY_NAME = {cls.name: cls for cls in TOGGLES}


class SystemCopyToClipboard(AndroidWorldTask):
    """The clipboard must hold the text (fuzzy match), read through Clipper."""

    name, complexity, app_names = "SystemCopyToClipboard", 1, ("clipper",)
    template = "Copy the following text to the clipboard: {clipboard_content}"
    RESET = "~~~RESET~~~"

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"clipboard_content": rng.choice(CLIPBOARD_TEXTS)}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.set_clipboard(self.RESET)

    def is_successful(self, device: Device) -> float:
        return float(fuzzy_match(self.params["clipboard_content"], device.clipboard()))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.set_clipboard(self.RESET)


class OpenAppTaskEval(AndroidWorldTask):
    """The named app's package must be in focus."""

    name, complexity = "OpenAppTaskEval", 1
    template = "Open the {app_name} app. Clear any pop-ups that may appear by granting all permissions that are required."
    app_names = tuple(OPEN_APP_PACKAGES)

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"app_name": rng.choice(list(OPEN_APP_PACKAGES))}

    def is_successful(self, device: Device) -> float:
        return float(device.foreground()[0] == OPEN_APP_PACKAGES[self.params["app_name"]])


class TurnOnWifiAndOpenApp(CompositeTask):
    name, complexity, app_names = "TurnOnWifiAndOpenApp", 2, ("settings",)
    template = "Turn on Wifi, then open the {app_name} app"

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return OpenAppTaskEval.generate_random_params(rng)

    def parts(self) -> list[AndroidWorldTask]:
        return [_BY_NAME["SystemWifiTurnOn"]({"on_or_off": "on"}), OpenAppTaskEval({"app_name": self.params["app_name"]})]


class TurnOffWifiAndTurnOnBluetooth(CompositeTask):
    name, complexity, app_names = "TurnOffWifiAndTurnOnBluetooth", 2, ("settings",)
    template = "Turn off WiFi, then enable bluetooth"

    def parts(self) -> list[AndroidWorldTask]:
        return [_BY_NAME["SystemWifiTurnOff"]({"on_or_off": "off"}),
                _BY_NAME["SystemBluetoothTurnOn"]({"on_or_off": "on"})]


TASKS = (*TOGGLES, SystemCopyToClipboard, OpenAppTaskEval, TurnOnWifiAndOpenApp, TurnOffWifiAndTurnOnBluetooth)
