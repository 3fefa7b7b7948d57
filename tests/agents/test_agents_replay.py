"""`ReplayAgent` on GUI/Demo-v0: a recorded folder replays to the same actions and outcome; a
JSONL file of actions per task replays too; bad files are named with their line."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.agents.oracle import OracleAgent
from gui_gym.agents.replay import ReplayAgent
from gui_gym.benchmarks.harness.results import Job
from gui_gym.benchmarks.harness.runner import run_episode
from gui_gym.errors import AgentError
from gui_gym.wrappers import TrajectoryRecorder

TASKS = ("demo.fill-form", "demo.read-code")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """An oracle run of two demo tasks, recorded; and the env, to replay on."""
    env = gym.make("GUI/Demo-v0")
    folder = tmp_path_factory.mktemp("oracle")
    recorder = TrajectoryRecorder(env, folder)
    oracle = OracleAgent()
    oracle.bind_env(recorder)
    for task_id in TASKS:
        assert run_episode(recorder, oracle, Job(task_id, 4)).success
    yield folder, env
    env.close()


def _parsed(folder, task_id):
    lines = (folder / f"{task_id}__seed4" / "traj.jsonl").read_text().splitlines()
    return [json.loads(line)["parsed_action"] for line in lines[1:]]


def test_a_recorded_folder_replays_to_the_same_actions_and_outcome(recorded, tmp_path):
    source, env = recorded
    recorder = TrajectoryRecorder(env, tmp_path)
    agent = ReplayAgent(str(source))
    assert agent.action_format == "json"
    for task_id in TASKS:
        result = run_episode(recorder, agent, Job(task_id, 4))
        assert result.success, task_id
        assert _parsed(tmp_path, task_id) == _parsed(source, task_id)


def test_a_jsonl_file_replays_actions_per_task_and_seed(recorded, tmp_path):
    source, env = recorded
    actions = _parsed(source, "demo.fill-form")
    lines = [{"task_id": "demo.fill-form", "seed": 4, "actions": actions},
             {"task_id": "demo.read-code", "actions": ["not json at all"]}]
    path = tmp_path / "actions.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    recorder = TrajectoryRecorder(env, tmp_path / "out")
    agent = ReplayAgent(str(path))
    assert run_episode(recorder, agent, Job("demo.fill-form", 4)).success
    result = run_episode(recorder, agent, Job("demo.read-code", 9))  # the seed-less line serves any seed
    first = json.loads((tmp_path / "out" / "demo.read-code__seed9" / "traj.jsonl").read_text().splitlines()[1])
    assert "invalid JSON" in first["action_error"]
    assert not result.success and result.error is None  # exhausted, then done: a failure, not an error
    with pytest.raises(AgentError, match=r"no recorded actions for task 'demo.fill-form' with seed 5; "
                                         r"recorded seeds for it: \['4'\]"):
        agent.reset({"task_id": "demo.fill-form", "reset_seed": 5})


def test_bad_sources_are_named(tmp_path):
    with pytest.raises(AgentError, match="which does not exist"):
        ReplayAgent(str(tmp_path / "missing.jsonl"))
    with pytest.raises(AgentError, match="holds no recorded episodes"):
        ReplayAgent(str(tmp_path))
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task_id": "a", "actions": []}\n{"task_id": "b"}\n')
    with pytest.raises(AgentError, match=r"bad.jsonl line 2: expected \{\"task_id\""):
        ReplayAgent(str(path))
    path.write_text('{"task_id": "a", "actions": [{"kind": "jump"}]}\n')
    with pytest.raises(AgentError, match="line 1: unknown action kind 'jump'"):
        ReplayAgent(str(path))
    with pytest.raises(AgentError, match="a recorded folder replays canonical JSON actions"):
        ReplayAgent(str(tmp_path), action_format="uitars")
