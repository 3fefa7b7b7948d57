"""The episode record format: folder names, whole-or-nothing writes, JSON-safe values, a
trajectory file cut short by a killed run, typed results and episodes read back."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gui_gym import Action
from gui_gym.errors import TaskConfigError
from gui_gym.records import (EpisodeResult, action_text, atomic_write, episode_key, json_safe, load_episode,
                             read_result, read_trajectory)


def test_episode_key_is_a_safe_folder_name():
    assert episode_key("demo.fill-form", 3) == "demo.fill-form__seed3"
    assert episode_key("a/b c:d", None) == "a_b_c_d"
    assert episode_key("../..", 0) == "task__seed0"


def test_atomic_write_replaces_whole_files_and_leaves_no_temporaries(tmp_path):
    target = tmp_path / "deep" / "result.json"
    atomic_write(target, "first")
    atomic_write(target, b"second")
    assert target.read_text() == "second"
    assert [p.name for p in target.parent.iterdir()] == ["result.json"]


def test_json_safe_turns_what_json_cannot_hold_into_text():
    value = {"n": np.int64(3), "f": np.float32(0.5), "nan": float("nan"), "img": np.zeros((2, 3, 3), np.uint8),
             "a": Action.click(1, 2), "b": b"xyz", 7: (1, 2)}
    safe = json_safe(value)
    json.dumps(safe)
    assert safe == {"n": 3, "f": 0.5, "nan": "nan", "img": "<array shape=[2, 3, 3] dtype=uint8>",
                    "a": {"kind": "click", "x": 1.0, "y": 2.0}, "b": "<3 bytes>", "7": [1, 2]}
    assert action_text(Action.type("hi")) == '{"kind": "type", "text": "hi"}'
    assert action_text("Action: wait()") == "Action: wait()"


def test_a_trajectory_cut_short_by_a_killed_run_reads_up_to_the_last_whole_line(tmp_path):
    assert read_trajectory(tmp_path) == []
    (tmp_path / "traj.jsonl").write_text('{"step": 0}\n\n{"step": 1}\n{"step": 2, "act', encoding="utf-8")
    assert read_trajectory(tmp_path) == [{"step": 0}, {"step": 1}]


def test_a_result_round_trips_and_a_malformed_one_names_its_file_and_field(tmp_path):
    result = EpisodeResult("shop.buy", seed=2, score=1, success=True, steps=4, meta={"domain": "shop"},
                           extra={"note": "kept"})
    assert result.outcome == "success" and EpisodeResult.from_dict(result.to_dict()) == result
    assert EpisodeResult("t", error="worker died").outcome == "error"
    atomic_write(tmp_path / "result.json", json.dumps({**result.to_dict(), "steps": "four"}))
    with pytest.raises(TaskConfigError, match=r"result.json: field 'steps' expected int, received 'four'"):
        read_result(tmp_path)
    (tmp_path / "result.json").write_text("{not json")
    with pytest.raises(TaskConfigError, match="cannot read .*result.json"):
        read_result(tmp_path)
    assert read_result(tmp_path / "nowhere") is None


def test_an_episode_folder_loads_as_a_trajectory_up_to_a_line_cut_short(tmp_path):
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 8
    (tmp_path / "step_0000.png").write_bytes(png)
    lines = [{"step": 0, "event": "reset", "task_id": "demo.x", "seed": 3, "instruction": "Do it.",
              "screenshot_file": "step_0000.png", "url": "http://127.0.0.1/"},
             {"step": 1, "action": "click(1, 2)", "parsed_action": {"kind": "click", "x": 1, "y": 2}, "reward": 0.0,
              "info": {"success": False}, "thought": "the button"},
             {"step": 2, "action": "done", "parsed_action": {"kind": "done", "text": "ok"}, "reward": 1.0,
              "info": {"success": True, "score": 1.0}}]
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    (tmp_path / "traj.jsonl").write_text(text + '{"step": 3, "act')
    episode = load_episode(tmp_path)
    assert (episode.task_id, episode.seed, episode.instruction, episode.start_url) == ("demo.x", 3, "Do it.",
                                                                                       "http://127.0.0.1/")
    assert episode.start_screenshot == png and len(episode) == 2 and episode.steps[0].thought == "the button"
    assert episode.success and episode.score == 1.0 and episode.final_answer == "ok"
    (tmp_path / "traj.jsonl").write_text('{"step": 3, "act\n' + text)
    with pytest.raises(TaskConfigError, match="traj.jsonl line 1 is not JSON"):
        load_episode(tmp_path)
