"""`OpenAIAgent` against a loopback server speaking the chat-completions protocol: a scripted
UI-TARS episode solves a demo task with coordinates mapped back exactly, the Qwen2.5-VL
format, the screenshot window, retries, timeouts, settings from the environment."""

from __future__ import annotations

import base64
import io
import threading

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.agents.openai_agent import OpenAIAgent
from gui_gym.action_formats.coords import CoordinateMapping
from gui_gym.errors import AgentError
from tests.fakes.chat_server import ChatServer, Reply

OBS = {"screenshot": np.full((720, 1280, 3), 200, np.uint8), "instruction": "Press the button."}


@pytest.fixture(scope="module")
def demo():
    env = gym.make("GUI/Demo-v0", action_format="uitars", format_context={"coordinates": "smart_resize"})
    yield env
    env.close()


def _decoded(url: str) -> np.ndarray:
    assert url.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB"))


def test_a_scripted_uitars_episode_solves_the_task_with_exact_coordinates(demo):
    obs, info = demo.reset(seed=0, options={"task_id": "demo.press-button"})
    click = demo.unwrapped.oracle_action()  # where the button is, in screen pixels
    mx, my = CoordinateMapping("smart_resize", (1280, 720)).to_model(click.x, click.y)
    script = [f"Thought: The Subscribe button is in the form.\nAction: click(start_box='({mx:.0f},{my:.0f})')",
              "Thought: Subscribed.\nAction: finished(content='done')"]
    with ChatServer(script, models=["ui-tars-1.5-7b"], api_key="sk-test") as server:
        agent = OpenAIAgent(base_url=server.base_url, api_key="sk-test")
        assert (agent.action_format, agent.format_context) == ("uitars", {"coordinates": "smart_resize"})
        agent.reset(info)
        for _ in script:
            obs, reward, terminated, truncated, info = demo.step(agent.act(obs, info))
        assert terminated and info["success"] and reward == 1.0
        assert agent.model == "ui-tars-1.5-7b" and agent.last_thought == "Subscribed."
        first, second = server.requests
        assert first.body["model"] == "ui-tars-1.5-7b" and first.body["temperature"] == 0.0
        assert first.headers["Authorization"] == "Bearer sk-test"
        assert "Press the Subscribe button once." in first.messages[0]["content"]
        shot = _decoded(first.images()[0])
        assert shot.shape == (720, 1280, 3)  # full resolution: the model's pixels map back exactly
        assert [m["role"] for m in second.messages] == ["user", "user", "assistant", "user"]
        assert second.messages[2]["content"] == script[0]
    agent.close()


def test_only_the_last_screenshots_travel_while_every_answer_stays():
    answers = [f"Thought: step {i}\nAction: wait()" for i in range(4)]
    with ChatServer(answers) as server:
        agent = OpenAIAgent(base_url=server.base_url, model="m", history_images=2)
        agent.reset({"instruction": "wait"})
        for i in range(4):
            obs = {**OBS, "screenshot": np.full((720, 1280, 3), i, np.uint8)}
            assert agent.act(obs, {}) == answers[i]
        last = server.requests[-1]
        assert [_decoded(u)[0, 0, 0] for u in last.images()] == [2, 3]
        assert [m["content"] for m in last.messages if m["role"] == "assistant"] == answers[:3]
    agent.close()


def test_a_reasoning_model_gets_its_cap_as_max_completion_tokens():
    with ChatServer(["Action: wait()"]) as server:
        agent = OpenAIAgent(base_url=server.base_url, model="o4-mini", max_tokens=300,
                            max_tokens_field="max_completion_tokens")
        agent.reset({"instruction": "wait"})
        agent.act(OBS, {})
        body = server.requests[0].body
        assert body["max_completion_tokens"] == 300 and "max_tokens" not in body
    agent.close()
    with pytest.raises(AgentError, match="max_tokens_field must be one of"):
        OpenAIAgent(base_url="http://127.0.0.1:9/v1", model="m", max_tokens_field="max_length")


