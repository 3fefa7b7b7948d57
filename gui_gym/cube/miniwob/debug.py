"""``cube test gui-gym-miniwob``: the debug tasks, each played by its own oracle replayed through CUBE
(`gui_gym.cube.debug`)."""

from __future__ import annotations

from gui_gym.cube.debug import debug_module
from gui_gym.cube.miniwob.benchmark import MiniWoBBenchmarkConfig

DEBUG_TASKS = ["enter-text"]

get_debug_benchmark, make_debug_agent = debug_module(MiniWoBBenchmarkConfig, DEBUG_TASKS)
