"""Simple Gallery Pro and Simple Draw Pro tasks (AndroidWorld's ``simple_gallery_pro.py`` and
``simple_draw_pro.py``), read from the file system.

SaveCopyOfReceiptTaskEval: a receipt picture in DCIM must be copied, same name, to Download.
SimpleDrawProCreateDrawing: a drawing of the given name must be in Pictures.
"""

from __future__ import annotations

import random
from typing import Any

from gui_gym.suites.android import generation, media
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.device_files import DOWNLOAD, GALLERY, STORAGE
from gui_gym.suites.android.tasks.base import AndroidWorldTask
from gui_gym.suites.android.tasks.markor import random_receipt, receipt_lines

DRAWING_WORDS = ("lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit")


class SaveCopyOfReceiptTaskEval(AndroidWorldTask):
    name, complexity, app_names = "SaveCopyOfReceiptTaskEval", 1.6, ("simple gallery pro",)
    template = "In Simple Gallery Pro, copy {file_name} in DCIM and save a copy with the same name in Download"

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"receipt": random_receipt(rng, 1), "file_name": f"receipt_{generation.random_file_name(rng)}.jpg"}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        picture = media.text_image("\n".join(receipt_lines(self.params["receipt"])), font_size=18)
        device.write_file(f"{GALLERY}/{self.params['file_name']}", picture, world_writable=True)

    def is_successful(self, device: Device) -> float:
        return float(device.exists_in(DOWNLOAD, self.params["file_name"]))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


class SimpleDrawProCreateDrawing(AndroidWorldTask):
    name, complexity, app_names = "SimpleDrawProCreateDrawing", 1.8, ("simple draw pro",)
    template = ("Create a new drawing in Simple Draw Pro. Name it {file_name}. Save it in the Pictures folder within the "
                "sdk_gphone_x86_64 storage area.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        name = f"{rng.choice(DRAWING_WORDS)}_{generation.random_file_name(rng)}{rng.choice(('.png', '.svg', '.jpg'))}"
        return {"file_name": name, "text": ""}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()

    def is_successful(self, device: Device) -> float:
        return float(device.exists_in(f"{STORAGE}/Pictures", self.params["file_name"]))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


TASKS = (SaveCopyOfReceiptTaskEval, SimpleDrawProCreateDrawing)
