"""MiniWoB++ (``GUI/MiniWoB-v0``) as a CUBE benchmark: entry point ``gui-gym-miniwob``."""

from __future__ import annotations

from typing import ClassVar

from cube.benchmark import Benchmark, BenchmarkConfig, BenchmarkMetadata
from cube.task import TaskConfig, TaskMetadata

from gui_gym.cube.task import Family, GUIBenchmark, GUITaskConfig
from gui_gym.cube.tool import BROWSER_KINDS

FAMILY = Family(
    name="gui-gym-miniwob",
    description="MiniWoB++'s 128 tasks: the miniwob package's own pages and reward functions in Chromium on loopback",
    env_ids=("GUI/MiniWoB-v0",), kinds=BROWSER_KINDS, env_kwargs={},
    tags=("web", "miniwob", "offline"), requirements={"chromium": True, "extra": "miniwob"})


class MiniWoBTaskConfig(GUITaskConfig):
    family: ClassVar[Family] = FAMILY


class MiniWoBBenchmarkConfig(BenchmarkConfig):
    task_metadata: ClassVar[dict[str, TaskMetadata]] = FAMILY.task_metadata()
    benchmark_metadata: ClassVar[BenchmarkMetadata] = FAMILY.benchmark_metadata(len(task_metadata))
    task_config_class: ClassVar[type[TaskConfig]] = MiniWoBTaskConfig
    benchmark_class: ClassVar[type[Benchmark]] = GUIBenchmark
