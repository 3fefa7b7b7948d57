"""Criteria extraction end to end: episodes recorded by `TrajectoryRecorder` on GUI/Demo-v0,
criteria extracted by a scripted loopback OpenAI-compatible judge, stored as JSON; and the
``gui-bench criteria`` command (`gui_gym.benchmarks.commands.criteria`) on the same recordings."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.benchmarks.cli import main as gui_bench
from gui_gym import Action
from gui_gym.judges.criteria import build_criteria, extract_criteria
from gui_gym.judges.criteria_store import CriteriaStore
from gui_gym.models.openai_client import OpenAIClient
from gui_gym.records import Trajectory, TrajectoryStep, load_episode
from gui_gym.wrappers.recorder import TrajectoryRecorder
from tests.fakes.chat_server import ChatServer

PROPOSE = '{"criteria": ["the name is typed", "the form is sent"]}'
REFINE = '{"criteria": ["the name from the instruction is typed", "the colour is chosen", "the form is sent"]}'
STABLE = REFINE


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Three successful fill-form episodes, one that gave up, one successful button press."""
    root = tmp_path_factory.mktemp("results")
    env = TrajectoryRecorder(gym.make("GUI/Demo-v0"), root)
    try:
        for task_id, seed, give_up in [("demo.fill-form", s, False) for s in (1, 2, 3)] + [
                ("demo.fill-form", 4, True), ("demo.press-button", 5, False)]:
            env.reset(seed=seed, options={"task_id": task_id})
            while True:
                action = Action.fail() if give_up else env.unwrapped.oracle_action()
                *_, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    break
    finally:
        env.close()
    return root


def test_recorded_episodes_load_as_trajectories(results):
    trajectory = load_episode(results / "demo.fill-form__seed1")
    assert trajectory.success and trajectory.task_id == "demo.fill-form" and trajectory.instruction.startswith("Type the name")
    lines = (results / "demo.fill-form__seed1" / "traj.jsonl").read_text().splitlines()
    assert len(trajectory) == len(lines) - 1 and trajectory.steps[1].parsed_action["kind"] == "type"
    assert trajectory.steps[-1].parsed_action == {"kind": "done"} and trajectory.seed == 1
    assert trajectory.start_screenshot[:8] == b"\x89PNG\r\n\x1a\n" and trajectory.steps[-1].screenshot is not None
    assert load_episode(results / "demo.fill-form__seed4").success is False


def test_three_successful_trajectories_give_stored_versioned_criteria(results, tmp_path):
    with ChatServer([PROPOSE, REFINE, STABLE, '{"criteria": ["the button is pressed"]}']) as server:
        judge = OpenAIClient("m", server.base_url)
        summary = build_criteria(results, judge, tmp_path / "store")
        judge.close()
    assert len(server.requests) == 4  # three fill-form episodes, one button press; the failure is skipped
    fill = summary["demo.fill-form"]
    assert fill["version"] == 1 and fill["stable"] and fill["errors"] == []
    assert fill["trajectories"] == [f"demo.fill-form__seed{s}" for s in (1, 2, 3)]
    stored = json.loads((tmp_path / "store" / "demo.fill-form.json").read_text())
    assert stored["schema_version"] == 1 and stored["task_id"] == "demo.fill-form"
    (version,) = stored["versions"]
    assert version["criteria"] == ["the name from the instruction is typed", "the colour is chosen", "the form is sent"]
    assert version["version"] == 1 and version["stable"] and version["judge"] == judge.identity
    assert version["sources"] == fill["trajectories"] and version["created_at"]
    second = server.requests[1].body["messages"][1]["content"]
    assert "The current criteria are:\n1. the name is typed\n2. the form is sent" in "".join(p.get("text", "") for p in second)
    assert sum(p["type"] == "image_url" for p in second) == 8
    assert CriteriaStore(tmp_path / "store").get("demo.press-button") == ["the button is pressed"]


def test_off_format_extraction_is_recorded_and_stores_nothing(results, tmp_path):
    with ChatServer(["criteria: click things"] * 9) as server:
        judge = OpenAIClient("m", server.base_url)
        summary = build_criteria(results, judge, tmp_path / "store", task_ids=["demo.fill-form"])
        judge.close()
    entry = summary["demo.fill-form"]
    assert entry["version"] is None and entry["criteria"] is None and len(entry["errors"]) == 3
    assert "off-format 3 time(s)" in entry["errors"][0]
    assert not (tmp_path / "store" / "demo.fill-form.json").exists()


def test_extraction_stops_when_stable_or_at_max_iters():
    trajectories = [Trajectory("t", "x", steps=[TrajectoryStep({"kind": "wait"})]) for _ in range(4)]
    with ChatServer([PROPOSE, PROPOSE, REFINE]) as server:
        judge = OpenAIClient("m", server.base_url)
        found = extract_criteria(judge, trajectories)
        assert found.stable and found.used == [0, 1] and found.criteria == ["the name is typed", "the form is sent"]
        found = extract_criteria(judge, trajectories, max_iters=1, previous=["old"])
        assert not found.stable and found.used == [0] and len(found.criteria) == 3
        judge.close()
    with pytest.raises(ValueError, match="max_iters must be >= 1 or None, received 0"):
        extract_criteria(judge, trajectories, max_iters=0)


def test_cli_builds_the_store_and_caches_the_judge(results, tmp_path, monkeypatch, capsys):
    store = tmp_path / "store"
    with ChatServer([PROPOSE, PROPOSE]) as server:
        url = server.base_url
        monkeypatch.setenv("GUI_GYM_JUDGE_BASE_URL", url)
        monkeypatch.setenv("GUI_GYM_JUDGE_MODEL", "m")
        argv = [str(results), "--store", str(store), "--task", "demo.fill-form"]
        assert gui_bench(["criteria", *argv]) == 0
        (store / "demo.fill-form.json").unlink()
        assert gui_bench(["criteria", *argv]) == 0  # the same questions, answered from STORE/.judge-cache: no third answer needed
    out = capsys.readouterr().out
    assert out.count("demo.fill-form: v1, 2 criteria from 2 trajectory(ies), stable") == 2
    assert len(server.requests) == 2 and (store / "demo.fill-form.json").exists()
    assert gui_bench(["criteria", str(tmp_path / "missing"), "--judge-base-url", url, "--judge-model", "m"]) == 2
    (tmp_path / "empty").mkdir()
    assert gui_bench(["criteria", str(tmp_path / "empty"), "--judge-base-url", url, "--judge-model", "m"]) == 2
    monkeypatch.delenv("GUI_GYM_JUDGE_MODEL")
    assert gui_bench(["criteria", str(results)]) == 2
    err = capsys.readouterr().err
    assert "results folder" in err and "missing does not exist" in err
    assert "no successful trajectories under" in err and "no judge model: pass model=..." in err
    assert not (tmp_path / "missing").exists()


def test_the_command_runs_through_gui_bench(results, tmp_path, capsys):
    from gui_gym.benchmarks import cli

    with ChatServer([PROPOSE, PROPOSE]) as server:
        code = cli.main(["criteria", str(results), "--store", str(tmp_path), "--task", "demo.fill-form",
                         "--judge-base-url", server.base_url, "--judge-model", "m", "--max-iters", "2"])
    assert code == 0 and "demo.fill-form: v1, 2 criteria" in capsys.readouterr().out
    assert CriteriaStore(tmp_path).get("demo.fill-form") == ["the name is typed", "the form is sent"]
