"""The MMBench-GUI sample (``GUI/MMBench-GUI-L1-v0`` and ``-L2-v0``, ``data_root="sample"``) as a CUBE benchmark: entry point ``gui-gym-mmbench``."""

from __future__ import annotations

from typing import ClassVar

from cube.benchmark import Benchmark, BenchmarkConfig, BenchmarkMetadata
from cube.task import TaskConfig, TaskMetadata

from gui_gym.cube.task import Family, GUIBenchmark, GUITaskConfig

FAMILY = Family(
    name="gui-gym-mmbench",
    description="The MMBench-GUI sample bundled with gui-gym: L1 content questions (answer a letter) and L2 element grounding (click the element), one step each",
    env_ids=("GUI/MMBench-GUI-L1-v0", "GUI/MMBench-GUI-L2-v0"), kinds=("click", "answer", "done", "fail"), env_kwargs={"data_root": "sample"},
    tags=("grounding", "screenshots", "offline"), requirements={})


class MMBenchTaskConfig(GUITaskConfig):
    family: ClassVar[Family] = FAMILY


class MMBenchBenchmarkConfig(BenchmarkConfig):
    task_metadata: ClassVar[dict[str, TaskMetadata]] = FAMILY.task_metadata()
    benchmark_metadata: ClassVar[BenchmarkMetadata] = FAMILY.benchmark_metadata(len(task_metadata))
    task_config_class: ClassVar[type[TaskConfig]] = MMBenchTaskConfig
    benchmark_class: ClassVar[type[Benchmark]] = GUIBenchmark
