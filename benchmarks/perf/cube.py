"""Reset and step times through CUBE against the native env, one process, one run: each task's
oracle is played natively once, then its actions replayed, in turn, on

- ``native``: the env of the id, made once, reset per episode (warm), ``env.step``;
- ``cube``: the exported CUBE task (``gui_gym.cube``), made per episode (CUBE's lifetime: a
  task brings its env), ``task.reset()``, ``task.step(call)``;
- ``consume``: the exported benchmark through ``GUI/CUBE-v0`` (export then consume), made once.

Reset is timed from the call to the first observation (for ``cube`` with the task's make);
step is one action to its observation. Needs CUBE (Python >= 3.12).

    python -m gui_gym.benchmarks.perf.cube [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
from cube.core import Action as CubeAction

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym.action_formats import function_call
from gui_gym.cube.debug import play_oracle
from gui_gym.cube.demo.benchmark import DemoBenchmarkConfig
from gui_gym.cube.mmbench.benchmark import MMBenchBenchmarkConfig

CASES = {
    "demo.fill-form": (DemoBenchmarkConfig, "gui-gym-demo"),
    "mmbench-l2.0": (MMBenchBenchmarkConfig, "gui-gym-mmbench"),
}
"""A browser task of ten steps and a one-step screenshot task."""


def _native(env, task_id, actions, times):
    started = time.perf_counter()
    env.reset(options={"task_id": task_id, "instance_seed": 0})
    times["reset"].append(time.perf_counter() - started)
    for action in actions:
        started = time.perf_counter()
        env.step(action)
        times["step"].append(time.perf_counter() - started)


def _cube(config, task_id, actions, times):
    config = config.subset_from_list([task_id])
    benchmark = config.make()
    started = time.perf_counter()
    task = benchmark.spawn(next(config.get_task_configs()))
    task.reset()
    times["reset"].append(time.perf_counter() - started)
    try:
        for action in actions:
            call = CubeAction(**function_call.format(action))
            started = time.perf_counter()
            task.step(call)
            times["step"].append(time.perf_counter() - started)
    finally:
        task.close()
        benchmark.close()


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    results = {}
    for task_id, (config_class, name) in CASES.items():
        metadata = config_class.task_metadata[task_id]
        family = config_class.task_config_class.family
        actions, reward = play_oracle(metadata.env_id, family.env_kwargs, task_id, 0)
        assert reward == 1.0, f"the oracle of {task_id} scored {reward}"
        native = gym.make(metadata.env_id, **family.env_kwargs)
        consumed = gym.make("GUI/CUBE-v0", benchmark=name)
        times = {setting: {"reset": [], "step": []} for setting in ("native", "cube", "consume")}
        try:
            for _ in range(args.rounds):
                _native(native, task_id, actions, times["native"])
                _cube(config_class(), task_id, actions, times["cube"])
                _native(consumed, task_id, actions, times["consume"])
        finally:
            native.close()
            consumed.close()
        medians = {setting: {what: statistics.median(values) for what, values in kinds.items()}
                   for setting, kinds in times.items()}
        results[task_id] = medians
        base = medians["native"]
        print(f"{task_id}: {len(actions)} steps x {args.rounds} rounds (medians)")
        for setting, value in medians.items():
            print(f"  {setting:<8} reset {value['reset'] * 1000:8.1f} ms ({value['reset'] / base['reset']:5.2f}x)"
                  f"   step {value['step'] * 1000:7.1f} ms ({value['step'] / base['step']:5.2f}x)")
    return results


if __name__ == "__main__":
    main()
