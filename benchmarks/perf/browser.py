"""Browser env overhead: the same 50 actions on the same page, measured in one process as
(a) raw Playwright calls (action + screenshot), (b) our ``env.step`` (parse, action,
readiness settle, screenshot as a numpy array, info), (c) ``env.step`` with text-only
observations (``observe_screenshot=False``), and (d) BrowserGym's ``env.step`` at its fastest
settings when it is installed. Prints b/a, c, d/b, and resets: warm (the context reused and
cleared, the default) against ``strict_isolation`` (a fresh context each episode).

Rounds alternate the loops so machine noise hits them alike; the ratio of medians is reported.

    python -m gui_gym.benchmarks.perf.browser [--rounds 5]

BrowserGym pins an older Playwright; install it beside ours without its dependencies and it
runs on our Playwright driver and the Chromium our env launched:

    pip install --no-deps --target /tmp/bgym browsergym-core
    PYTHONPATH=/tmp/bgym python -m gui_gym.benchmarks.perf.browser
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym import Action
from gui_gym.backends.browser.backend import playwright_key

TASK = {"task_id": "demo.fill-form"}


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


def browsergym_code(action: Action) -> str:
    """The same action in BrowserGym's coordinate action set."""
    if action.kind == "click":
        return f"mouse_click({action.x}, {action.y})"
    if action.kind == "type":
        return f"keyboard_type({action.text!r})"
    return f"keyboard_press({'+'.join(playwright_key(k) for k in action.keys)!r})"


class _LaunchingWith:
    """`playwright` whose Chromium launches `executable` unless told otherwise: BrowserGym
    launches its browser and its chat window's from the global Playwright."""

    def __init__(self, target: Any, executable: str):
        self._target, self._executable = target, executable

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        return _LaunchingWith(value, self._executable) if name == "chromium" else value

    def launch(self, **kwargs: Any) -> Any:
        kwargs.setdefault("executable_path", self._executable)
        return self._target.launch(**kwargs)


def browsergym_env(url: str, cookie: dict[str, Any], viewport: tuple[int, int], playwright, executable: str):
    """BrowserGym's BrowserEnv on `url` at its fastest (no pre-observation delay), launched
    from our thread's Playwright (a thread runs one), or None when browsergym-core is not
    importable."""
    try:
        import browsergym.core
        from browsergym.core.action.highlevel import HighLevelActionSet
        from browsergym.core.env import BrowserEnv
        from browsergym.core.task import OpenEndedTask
    except ImportError:
        return None
    browsergym.core._set_global_playwright(_LaunchingWith(playwright, executable))
    actions = HighLevelActionSet(subsets=["coord"], strict=False, multiaction=False)
    return BrowserEnv(OpenEndedTask, task_kwargs={"start_url": url, "goal": "fill the form"},
                      viewport={"width": viewport[0], "height": viewport[1]}, pre_observation_delay=0.0,
                      action_mapping=actions.to_python_code,
                      pw_context_kwargs={"storage_state": {"cookies": [cookie], "origins": []}})


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    env = gym.make("GUI/Demo-v0", max_steps=10_000)
    text = gym.make("GUI/Demo-v0", max_steps=10_000, observe_screenshot=False)
    strict = gym.make("GUI/Demo-v0", max_steps=10_000, strict_isolation=True)
    bgym = None
    times: dict[str, list[float]] = {"raw": [], "env": [], "text": [], "browsergym": []}
    resets: dict[str, list[float]] = {"warm": [], "strict": [], "browsergym": []}
    try:
        for e in (env, text, strict):
            e.reset(seed=0, options=TASK)
        backend = env.unwrapped.backend
        bx, by, bw, bh = backend.locate("#name")
        actions = workload((bx + bw / 2, by + bh / 2))
        cookie = next(iter(backend._cookies), None)  # the demo server's token, for BrowserGym's browser
        bgym = cookie and browsergym_env(backend.start_url, {**{k: v for k, v in cookie.items() if k != "url"},
                                                             "domain": "127.0.0.1", "path": "/"},
                                         backend.config.viewport, backend._driver.playwright,
                                         os.readlink(f"/proc/{backend.browser_pid}/exe"))  # the same Chromium
        if bgym is not None:
            bgym.reset(seed=0)
        for _ in range(args.rounds):
            env.reset(seed=0, options=TASK)
            page = backend.page
            times["raw"].append(timed(lambda: [raw_step(page, a) for a in actions]))
            env.reset(seed=0, options=TASK)
            times["env"].append(timed(lambda: [env.step(a) for a in actions]))
            text.reset(seed=0, options=TASK)
            times["text"].append(timed(lambda: [text.step(a) for a in actions]))
            if bgym is not None:
                bgym.reset(seed=0)
                times["browsergym"].append(timed(lambda: [bgym.step(browsergym_code(a)) for a in actions]))
        for seed in range(10):
            resets["warm"].append(timed(lambda: env.reset(seed=seed, options=TASK)))
            resets["strict"].append(timed(lambda: strict.reset(seed=seed, options=TASK)))
            if bgym is not None:
                resets["browsergym"].append(timed(lambda: bgym.reset(seed=seed)))
    finally:
        for e in (bgym, env, text, strict):  # BrowserGym first: it runs on our driver
            if e is not None:
                e.close()

    per_step = {k: statistics.median(v) / len(actions) * 1000 for k, v in times.items() if v}
    reset_ms = {k: statistics.median(v) * 1000 for k, v in resets.items() if v}
    figures = {"raw_ms_per_step": per_step["raw"], "env_ms_per_step": per_step["env"],
               "text_ms_per_step": per_step["text"], "ratio": per_step["env"] / per_step["raw"],
               "warm_reset_ms": reset_ms["warm"], "strict_reset_ms": reset_ms["strict"]}
    print(f"{len(actions)} actions x {args.rounds} rounds (medians)")
    print(f"  (a) raw Playwright action + screenshot: {per_step['raw']:.1f} ms/step")
    print(f"  (b) env.step:                          {per_step['env']:.1f} ms/step   b/a {figures['ratio']:.3f}"
          "   (target <= 1.05)")
    print(f"  (c) env.step, text-only:               {per_step['text']:.1f} ms/step   c/b "
          f"{per_step['text'] / per_step['env']:.3f}   (target <= 10 ms)")
    if "browsergym" in per_step:
        figures["browsergym_ms_per_step"] = per_step["browsergym"]
        figures["browsergym_reset_ms"] = reset_ms["browsergym"]
        print(f"  (d) BrowserGym env.step:               {per_step['browsergym']:.1f} ms/step   d/b "
              f"{per_step['browsergym'] / per_step['env']:.2f}")
    else:
        print("  (d) BrowserGym: not installed (see the module docstring)")
    print(f"  reset, warm (default):     {reset_ms['warm']:.0f} ms")
    print(f"  reset, strict_isolation:   {reset_ms['strict']:.0f} ms   warm/strict "
          f"{reset_ms['warm'] / reset_ms['strict']:.2f}")
    if "browsergym" in reset_ms:
        print(f"  reset, BrowserGym:         {reset_ms['browsergym']:.0f} ms   BrowserGym/warm "
              f"{reset_ms['browsergym'] / reset_ms['warm']:.2f}")
    return figures


if __name__ == "__main__":
    main()