def test_the_qwen_format_returns_actions_mapped_to_the_screen():
    reply = ('Click the centre.\n<tool_call>\n{"name": "computer_use", "arguments": '
             '{"action": "left_click", "coordinate": [644, 364]}}\n</tool_call>')
    with ChatServer([reply, "no tool call"]) as server:
        agent = OpenAIAgent(base_url=server.base_url, model="qwen2.5-vl", prompt="qwen25vl")
        agent.reset({"instruction": "Click the centre."})
        action = agent.act(OBS, {})
        assert (action.kind, action.x, action.y) == ("click", 640.0, 360.0)
        assert agent.last_thought == "Click the centre." and agent.action_format == "json"
        assert agent.act(OBS, {}) == "no tool call"  # the env records it as an action_error
        system = server.requests[0].messages[0]
        assert system["role"] == "system" and "<tools>" in system["content"]
    agent.close()


def test_server_errors_are_retried_and_a_dead_endpoint_is_an_agent_error():
    with ChatServer([Reply(status=503), "Action: wait()"]) as server:
        agent = OpenAIAgent(base_url=server.base_url, model="m", attempts=2)
        agent.reset({"instruction": "x"})
        assert agent.act(OBS, {}) == "Action: wait()" and len(server.requests) == 2
    with ChatServer([Reply(status=500), Reply(status=500)]) as server:
        agent = OpenAIAgent(base_url=server.base_url, model="m", attempts=2)
        agent.reset({"instruction": "x"})
        with pytest.raises(AgentError, match=r"model endpoint .* failed after 2 attempt\(s\)"):
            agent.act(OBS, {})
    with ChatServer([Reply(status=401, body={"error": {"message": "bad key"}})]) as server:
        agent = OpenAIAgent(base_url=server.base_url, model="m", attempts=3)
        agent.reset({"instruction": "x"})
        with pytest.raises(AgentError, match="refused the request: HTTP 401"):
            agent.act(OBS, {})
        assert len(server.requests) == 1  # asking again would get the same answer


def test_a_slow_endpoint_times_out():
    release = threading.Event()
    with ChatServer([Reply(content="late", hold=release)]) as server:
        agent = OpenAIAgent(base_url=server.base_url, model="m", timeout_s=0.5, attempts=1)
        agent.reset({"instruction": "x"})
        try:
            with pytest.raises(AgentError, match="ReadTimeout"):
                agent.act(OBS, {})
        finally:
            release.set()


def test_settings_come_from_arguments_or_the_environment(monkeypatch):
    for name in ("GUI_GYM_AGENT_BASE_URL", "OPENAI_BASE_URL", "GUI_GYM_AGENT_MODEL", "GUI_GYM_AGENT_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(AgentError, match="no endpoint; pass --agent-arg base_url=http://HOST:PORT/v1 or set GUI_GYM_AGENT_BASE_URL"):
        OpenAIAgent()
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("GUI_GYM_AGENT_MODEL", "env-model")
    agent = OpenAIAgent(coordinates="relative1000")
    assert (agent.base_url, agent.model, agent.format_context) == ("http://127.0.0.1:9/v1", "env-model",
                                                                   {"coordinates": "relative1000"})
    with pytest.raises(AgentError, match=r"coordinates must be one of \['absolute', 'smart_resize'"):
        OpenAIAgent(coordinates="pixels")
    with pytest.raises(AgentError, match="history_images must be an int >= 1, received 0"):
        OpenAIAgent(history_images=0)
    with pytest.raises(AgentError, match="temperature must be a number >= 0, received -1"):
        OpenAIAgent(temperature=-1)


def test_without_a_model_name_the_server_listing_is_asked_once():
    with ChatServer(["Action: wait()"], models=[]) as server:
        agent = OpenAIAgent(base_url=server.base_url)
        agent.reset({"instruction": "x"})
        with pytest.raises(AgentError, match="no model given and .*did not list a model"):
            agent.act(OBS, {})
