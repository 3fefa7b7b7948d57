"""``GUI/CUBE-v0``: any installed CUBE benchmark as a Gymnasium env (the `CubeSuite` on the
`CubeBackend`).

    env = gym.make("GUI/CUBE-v0", benchmark="arithmetic-cube", observe_screenshot=False)

``benchmark`` is a ``cube.benchmarks`` entry-point name (what ``cube list`` shows), a
``"module:Class"`` path, a module holding one ``BenchmarkConfig`` subclass, or a
``BenchmarkConfig`` class or instance. Needs the cube extra (cube-standard, Python >= 3.12).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
from typing import Any

from gui_gym.errors import TaskConfigError
from gui_gym.extras import require_extra

ENTRY_POINTS = "cube.benchmarks"


def make_env(benchmark: Any = None, **kwargs: Any):
    """Entry point of ``GUI/CUBE-v0``: `benchmark` (see the module docstring), then `GUIEnv`
    kwargs. With ``action_format="function_call"`` an agent writes the benchmark's own calls
    (``{"name": "submit_answer", "arguments": {"answer": 7}}``). A text-only benchmark (no
    image in its observations) is best made with ``observe_screenshot=False``; its texts are
    ``obs["text"]``."""
    require_extra("cube", "GUI/CUBE-v0")
    if benchmark is None:
        raise TaskConfigError("GUI/CUBE-v0 needs benchmark=: a cube.benchmarks entry point (cube list), a module or "
                              "a BenchmarkConfig")
    from gui_gym.backends.cube import CubeBackend, OpenFunctions
    from gui_gym.env import GUIEnv
    from gui_gym.suites.cube import CubeSuite

    backend = CubeBackend()
    if kwargs.get("action_format") == "function_call":
        kwargs["format_context"] = {"functions": OpenFunctions(backend), **(kwargs.get("format_context") or {})}
    return GUIEnv(backend, CubeSuite(benchmark_config(benchmark)), **kwargs)


def benchmark_config(benchmark: Any) -> Any:
    """The ``BenchmarkConfig`` instance `benchmark` names (see the module docstring)."""
    from cube.benchmark import BenchmarkConfig

    found = benchmark
    if isinstance(benchmark, str):
        entry_points = {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINTS)}
        if benchmark in entry_points:
            found = entry_points[benchmark].load()
        else:
            module_name, _, attribute = benchmark.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                raise TaskConfigError(f"no CUBE benchmark {benchmark!r}: not an entry point of {ENTRY_POINTS} "
                                      f"(installed: {sorted(entry_points)}) nor an importable module ({exc})") from None
            found = getattr(module, attribute) if attribute else _only_config(module, BenchmarkConfig)
    if isinstance(found, type) and issubclass(found, BenchmarkConfig):
        found = found()
    if not isinstance(found, BenchmarkConfig):
        raise TaskConfigError(f"benchmark must name a CUBE BenchmarkConfig, received {benchmark!r}")
    return found


def _only_config(module: Any, base: type) -> type:
    classes = [value for value in vars(module).values() if inspect.isclass(value) and issubclass(value, base)
               and value.__module__ == module.__name__ and not inspect.isabstract(value)]
    if len(classes) != 1:
        raise TaskConfigError(f"module {module.__name__} defines {len(classes)} BenchmarkConfig classes; "
                              "name one as 'module:Class'")
    return classes[0]
