"""Reading Online-Mind2Web result folders back for judging (benchmarks/harness/mind2web_layout.py):
our v2 layout, other agents' v1 and v2 folders, gui-bench results folders with the env's own
success as ground truth, and labels files."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from gui_gym.benchmarks.harness.mind2web_layout import (SCHEMA_VERSION, V1_SCHEMA, find_web_episodes, read_labels, read_task_folder,
                                        write_from_episode)
from gui_gym.errors import HarnessError, TaskConfigError
from gui_gym.judges.webjudge.judge import load_image


def _png(value: int, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.full((4, 6, 3), value, np.uint8)).save(buffer, format=fmt)
    return buffer.getvalue()


def _recorded_episode(folder, steps, answer=None):
    """A `TrajectoryRecorder` episode folder: reset line, one line per step, result.json."""
    folder.mkdir(parents=True)
    records = [{"step": 0, "event": "reset", "instruction": "Star the mail.", "screenshot_file": "step_0000.png",
                "url": "http://127.0.0.1:1/mail/"}]
    for n, parsed in enumerate(steps, 1):
        records.append({"step": n, "parsed_action": parsed, "action_error": None, "thought": "the answer is $3",
                        "screenshot_file": f"step_{n:04d}.png", "url": f"http://127.0.0.1:1/mail/{n}"})
    for record in records:
        (folder / record["screenshot_file"]).write_bytes(_png(record["step"]))
    (folder / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "result.json").write_text(json.dumps({"task_id": "mail.star.s1", "instruction": "Star the mail.",
                                                    "final_answer": answer}))
    return folder


def test_our_v2_layout_reads_back_with_facts_only_and_screenshots_in_numeric_order(tmp_path):
    steps = [{"kind": "click", "x": i, "y": i} for i in range(11)] + [{"kind": "answer", "text": "$3"}]
    dest = tmp_path / "m2w"
    write_from_episode(_recorded_episode(tmp_path / "episode", steps, answer="$3"), dest, reference_length=3)
    schema, trajectory = read_task_folder(dest)
    assert schema == SCHEMA_VERSION and (trajectory.task_id, trajectory.task) == ("mail.star.s1", "Star the mail.")
    assert trajectory.actions == [f"CLICK ({i}, {i})" for i in range(11)] and trajectory.final_answer == "$3"
    assert trajectory.names() == [f"trajectory/{i}_screenshot.png" for i in range(12)]  # 10 after 9, not after 1
    assert [np.asarray(Image.open(path))[0, 0, 0] for path in trajectory.screenshots] == list(range(1, 13))


def test_other_agents_v2_folders_with_status_suffixes_and_inline_screenshots(tmp_path):
    folder = tmp_path / "abc123"
    folder.mkdir()
    inline = [f"data:image/png;base64,{base64.b64encode(_png(7)).decode()}", base64.b64encode(_png(8)).decode()]
    (folder / "result.json").write_text(json.dumps({
        "schema_version": SCHEMA_VERSION, "task": "Find a bike.", "task_id": "abc123", "reference_length": 4,
        "action_history": [
            {"step": 0, "screenshot": inline[0], "url": "https://x", "action": "button -> CLICK", "action_status": "FAILED",
             "thought": "try"},
            {"step": 1, "screenshot": inline[1], "url": "https://x", "action": "TASK_COMPLETE -> ANSWER: a red one",
             "thought": None}]}))
    schema, trajectory = read_task_folder(folder)
    assert trajectory.actions == ["button -> CLICK [FAILED]"] and trajectory.final_answer == "a red one"
    assert [np.asarray(Image.open(io.BytesIO(s)))[0, 0, 0] for s in trajectory.screenshots] == [7, 8]
    assert trajectory.names() == ["screenshot 0", "screenshot 1"]


def test_v1_folders_keep_their_action_strings_and_final_response(tmp_path):
    folder = tmp_path / "t1"
    (folder / "trajectory").mkdir(parents=True)
    for name, value in (("2_full_screenshot.jpg", 2), ("0_full_screenshot.png", 0), ("notes.txt", None)):
        (folder / "trajectory" / name).write_bytes(_png(value, "JPEG") if name.endswith("jpg") else
                                                    _png(value) if value is not None else b"x")
    (folder / "result.json").write_text(json.dumps({"task_id": "t1", "task": "Open the map.",
                                                    "action_history": ["<a> Maps -> CLICK", "<input> -> TYPE: Oslo"],
                                                    "final_result_response": "Done."}))
    schema, trajectory = read_task_folder(folder)
    assert schema == V1_SCHEMA and trajectory.actions == ["<a> Maps -> CLICK", "<input> -> TYPE: Oslo"]
    assert trajectory.final_answer == "Done." and trajectory.names() == ["trajectory/0_full_screenshot.png",
                                                                         "trajectory/2_full_screenshot.jpg"]
    assert isinstance(load_image(trajectory.screenshots[1]), np.ndarray)  # JPEG decoded for the judge


@pytest.mark.parametrize("content, message", [
    ("not json", "cannot read an Online-Mind2Web result"),
    ("[1]", "expected a JSON object, received list"),
    ('{"task_id": "t"}', "expected the task text under 'task', received None"),
    ('{"task": "x", "action_history": "click"}', "expected 'action_history' as a list, received str"),
    ('{"task": "x", "schema_version": "v9"}', "expected schema_version 'online-mind2web-v2' \\(or none, for v1\\)"),
])
def test_malformed_results_are_named(tmp_path, content, message):
    (tmp_path / "result.json").write_text(content)
    with pytest.raises(TaskConfigError, match=message):
        read_task_folder(tmp_path)


def _bench_folder(root, outcomes):
    """A gui-bench results folder: run.json, tasks/<key>/result.json, mind2web/<key>/ (v2)."""
    (root / "run.json").parent.mkdir(parents=True)
    (root / "run.json").write_text(json.dumps({"env_id": "GUI/OnlineMind2Web-v0", "jobs": []}))
    for key, result in outcomes.items():
        (root / "tasks" / key).mkdir(parents=True)
        (root / "tasks" / key / "result.json").write_text(json.dumps({"task_id": key.split("__")[0], **result}))
        dest = root / "mind2web" / key
        (dest / "trajectory").mkdir(parents=True)
        (dest / "result.json").write_text(json.dumps({"schema_version": SCHEMA_VERSION, "task": f"task {key}",
                                                      "task_id": key.split("__")[0], "action_history": []}))


def test_gui_bench_folders_give_the_envs_own_success_where_it_is_ground_truth(tmp_path):
    _bench_folder(tmp_path / "run", {
        "a__seed0": {"success": True, "meta": {"evaluator": "env"}},
        "b__seed0": {"success": False},
        "c__seed0": {"success": False, "error": "browser crashed"},
        "d__seed0": {"success": True, "meta": {"evaluator": "judge"}},
    })
    episodes = find_web_episodes(tmp_path / "run")
    assert [(e.key, e.ground_truth) for e in episodes] == [("a__seed0", True), ("b__seed0", False), ("c__seed0", None),
                                                           ("d__seed0", None)]
    labelled = find_web_episodes(tmp_path / "run", {"d": False, "a__seed0": False})
    assert [e.ground_truth for e in labelled] == [False, False, None, False]


def test_plain_and_single_task_folders_and_an_empty_one(tmp_path):
    for name in ("t2", "t1"):
        (tmp_path / "om2w" / name).mkdir(parents=True)
        (tmp_path / "om2w" / name / "result.json").write_text(json.dumps({"task": name, "action_history": []}))
    assert [(e.key, e.trajectory.task_id, e.ground_truth) for e in find_web_episodes(tmp_path / "om2w")] == [
        ("t1", "t1", None), ("t2", "t2", None)]
    assert [e.key for e in find_web_episodes(tmp_path / "om2w" / "t2")] == ["t2"]
    with pytest.raises(HarnessError, match="holds no web episodes to judge"):
        find_web_episodes(tmp_path / "nothing")


def test_labels_files(tmp_path):
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"a": True, "b": "Failure", "c": 1, "d": "success", "e": 0}))
    assert read_labels(path) == {"a": True, "b": False, "c": True, "d": True, "e": False}
    path.write_text(json.dumps({"a": "maybe"}))
    with pytest.raises(HarnessError, match="task 'a': expected true/false, 1/0 or \"success\"/\"failure\", received 'maybe'"):
        read_labels(path)
    path.write_text("[]")
    with pytest.raises(HarnessError, match="expected a JSON object"):
        read_labels(path)
