"""``cube test gui-gym-osworld``: the debug tasks, each played by its own oracle replayed through CUBE
(`gui_gym.cube.debug`)."""

from __future__ import annotations

from gui_gym.cube.debug import debug_module
from gui_gym.cube.osworld.benchmark import OSWorldBenchmarkConfig

DEBUG_TASKS = ["sample-os-write-greeting"]

get_debug_benchmark, make_debug_agent = debug_module(OSWorldBenchmarkConfig, DEBUG_TASKS)
