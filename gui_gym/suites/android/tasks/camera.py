"""Camera tasks (AndroidWorld's ``single/camera.py``): exactly one new photo or video.

The Pictures and Movies folders are emptied before and after; success is that ``ls`` of the
folder lists exactly one name it did not list after set-up.
"""

from __future__ import annotations

from gui_gym.suites.android.device import Device
from gui_gym.suites.android.device_files import MOVIES, PICTURES
from gui_gym.suites.android.tasks.base import AndroidWorldTask


class _Camera(AndroidWorldTask):
    app_names, complexity = ("camera",), 1
    folder: str

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_directory(PICTURES)
        device.clear_directory(MOVIES)
        self.before = set(device.names_in(self.folder))

    def is_successful(self, device: Device) -> float:
        return float(len(set(device.names_in(self.folder)) - self.before) == 1)

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_directory(PICTURES)
        device.clear_directory(MOVIES)


class CameraTakePhoto(_Camera):
    name, template, folder = "CameraTakePhoto", "Take one photo.", PICTURES


class CameraTakeVideo(_Camera):
    name, template, folder = "CameraTakeVideo", "Take one video.", MOVIES


TASKS = (CameraTakePhoto, CameraTakeVideo)
