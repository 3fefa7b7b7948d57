"""Browser tasks (AndroidWorld's ``single/browser.py``): a game page opened in Chrome.

Set-up empties shared storage, clears Chrome's data (granting its notification permission so
no dialog asks) and puts ``task.html`` (`browser_pages`, the puzzle drawn from the task's seed)
in Download. These tasks let the device take its time from the network (AndroidWorld does:
Chrome needs a plausible clock), and turn that off again at tear-down. Success is Chrome in
front showing "Success!".
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from gui_gym.suites.android.device import Device
from gui_gym.suites.android.device_files import DOWNLOAD
from gui_gym.suites.android.tasks import browser_pages
from gui_gym.suites.android.tasks.base import AndroidWorldTask

CHROME = "com.android.chrome"
PREAMBLE = "Open the file task.html in Downloads in the file manager; when prompted open it with Chrome."


class _Browser(AndroidWorldTask):
    app_names, complexity = ("chrome",), 2
    page: ClassVar[str]
    ask: ClassVar[str]

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"browser_task_seed": rng.randint(0, 2**32 - 1)}

    @property
    def goal(self) -> str:
        return f"{PREAMBLE} {self.ask}"

    def initialize_device_time(self, device: Device) -> None:
        device.set_auto_time(True)

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        device.clear_app_data(CHROME)
        device.grant_permission(CHROME, "android.permission.POST_NOTIFICATIONS")
        html = browser_pages.page(self.page, self.params["browser_task_seed"])
        device.write_file(f"{DOWNLOAD}/task.html", html.encode(), world_writable=True)

    def is_successful(self, device: Device) -> float:
        if device.foreground()[0] != CHROME:
            return 0.0
        return float(any(e.text == "Success!" for e in device.ui_elements()))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()
        device.clear_app_data(CHROME)
        device.set_auto_time(False)


class BrowserMaze(_Browser):
    name, page = "BrowserMaze", browser_pages.MAZE
    ask = "Then navigate the X to the bottom-right cell, by using the direction buttons."
    template = f"{PREAMBLE} {ask}"


class BrowserMultiply(_Browser):
    name, page, complexity = "BrowserMultiply", browser_pages.MULTIPLY, 2.2
    ask = "Then click the button 5 times, remember the numbers displayed, and enter their product in the form."
    template = f"{PREAMBLE} {ask}"


class BrowserDraw(_Browser):
    name, page = "BrowserDraw", browser_pages.DRAW
    ask = "Then create a drawing using the three colors shown at the top and hit submit."
    template = f"{PREAMBLE} {ask}"


TASKS = (BrowserMaze, BrowserMultiply, BrowserDraw)
