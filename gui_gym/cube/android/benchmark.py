"""AndroidWorld's tasks on a phone or emulator (``GUI/Android-v0``) as a CUBE benchmark:
entry point ``gui-gym-android``.

The device is the benchmark config's: ``AndroidBenchmarkConfig(serial=..., adb_host=...,
adb_port=...)``, each left out falling back as ``GUI/Android-v0``'s do ($ANDROID_SERIAL, else
the only device attached; $ANDROID_ADB_SERVER_HOST/PORT, else 127.0.0.1:5037), read where the
task runs. Nothing contacts it before a task is reset: ``cube list`` and the task metadata
need no device. The phone is shared by the tasks (``reset_isolation`` APP_LEVEL; one task at a
time per device in a process, see `gui_gym.cube.task`); give each worker process its own.
Observations carry the element list (``observe_a11y=True``), the text AndroidWorld's agents
read, whose indices ``click(element=...)`` takes.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import ClassVar

from cube.benchmark import Benchmark, BenchmarkConfig, BenchmarkMetadata
from cube.task import TaskConfig, TaskMetadata
from pydantic import Field

from gui_gym.cube.task import Family, GUIBenchmark, GUITaskConfig
from gui_gym.cube.tool import MOBILE_KINDS, GUIToolConfig
from gui_gym.suites.android import AndroidWorldSuite

FAMILY = Family(
    name="gui-gym-android",
    description="AndroidWorld's tasks on a phone or emulator over adb (the device the benchmark config names), scored from device state as AndroidWorld scores them",
    env_ids=("GUI/Android-v0",), kinds=MOBILE_KINDS, env_kwargs={"observe_a11y": True},
    tags=("android", "mobile"), shared_device=True, suite=AndroidWorldSuite,
    requirements={"extra": "android",
                  "device": "an emulator or phone on an adb server with AndroidWorld's apps (docs/android.md)"})
DEVICE_FIELDS = ("serial", "adb_host", "adb_port")


class AndroidTaskConfig(GUITaskConfig):
    family: ClassVar[Family] = FAMILY


class AndroidBenchmarkConfig(BenchmarkConfig):
    task_metadata: ClassVar[dict[str, TaskMetadata]] = FAMILY.task_metadata()
    benchmark_metadata: ClassVar[BenchmarkMetadata] = FAMILY.benchmark_metadata(len(task_metadata))
    task_config_class: ClassVar[type[TaskConfig]] = AndroidTaskConfig
    benchmark_class: ClassVar[type[Benchmark]] = GUIBenchmark

    serial: str | None = Field(
        default=None, description="The device as `adb devices` names it; None: $ANDROID_SERIAL, else the only one attached")
    adb_host: str | None = Field(
        default=None, description="The adb server's host; None: $ANDROID_ADB_SERVER_HOST, else 127.0.0.1")
    adb_port: int | None = Field(
        default=None, description="The adb server's port; None: $ANDROID_ADB_SERVER_PORT, else 5037")

    def get_task_configs(self) -> Generator[TaskConfig, None, None]:
        """CUBE's task configs, each tool's env made on this config's device."""
        device = {name: getattr(self, name) for name in DEVICE_FIELDS if getattr(self, name) is not None}
        for config in super().get_task_configs():
            tool = config.tool_config or FAMILY.tool_config(config.metadata.env_id)
            if not isinstance(tool, GUIToolConfig):
                raise TypeError(f"{self.name} plays its tasks with a GUIToolConfig, received {type(tool).__name__}")
            on_device = tool.model_copy(update={"env_kwargs": {**tool.env_kwargs, **device}})
            yield config.model_copy(update={"tool_config": on_device})
