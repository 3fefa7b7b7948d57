"""``cube test gui-gym-demo``: the debug tasks, each played by its own oracle replayed through CUBE
(`gui_gym.cube.debug`)."""

from __future__ import annotations

from gui_gym.cube.debug import debug_module
from gui_gym.cube.demo.benchmark import DemoBenchmarkConfig

DEBUG_TASKS = ["demo.fill-form", "demo.read-code"]

get_debug_benchmark, make_debug_agent = debug_module(DemoBenchmarkConfig, DEBUG_TASKS)
