"""LocalWeb reset and step times: every template's oracle run once (seed 0), per app.

Reset = new browser context + the world rebuilt from the seed + the start page loaded and
settled; step = action + settle + screenshot through ``env.step``.

    python -m benchmarks.perf_localweb [--seeds 1]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the ids)


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args(argv)
    env = gym.make("GUI/LocalWeb-v0")
    resets: dict[str, list[float]] = defaultdict(list)
    steps: dict[str, list[float]] = defaultdict(list)
    solved = total = 0
    try:
        unwrapped = env.unwrapped
        env.reset(seed=0)  # launch the browser outside the measurement
        for task_id in unwrapped.task_ids:
            app = unwrapped.suite.describe(task_id)["app"]
            for seed in range(args.seeds):
                started = time.perf_counter()
                env.reset(seed=seed, options={"task_id": task_id})
                resets[app].append(time.perf_counter() - started)
                while True:
                    _, _, terminated, truncated, info = env.step(unwrapped.oracle_action())
                    steps[app].append(info["step_time_s"])
                    if terminated or truncated:
                        break
                solved += bool(info["success"])
                total += 1
    finally:
        env.close()
    table = {app: {"reset_ms": statistics.median(resets[app]) * 1000,
                   "step_ms": statistics.median(steps[app]) * 1000,
                   "step_p90_ms": sorted(steps[app])[int(0.9 * (len(steps[app]) - 1))] * 1000,
                   "steps": len(steps[app])} for app in resets}
    print(f"{'app':<10} {'reset ms':>9} {'step ms':>8} {'p90 ms':>7} {'steps':>6}")
    for app, row in table.items():
        print(f"{app:<10} {row['reset_ms']:>9.0f} {row['step_ms']:>8.0f} {row['step_p90_ms']:>7.0f} {row['steps']:>6}")
    all_resets = [t for times in resets.values() for t in times]
    all_steps = [t for times in steps.values() for t in times]
    print(f"{'all':<10} {statistics.median(all_resets) * 1000:>9.0f} {statistics.median(all_steps) * 1000:>8.0f}"
          f" {'':>7} {len(all_steps):>6}   oracle solved {solved}/{total}")
    return table


if __name__ == "__main__":
    main()
