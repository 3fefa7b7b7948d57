"""`WebJudgeReward`: an episode's reward from a WebJudge-style judge, for envs with no success
check of their own (live Online-Mind2Web: nothing can read a real website's final state).

The wrapper keeps the episode (a `gui_gym.records.Trajectory`) and, when it ends, shows the
judge what the Online-Mind2Web layout keeps of it (`web_trajectory`): the factual actions of
each step, the screenshot after it, and the agent's final answer apart from the actions. It
asks the judge and puts the verdict in place of the env's
score: reward 1 for success, 0 otherwise. A judge error is no success: reward 0, ``score``
None, and ``info["judge_error"]`` says why. The env's own values stay in ``env_success`` and
``env_score``; the whole verdict (key points, screenshot scores, thoughts) is
``info["judge_verdict"]``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from gui_gym.judges.webjudge.judge import WebJudge, WebTrajectory
from gui_gym.models.chat import ChatModel
from gui_gym.records import Trajectory, TrajectoryStep
from gui_gym.suites.mind2web.history import factual_history


def as_web_judge(judge: Any) -> WebJudge:
    """A `WebJudge` from a `WebJudge`, a `ChatModel`, or `OpenAIClient` arguments as a dict
    (temperature 0 unless given), in which ``"protocol"`` picks the WebJudge protocol
    ("strict", "official", "keypoint")."""
    if isinstance(judge, WebJudge):
        return judge
    if isinstance(judge, ChatModel):
        return WebJudge(judge)
    if isinstance(judge, dict):
        from gui_gym.models.openai_client import OpenAIClient

        settings = dict(judge)
        protocol = settings.pop("protocol", "strict")
        try:
            return WebJudge(OpenAIClient(**{"temperature": 0.0, **settings}), protocol=protocol)
        except TypeError as exc:
            raise ValueError(f"judge: expected OpenAIClient arguments (model, base_url, api_key, ...), "
                             f"received {sorted(judge)}: {exc}") from exc
    raise TypeError(f"judge: expected a WebJudge, a ChatModel, or a dict of OpenAIClient arguments, "
                    f"received {type(judge).__name__}")


class WebJudgeReward(gym.Wrapper):
    """Score each episode of `env` with `judge` (see the module docstring).

    Live Online-Mind2Web is what it is for (``gym.make("GUI/OnlineMind2Web-v0", mode="live",
    judge=...)`` wraps it so); any env takes it:

    >>> import gui_gym
    >>> from gui_gym.models.openai_client import OpenAIClient
    >>> env = WebJudgeReward(gym.make("GUI/Demo-v0"),
    ...                      WebJudge(OpenAIClient("o4-mini", "http://127.0.0.1:8000/v1", temperature=0)))
    >>> env.judge.judge.identity  # nothing is asked before an episode ends
    'openai:http://127.0.0.1:8000/v1:o4-mini:t=0:max_tokens=1024:side=1280'
    >>> env.close()
    """

    def __init__(self, env: gym.Env, judge: WebJudge):
        if not isinstance(judge, WebJudge):
            raise TypeError(f"expected a WebJudge, received {type(judge).__name__} (as_web_judge builds one)")
        super().__init__(env)
        self.judge = judge
        self.trajectory: Trajectory | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.trajectory = Trajectory(task_id=str(info.get("task_id", "")), instruction=str(info.get("instruction", "")))
        return obs, info

    def step(self, action: Any):
        if self.trajectory is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.trajectory.steps.append(TrajectoryStep(info.get("parsed_action"), obs["screenshot"], info.get("action_error"),
                                                    info=info))
        if not (terminated or truncated) or info.get("infra_error"):
            return obs, reward, terminated, truncated, info
        verdict = self.judge.evaluate(web_trajectory(self.trajectory))
        self.trajectory = None
        success = verdict.success is True
        info = {**info, "env_success": info.get("success"), "env_score": info.get("score"), "success": success,
                "score": None if verdict.status == "error" else float(success), "judge_status": verdict.status,
                "judge_error": verdict.error, "judge_verdict": verdict.to_dict()}
        return obs, float(success), terminated, truncated, info


def web_trajectory(trajectory: Trajectory) -> WebTrajectory:
    """What WebJudge reads of an episode, as the v2 layout records it: the factual steps' lines
    (``[FAILED]`` where the action failed) and the screenshot after each, the last screen, and
    the final answer apart from the actions."""
    history = factual_history(trajectory.steps)
    screenshots = [step.screenshot for step, _ in history]
    if trajectory.steps and (not history or history[-1][0] is not trajectory.steps[-1]):
        screenshots.append(trajectory.steps[-1].screenshot)
    return WebTrajectory(task_id=trajectory.task_id, task=trajectory.instruction,
                         actions=[line + (" [FAILED]" if step.action_error else "") for step, line in history],
                         screenshots=screenshots, final_answer=trajectory.final_answer)
