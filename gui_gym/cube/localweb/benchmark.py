"""LocalWeb (``GUI/LocalWeb-v0``) as a CUBE benchmark: entry point ``gui-gym-localweb``."""

from __future__ import annotations

from typing import ClassVar

from cube.benchmark import Benchmark, BenchmarkConfig, BenchmarkMetadata
from cube.task import TaskConfig, TaskMetadata

from gui_gym.cube.task import Family, GUIBenchmark, GUITaskConfig
from gui_gym.cube.tool import BROWSER_KINDS

FAMILY = Family(
    name="gui-gym-localweb",
    description="gui-gym's offline web suite: shop, mail, calendar, admin and wiki apps on loopback, parametric tasks of 2 to 25+ steps scored from server state",
    env_ids=("GUI/LocalWeb-v0",), kinds=BROWSER_KINDS, env_kwargs={},
    tags=("web", "offline"), requirements={"chromium": True})


class LocalWebTaskConfig(GUITaskConfig):
    family: ClassVar[Family] = FAMILY


class LocalWebBenchmarkConfig(BenchmarkConfig):
    task_metadata: ClassVar[dict[str, TaskMetadata]] = FAMILY.task_metadata()
    benchmark_metadata: ClassVar[BenchmarkMetadata] = FAMILY.benchmark_metadata(len(task_metadata))
    task_config_class: ClassVar[type[TaskConfig]] = LocalWebTaskConfig
    benchmark_class: ClassVar[type[Benchmark]] = GUIBenchmark
