"""``cube test gui-gym-localweb``: the debug tasks, each played by its own oracle replayed through CUBE
(`gui_gym.cube.debug`)."""

from __future__ import annotations

from gui_gym.cube.debug import debug_module
from gui_gym.cube.localweb.benchmark import LocalWebBenchmarkConfig

DEBUG_TASKS = ["shop.add-to-cart"]

get_debug_benchmark, make_debug_agent = debug_module(LocalWebBenchmarkConfig, DEBUG_TASKS)
