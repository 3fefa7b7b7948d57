"""LocalWeb reset and step times and oracle throughput: every template's oracle run once per
seed, per app, in three settings side by side in one process (each task runs in each setting
in turn, so machine noise hits them alike):

- ``strict``: a fresh browser context per episode (``strict_isolation=True``), screenshots;
- ``warm``: the context reused and cleared (the default), screenshots;
- ``text``: warm, text-only observations (``observe_screenshot=False``, the a11y tree).

Reset = the browser cleared (or a new context) + the world rebuilt from the seed + the start
page loaded and settled; step = action + settle + observation through ``env.step``.
Throughput is oracle steps per second of episode time (resets included) of one env, which
keeps about one core busy (its share of the browser included).

    python -m gui_gym.benchmarks.perf.localweb [--seeds 1] [--apps shop wiki]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the ids)

SETTINGS = {"strict": {"strict_isolation": True}, "warm": {},
            "text": {"observe_screenshot": False, "observe_a11y": True}}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--apps", nargs="*", help="only these apps (default: all)")
    args = parser.parse_args(argv)
    envs = {name: gym.make("GUI/LocalWeb-v0", apps=args.apps, **kwargs) for name, kwargs in SETTINGS.items()}
    resets: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in envs}
    steps: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in envs}
    busy = dict.fromkeys(envs, 0.0)
    solved = dict.fromkeys(envs, 0)
    total = 0
    try:
        first = envs["warm"].unwrapped
        for env in envs.values():
            env.reset(seed=0)  # launch the browsers outside the measurement
        for task_id in first.task_ids:
            app = first.suite.describe(task_id)["app"]
            for seed in range(args.seeds):
                total += 1
                for name, env in envs.items():
                    started = time.perf_counter()
                    env.reset(seed=seed, options={"task_id": task_id})
                    resets[name][app].append(time.perf_counter() - started)
                    while True:
                        _, _, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
                        steps[name][app].append(info["step_time_s"])
                        if terminated or truncated:
                            break
                    busy[name] += time.perf_counter() - started
                    solved[name] += bool(info["success"])
    finally:
        for env in envs.values():
            env.close()
    table = {}
    print(f"{'app':<10} " + " ".join(f"{name + ' reset':>12} {name + ' step':>11}" for name in envs) + "  (ms, medians)")
    for app in resets["warm"]:
        row = {f"{name}_{kind}_ms": statistics.median(times[name][app]) * 1000
               for name in envs for kind, times in (("reset", resets), ("step", steps))}
        table[app] = row
        print(f"{app:<10} " + " ".join(f"{row[f'{n}_reset_ms']:>12.0f} {row[f'{n}_step_ms']:>11.0f}" for n in envs))
    summary = {}
    for name in envs:
        all_resets = [t for times in resets[name].values() for t in times]
        all_steps = [t for times in steps[name].values() for t in times]
        summary[name] = {"reset_ms": statistics.median(all_resets) * 1000, "step_ms": statistics.median(all_steps) * 1000,
                         "steps_per_s": len(all_steps) / busy[name], "solved": solved[name]}
    table["all"] = {f"{n}_{k}": v for n, figures in summary.items() for k, v in figures.items()}
    base = summary["strict"]
    for name, figures in summary.items():
        print(f"{name:<7} reset {figures['reset_ms']:>5.0f} ms ({figures['reset_ms'] / base['reset_ms']:.2f}x strict)  "
              f"step {figures['step_ms']:>5.0f} ms  {figures['steps_per_s']:.2f} oracle steps/s "
              f"({figures['steps_per_s'] / base['steps_per_s']:.2f}x strict)  solved {figures['solved']}/{total}")
    return table


if __name__ == "__main__":
    main()
