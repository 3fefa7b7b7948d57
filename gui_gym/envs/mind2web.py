"""``GUI/OnlineMind2Web-v0``: Online-Mind2Web task files (`gui_gym.suites.mind2web`), live on
the real web or offline on LocalWeb, scored by a WebJudge-style judge (see docs/mind2web.md).

    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GUI/OnlineMind2Web-v0", mode="local", levels="easy")
    >>> env.unwrapped.task_ids[:1]
    ['shop.add-to-cart.s1']
    >>> env.close()
    >>> live = gym.make("GUI/OnlineMind2Web-v0", mode="live", tasks="Online_Mind2Web.json",
    ...                 judge={"model": "o4-mini"})  # doctest: +SKIP

Local mode runs the bundled tasks (`Mind2WebSuite`), each a LocalWeb template instance, with
the env's own success check and oracle; the browser reaches the env's own LocalWeb server
only. Live mode opens each task's website with no host restriction (http and https only); with
``judge=`` the episode's reward is the judge's verdict (`WebJudgeReward`), without it episodes score 0 and ``gui-bench judge`` scores the
recorded folder afterwards.
"""

from __future__ import annotations

from typing import Any, Iterable

from gui_gym.backends.browser.backend import BrowserBackend, BrowserConfig
from gui_gym.backends.browser.web_access import OWN_SERVERS_ONLY
from gui_gym.env import GUIEnv
from gui_gym.suites.mind2web import Mind2WebSuite
from gui_gym.suites.mind2web.suite import DEFAULT_PROBE_TIMEOUT_S

def make_env(*, mode: str = "local", tasks: str | None = None, levels: str | Iterable[str] | None = None,
             pin: str | None = None, judge: Any = None, probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
             **kwargs: Any):
    """Entry point of ``GUI/OnlineMind2Web-v0``.

    Args:
        mode: "local" (bundled tasks on LocalWeb, offline) or "live" (the real websites).
        tasks: the task file (JSON list or JSON Lines); see `Mind2WebSuite`.
        levels: keep only these levels ("easy", "medium", "hard").
        pin: the sha256 the task file must have (each result records the file's hash).
        judge: live mode only: score episodes with a WebJudge-style judge; a `WebJudge`, a
            `ChatModel`, or `OpenAIClient` arguments as a dict (``{"model": ..., "base_url": ...}``,
            plus ``"protocol": "official"`` or ``"keypoint"`` for those WebJudge protocols).
        probe_timeout_s: live mode's bound on the check that the website is reachable.
        kwargs: `BrowserConfig` fields (viewport, headless, ...), then `GUIEnv` arguments.
    """
    suite = Mind2WebSuite(mode, tasks, levels, pin, probe_timeout_s)
    if judge is not None and mode != "live":
        raise ValueError("judge= is for live mode: local mode scores with the env's own success check; "
                         "judge a local run's results folder with gui-bench judge to measure a judge")
    config = BrowserConfig.pop_from(kwargs, **({"allowed_hosts": OWN_SERVERS_ONLY} if mode == "local" else {}))
    env = GUIEnv(BrowserBackend(config), suite, **kwargs)
    if judge is None:
        return env
    from gui_gym.wrappers.webjudge_reward import WebJudgeReward, as_web_judge

    return WebJudgeReward(env, as_web_judge(judge))
