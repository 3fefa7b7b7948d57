"""`WebJudgeReward`: an episode's reward from a WebJudge-style judge, for envs with no success
check of their own (live Online-Mind2Web: nothing can read a real website's final state).

The wrapper keeps what the judge reads, as the Online-Mind2Web layout keeps it: the factual
actions of each step, the screenshot after it, and the agent's final answer apart from the
actions. When the episode ends it asks the judge and puts the verdict in place of the env's
score: reward 1 for success, 0 otherwise. A judge error is no success: reward 0, ``score``
None, and ``info["judge_error"]`` says why. The env's own values stay in ``env_success`` and
``env_score``; the whole verdict (key points, screenshot scores, thoughts) is
``info["judge_verdict"]``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from gui_gym.judges.base import Judge
from gui_gym.judges.webjudge import WebJudge, WebTrajectory
from gui_gym.suites.mind2web.history import describe_action, factual_actions

def as_web_judge(judge: Any) -> WebJudge:
    """A `WebJudge` from a `WebJudge`, a chat `Judge`, or `OpenAIJudge` arguments as a dict
    (temperature 0 unless given), in which ``"protocol"`` picks the WebJudge protocol
    ("strict", "official", "keypoint")."""
    if isinstance(judge, WebJudge):
        return judge
    if isinstance(judge, Judge):
        return WebJudge(judge)
    if isinstance(judge, dict):
        from gui_gym.judges.openai_judge import OpenAIJudge

        settings = dict(judge)
        protocol = settings.pop("protocol", "strict")
        try:
            return WebJudge(OpenAIJudge(**{"temperature": 0.0, **settings}), protocol=protocol)
        except TypeError as exc:
            raise ValueError(f"judge: expected OpenAIJudge arguments (model, base_url, api_key, ...), "
                             f"received {sorted(judge)}: {exc}") from exc
    raise TypeError(f"judge: expected a WebJudge, a Judge, or a dict of OpenAIJudge arguments, "
                    f"received {type(judge).__name__}")


class WebJudgeReward(gym.Wrapper):
    """Score each episode of `env` with `judge` (see the module docstring).

    >>> env = WebJudgeReward(gym.make("GUI/OnlineMind2Web-v0", mode="live", tasks="tasks.json"),
    ...                      WebJudge(OpenAIJudge(model="o4-mini")))  # doctest: +SKIP
    """

    def __init__(self, env: gym.Env, judge: WebJudge):
        if not isinstance(judge, WebJudge):
            raise TypeError(f"expected a WebJudge, received {type(judge).__name__} (as_web_judge builds one)")
        super().__init__(env)
        self.judge = judge
        self.trajectory: WebTrajectory | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.trajectory = WebTrajectory(task_id=str(info.get("task_id", "")), task=str(info.get("instruction", "")),
                                        actions=[])
        return obs, info

    def step(self, action: Any):
        if self.trajectory is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        obs, reward, terminated, truncated, info = self.env.step(action)
        parsed = info.get("parsed_action")
        actions = parsed if isinstance(parsed, list) else [parsed] if parsed else []
        factual = factual_actions(parsed)
        ended = terminated or truncated
        if factual or ended:
            self.trajectory.screenshots.append(obs["screenshot"])
        if factual:
            line = "; ".join(describe_action(a) for a in factual)
            self.trajectory.actions.append(line + (" [FAILED]" if info.get("action_error") else ""))
        if actions and actions[-1].get("kind") in ("answer", "done") and actions[-1].get("text"):
            self.trajectory.final_answer = str(actions[-1]["text"])
        if not ended or info.get("infra_error"):
            return obs, reward, terminated, truncated, info
        verdict = self.judge.evaluate(self.trajectory)
        self.trajectory = None
        success = verdict.success is True
        info = {**info, "env_success": info.get("success"), "env_score": info.get("score"), "success": success,
                "score": None if verdict.status == "error" else float(success), "judge_status": verdict.status,
                "judge_error": verdict.error, "judge_verdict": verdict.to_dict()}
        return obs, float(success), terminated, truncated, info
