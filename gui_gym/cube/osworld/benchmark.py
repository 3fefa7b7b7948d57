"""OSWorld on the local desktop (``GUI/OSWorld-v0``, ``provider="local"``, the bundled sample) as a CUBE benchmark: entry point ``gui-gym-osworld``."""

from __future__ import annotations

from typing import ClassVar

from cube.benchmark import Benchmark, BenchmarkConfig, BenchmarkMetadata
from cube.task import TaskConfig, TaskMetadata

from gui_gym.cube.task import Family, GUIBenchmark, GUITaskConfig
from gui_gym.cube.tool import DESKTOP_KINDS

FAMILY = Family(
    name="gui-gym-osworld",
    description="OSWorld's task format on a local sandboxed Xvfb desktop: the sample tasks bundled with gui-gym (terminal, text editor, LibreOffice Calc and Writer)",
    env_ids=("GUI/OSWorld-v0",), kinds=DESKTOP_KINDS, env_kwargs={"provider": "local", "tasks": "sample"},
    tags=("desktop", "osworld", "offline"), requirements={"extra": "desktop", "debian_packages": "xvfb, a window manager, LibreOffice (scripts/setup.sh)"})


class OSWorldTaskConfig(GUITaskConfig):
    family: ClassVar[Family] = FAMILY


class OSWorldBenchmarkConfig(BenchmarkConfig):
    task_metadata: ClassVar[dict[str, TaskMetadata]] = FAMILY.task_metadata()
    benchmark_metadata: ClassVar[BenchmarkMetadata] = FAMILY.benchmark_metadata(len(task_metadata))
    task_config_class: ClassVar[type[TaskConfig]] = OSWorldTaskConfig
    benchmark_class: ClassVar[type[Benchmark]] = GUIBenchmark
