"""What a browser env's isolation costs (the request and WebSocket routes, the closed-port
proxy, the server token, the document check before each observation): the same 50 steps and
10 resets on GUI/Demo-v0 as it ships (its own server only) and with ``allowed_hosts=None``
(none of that but the scheme rule), in one process, alternating rounds. Prints the ratios of
the medians.

    python -m gui_gym.benchmarks.perf.isolation [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym.benchmarks.perf.browser import workload

TASK = {"task_id": "demo.fill-form"}


def _round(env, actions) -> tuple[float, float]:
    started = time.perf_counter()
    for seed in range(10):
        env.reset(seed=seed, options=TASK)
    reset_s = (time.perf_counter() - started) / 10
    started = time.perf_counter()
    for action in actions:
        env.step(action)
    return reset_s, (time.perf_counter() - started) / len(actions)


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    envs = {"isolated": gym.make("GUI/Demo-v0", max_steps=10_000),
            "open": gym.make("GUI/Demo-v0", max_steps=10_000, allowed_hosts=None)}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
    try:
        for env in envs.values():
            env.reset(seed=0, options=TASK)
        bx, by, bw, bh = envs["isolated"].unwrapped.backend.locate("#name")
        actions = workload((bx + bw / 2, by + bh / 2))
        for _ in range(args.rounds):
            for name, env in envs.items():
                times[name].append(_round(env, actions))
    finally:
        for env in envs.values():
            env.close()
    med = {name: [statistics.median(t[i] for t in rows) for i in (0, 1)] for name, rows in times.items()}
    figures = {"reset_ratio": med["isolated"][0] / med["open"][0], "step_ratio": med["isolated"][1] / med["open"][1]}
    print(f"{len(actions)} steps and 10 resets x {args.rounds} rounds (medians)")
    for name, (reset_s, step_s) in med.items():
        print(f"  {name:8} reset {reset_s * 1000:6.0f} ms   step {step_s * 1000:6.1f} ms")
    print(f"  isolated / open: reset {figures['reset_ratio']:.3f}   step {figures['step_ratio']:.3f}")
    return figures


if __name__ == "__main__":
    main()
