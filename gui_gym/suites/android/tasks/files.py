"""File manager tasks (AndroidWorld's ``single/files.py`` over its ``file_validators``).

Set-up empties shared storage (every file under /storage/emulated/0, and the media store's
downloads), then creates the task's file and 1 to 20 noise files named like its neighbours.
Success is read from the file system: the file gone (delete), or gone from the source and
present in the destination (move).
"""

from __future__ import annotations

import os
import random
import posixpath
from typing import Any

from gui_gym.suites.android import generation
from gui_gym.suites.android.device import STORAGE, Device
from gui_gym.suites.android.tasks.base import AndroidWorldTask


def create_noise_files(device: Device, rng: random.Random, base: str, folder: str, variants, n: int = 20) -> None:
    """1 to `n` files with random text, named as variants of `variants` (and of `base`)."""
    for name in generation.noise_file_names(rng, base, tuple(variants), n):
        device.create_text_file(folder, name, generation.random_string(rng, 20))


class FilesDeleteFile(AndroidWorldTask):
    """The file must be gone from its folder."""

    name, complexity, app_names = "FilesDeleteFile", 2.2, ("files",)
    template = ("Delete the file {file_name} from the Android filesystem located in the {subfolder} folder within the "
                "sdk_gphone_x86_64 storage area.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        subfolder = rng.choice(list(generation.DIRECTORIES))
        candidates = generation.DIRECTORIES[subfolder]
        file_name = generation.random_file_name(rng) + os.path.splitext(candidates[0])[1]
        return {"file_name": file_name, "subfolder": subfolder, "noise_candidates": list(candidates)}

    @property
    def folder(self) -> str:
        return posixpath.join(STORAGE, self.params["subfolder"])

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        device.create_text_file(self.folder, self.params["file_name"], generation.random_string(self.rng, 20))
        create_noise_files(device, self.rng, self.params["file_name"], self.folder, self.params["noise_candidates"])

    def is_successful(self, device: Device) -> float:
        return float(not device.exists_in(self.folder, self.params["file_name"]))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


class FilesMoveFile(AndroidWorldTask):
    """The file must have left the source folder for the destination folder."""

    name, complexity, app_names = "FilesMoveFile", 2, ("files",)
    template = ("Move the file {file_name} from {source_folder} within the sdk_gphone_x86_64 storage area to the "
                "{destination_folder} within the same sdk_gphone_x86_64 storage area in the Android filesystem.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        source = rng.choice(list(generation.DIRECTORIES))
        destination = rng.choice([f for f in generation.DIRECTORIES if f != source])
        return {"file_name": rng.choice(generation.DIRECTORIES[destination]), "source_folder": source,
                "destination_folder": destination, "noise_candidates": list(generation.DIRECTORIES[source])}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        move_file_setup(device, self.rng, STORAGE, self.params)

    def is_successful(self, device: Device) -> float:
        return move_file_check(device, STORAGE, self.params)

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


def move_file_setup(device: Device, rng: random.Random, root: str, params: dict[str, Any]) -> None:
    """Shared storage emptied; noise files and the file in the source folder; the destination made."""
    source, destination = (posixpath.join(root, params[k]) for k in ("source_folder", "destination_folder"))
    device.clear_device_storage()
    create_noise_files(device, rng, params["file_name"], source, params["noise_candidates"])
    device.create_text_file(source, params["file_name"], generation.random_string(rng, 20))
    device.make_dirs(destination)


def move_file_check(device: Device, root: str, params: dict[str, Any]) -> float:
    source, destination = (posixpath.join(root, params[k]) for k in ("source_folder", "destination_folder"))
    return float(not device.exists_in(source, params["file_name"]) and device.exists_in(destination, params["file_name"]))


TASKS = (FilesDeleteFile, FilesMoveFile)
