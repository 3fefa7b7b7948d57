"""The episode record format: folder names, whole-or-nothing writes, JSON-safe values, and a
trajectory file cut short by a killed run."""

from __future__ import annotations

import json

import numpy as np

from gui_gym import Action
from gui_gym.records import action_text, atomic_write, episode_key, json_safe, read_trajectory


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
