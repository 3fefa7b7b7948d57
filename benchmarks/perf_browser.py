"""Browser env overhead: the same 50 actions on the same page, measured in one process as
(a) raw Playwright calls (action + screenshot) and (b) our ``env.step`` (parse, action,
readiness settle, screenshot as a numpy array, info). Prints b/a and the reset time.

Rounds alternate a and b so machine noise hits both alike; the ratio of medians is reported.

    python -m benchmarks.perf_browser [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym import Action
from gui_gym.backends.browser import playwright_key


def workload(name_box: tuple[float, float]) -> list[Action]:
    """50 actions: clicks, typing, keys and scrolls on the demo form page."""
    x, y = name_box
    actions: list[Action] = []
    for i in range(10):
        actions += [Action.click(x, y), Action.type(f"name {i}"), Action.hotkey("ctrl", "a"),
                    Action.key("backspace"), Action.click(600 + i * 10, 500)]
    return actions


def raw_step(page, action: Action) -> bytes:
    """What a hand-written Playwright loop does per step."""
    if action.kind == "click":
        page.mouse.click(action.x, action.y)
    elif action.kind == "type":
        page.keyboard.type(action.text)
    elif action.kind in ("key", "hotkey"):
        page.keyboard.press("+".join(playwright_key(k) for k in action.keys))
    return page.screenshot()


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    env = gym.make("GUI/Demo-v0", max_steps=10_000)
    try:
        env.reset(seed=0, options={"task_id": "demo.fill-form"})
        backend = env.unwrapped.backend
        bx, by, bw, bh = backend.locate("#name")
        actions = workload((bx + bw / 2, by + bh / 2))
        raw_times, env_times = [], []
        for _ in range(args.rounds):
            env.reset(seed=0, options={"task_id": "demo.fill-form"})
            page = backend.page
            started = time.perf_counter()
            for action in actions:
                raw_step(page, action)
            raw_times.append(time.perf_counter() - started)

            env.reset(seed=0, options={"task_id": "demo.fill-form"})
            started = time.perf_counter()
            for action in actions:
                env.step(action)
            env_times.append(time.perf_counter() - started)

        reset_times = []
        for seed in range(10):
            started = time.perf_counter()
            env.reset(seed=seed, options={"task_id": "demo.fill-form"})
            reset_times.append(time.perf_counter() - started)
    finally:
        env.close()

    raw, ours = statistics.median(raw_times), statistics.median(env_times)
    figures = {"raw_ms_per_step": raw / len(actions) * 1000, "env_ms_per_step": ours / len(actions) * 1000,
               "ratio": ours / raw, "reset_s": statistics.median(reset_times)}
    print(f"{len(actions)} actions x {args.rounds} rounds (medians)")
    print(f"  (a) raw Playwright action + screenshot: {figures['raw_ms_per_step']:.1f} ms/step")
    print(f"  (b) env.step:                          {figures['env_ms_per_step']:.1f} ms/step")
    print(f"  ratio b/a: {figures['ratio']:.3f}   (target <= 1.15)")
    print(f"  reset without relaunch: {figures['reset_s'] * 1000:.0f} ms   (target <= 500 ms)")
    return figures


if __name__ == "__main__":
    main()
