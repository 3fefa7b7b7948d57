"""A virtual phone ready for AndroidWorld's tasks: adb server, emulator console, backend.

``with fake_phone() as phone:`` gives `phone.device` (the VirtualDevice, whose state tests
read and write directly), `phone.backend` (gui-gym's AndroidBackend over the real adbutils
client), `phone.console` (the emulator console, whose auth token is in a temporary
``$HOME/.emulator_console_auth_token``) and `run_task` / `check` to drive a task's set-up and
success check the way the env does.
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from gui_gym.actions import Action
from gui_gym.backends.android.backend import AndroidBackend, AndroidConfig
from gui_gym.suites.android.tasks import TASKS
from gui_gym.suites.android.tasks.base import AndroidWorldTask
from gui_gym.suites.base import Episode

from .adb_server import FakeAdbServer
from .emulator_console import ConsoleServer, serial_for
from .virtual_device import VirtualDevice

TOKEN = "fake-console-token"


@dataclass
class Phone:
    server: FakeAdbServer
    device: VirtualDevice
    console: ConsoleServer
    backend: AndroidBackend

    def task(self, task_id: str, seed: int = 0) -> AndroidWorldTask:
        """The task set up on the phone, as `reset` does it."""
        task = TASKS[task_id].from_seed(seed)
        task.setup(self.backend)
        return task

    def score(self, task: AndroidWorldTask, answer: str | None = None) -> float:
        """The task's score now, as the episode's end computes it (with the agent's answer)."""
        actions = [Action.answer(answer)] if answer is not None else [Action.done()]
        return task.evaluate(self.backend, Episode(task.task_id, 0, actions))


@contextmanager
def fake_phone() -> Iterator[Phone]:
    with tempfile.TemporaryDirectory(prefix="gui-gym-phone-") as home, pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", home)
        Path(home, ".emulator_console_auth_token").write_text(TOKEN)
        device = VirtualDevice()
        console = ConsoleServer(device, TOKEN, Path(home) / "snapshots").start()
        device.serial = serial_for(console)
        try:
            with FakeAdbServer([device]) as server:
                backend = AndroidBackend(AndroidConfig(adb_port=server.port, serial=device.serial, settle_timeout_s=1.0))
                backend.start()
                try:
                    yield Phone(server, device, console, backend)
                finally:
                    backend.close()
        finally:
            console.stop()
