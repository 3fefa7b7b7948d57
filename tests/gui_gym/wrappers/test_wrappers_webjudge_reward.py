"""`WebJudgeReward`: the judge's verdict becomes the episode's reward (the env's own values
kept beside it), from the factual actions and the screenshot after each; a judge error is no
success. Run on local-mode episodes, judged through a loopback chat server."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers the GUI/* ids)
from gui_gym.envs.mind2web import make_env
from gui_gym.judges.webjudge.judge import VERDICT_SYSTEM, WebJudge
from gui_gym.models.openai_client import OpenAIClient
from gui_gym.suites.mind2web.suite import LOCAL_TASK_FILE
from gui_gym.wrappers.webjudge_reward import WebJudgeReward, as_web_judge
from tests.fakes.chat_server import ChatServer
from tests.gui_gym.suites.mind2web.test_mind2web_judge_cli import MALFORMED, scripted_judge

TASK = next(t for t in json.loads(LOCAL_TASK_FILE.read_text()) if t["localweb"]["template"] == "mail.star")


def _oracle_episode(env):
    env.reset(options={"task_id": TASK["task_id"]})
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        done = terminated or truncated
    return reward, info


@pytest.mark.slow
def test_the_verdict_is_the_reward_and_a_judge_error_is_no_success():
    rules = {TASK["confirmed_task"]: "failure"}
    with ChatServer(scripted_judge(rules)) as server:
        judge = WebJudge(OpenAIClient(model="fake-model", base_url=server.base_url, temperature=0), attempts=2)
        env = WebJudgeReward(gym.make("GUI/OnlineMind2Web-v0", mode="local", settle_timeout_s=10), judge)
        try:
            reward, info = _oracle_episode(env)
            assert (reward, info["success"], info["score"]) == (0.0, False, 0.0)
            assert (info["env_success"], info["env_score"], info["judge_status"]) == (True, 1.0, "failure")
            verdict = info["judge_verdict"]
            assert len(verdict["screenshots"]) == TASK["reference_length"] + 1  # after each action, and the end
            final = next(r for r in server.requests if r.messages[0]["content"] == VERDICT_SYSTEM)
            text = "".join(p.get("text", "") for p in final.messages[1]["content"])
            history = text[text.index("Action history:"):text.index("The agent's final answer")].strip().splitlines()
            assert len(history) == 1 + TASK["reference_length"] and any(line.split(". ", 1)[1].startswith('<agent_text>"CLICK (') for line in history[1:])
            assert "final answer (a claim to check against the screenshots, not evidence): (none)" in text

            rules[TASK["confirmed_task"]] = "malformed"
            reward, info = _oracle_episode(env)
            assert (reward, info["success"], info["score"], info["judge_status"]) == (0.0, False, None, "error")
            assert "off-format 2 time(s)" in info["judge_error"] and MALFORMED in info["judge_error"]
        finally:
            env.close()


def test_judges_are_built_from_dicts_and_live_envs_get_the_wrapper(tmp_path):
    built = as_web_judge({"model": "m", "base_url": "http://127.0.0.1:9/v1"})
    assert isinstance(built, WebJudge) and built.judge.temperature == 0.0 and as_web_judge(built) is built
    assert built.protocol == "strict"
    assert as_web_judge({"model": "m", "base_url": "http://127.0.0.1:9/v1", "protocol": "official"}).protocol == "official"
    with pytest.raises(ValueError, match=r"judge: expected OpenAIClient arguments .*received \['modle'\]"):
        as_web_judge({"modle": "m"})
    with pytest.raises(TypeError, match="judge: expected a WebJudge, a ChatModel, or a dict"):
        as_web_judge("o4-mini")
    with pytest.raises(TypeError, match="expected a WebJudge, received str"):
        WebJudgeReward(gym.make("GUI/Demo-v0"), "judge")
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"task_id": "t", "website": "https://example.com/", "confirmed_task": "Look."}]))
    env = make_env(mode="live", tasks=str(tasks), judge=built)
    try:
        assert isinstance(env, WebJudgeReward) and env.unwrapped.backend.config.allowed_hosts is None
    finally:
        env.close()
