"""``cube test gui-gym-mmbench``: the debug tasks, each played by its own oracle replayed through CUBE
(`gui_gym.cube.debug`)."""

from __future__ import annotations

from gui_gym.cube.debug import debug_module
from gui_gym.cube.mmbench.benchmark import MMBenchBenchmarkConfig

DEBUG_TASKS = ["mmbench-l1.0.easy", "mmbench-l2.0"]

get_debug_benchmark, make_debug_agent = debug_module(MMBenchBenchmarkConfig, DEBUG_TASKS)
