"""The demo suite (``GUI/Demo-v0``) as a CUBE benchmark: entry point ``gui-gym-demo``."""

from __future__ import annotations

from typing import ClassVar

from cube.benchmark import Benchmark, BenchmarkConfig, BenchmarkMetadata
from cube.task import TaskConfig, TaskMetadata

from gui_gym.cube.task import Family, GUIBenchmark, GUITaskConfig
from gui_gym.cube.tool import BROWSER_KINDS

FAMILY = Family(
    name="gui-gym-demo",
    description="gui-gym's three demo pages in Chromium on loopback: press a button, fill a form, read a code",
    env_ids=("GUI/Demo-v0",), kinds=BROWSER_KINDS, env_kwargs={},
    tags=("web", "demo", "offline"), requirements={"chromium": True})


class DemoTaskConfig(GUITaskConfig):
    family: ClassVar[Family] = FAMILY


class DemoBenchmarkConfig(BenchmarkConfig):
    task_metadata: ClassVar[dict[str, TaskMetadata]] = FAMILY.task_metadata()
    benchmark_metadata: ClassVar[BenchmarkMetadata] = FAMILY.benchmark_metadata(len(task_metadata))
    task_config_class: ClassVar[type[TaskConfig]] = DemoTaskConfig
    benchmark_class: ClassVar[type[Benchmark]] = GUIBenchmark
