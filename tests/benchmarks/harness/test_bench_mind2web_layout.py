"""The Online-Mind2Web v2 layout written from a recorded episode: exact keys, consecutive
steps with their screenshots (hard links to the episode's, on a local run and a Ray run's
driver alike), factual actions only, the answer kept out of the facts; and a fresh run's
folders read as the benchmark's own evaluation script reads them, with its success rate."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PIL import Image

from gui_gym.benchmarks.cli import main
from gui_gym.benchmarks.harness.mind2web_layout import SCHEMA_VERSION, write_from_episode
from gui_gym.benchmarks.harness.ray_runner import place_episode
from gui_gym.benchmarks.harness.results import Job, ResultsStore
from gui_gym.records import load_episode, read_result
from gui_gym.suites.mind2web.history import describe_action, factual_history

URL = "http://127.0.0.1:8000/shop"


def _episode(folder, steps, *, answer=None, url=URL):
    folder.mkdir(parents=True)
    records = [{"step": 0, "event": "reset", "instruction": "Find the price.", "screenshot_file": "step_0000.png", "url": url}]
    for n, (parsed, error, thought) in enumerate(steps, 1):
        records.append({"step": n, "action": "raw", "parsed_action": parsed, "action_error": error, "thought": thought,
                        "screenshot_file": f"step_{n:04d}.png", "url": url and f"{url}/{n}"})
    for record in records:
        Image.fromarray(np.full((4, 6, 3), record["step"], np.uint8)).save(folder / record["screenshot_file"])
    (folder / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "result.json").write_text(json.dumps({"task_id": "shop.price", "instruction": "Find the price.",
                                                    "final_answer": answer}))
    return folder


@pytest.mark.parametrize("action, text", [
    ({"kind": "click", "x": 10.4, "y": 20.6}, "CLICK (10, 21)"),
    ({"kind": "click", "element": 3}, "CLICK element #3"),
    ({"kind": "drag", "x": 1, "y": 2, "to_x": 3, "to_y": 4}, "DRAG (1, 2) -> (3, 4)"),
    ({"kind": "scroll", "direction": "down", "amount": 5}, "SCROLL down 5"),
    ({"kind": "scroll", "direction": "up", "amount": 2, "x": 5, "y": 6}, "SCROLL up 2 at (5, 6)"),
    ({"kind": "type", "text": "milk"}, "TYPE 'milk'"),
    ({"kind": "hotkey", "keys": ["ctrl", "a"]}, "HOTKEY ctrl+a"),
    ({"kind": "goto", "text": "http://x"}, "GOTO http://x"),
    ({"kind": "navigate_back"}, "NAVIGATE_BACK"),
])
def test_actions_are_described_factually(action, text):
    assert describe_action(action) == text


def test_the_v2_layout_holds_factual_steps_and_the_answer_apart(tmp_path):
    source = _episode(tmp_path / "episode", [
        ({"kind": "click", "x": 5, "y": 6}, None, "Open the product."),
        (None, "expected a JSON action object", None),  # output that did not parse: nothing was done
        ([{"kind": "type", "text": "milk"}, {"kind": "key", "keys": ["enter"]}], None, "Search."),
        ({"kind": "click", "x": 1, "y": 1}, "could not execute click", None),
        ({"kind": "answer", "text": "$3"}, None, "The price is $3."),
    ], answer="$3")
    dest = tmp_path / "mind2web" / "shop.price__seed0"
    document = write_from_episode(source, dest, reference_length=4)
    assert json.loads((dest / "result.json").read_text()) == document
    assert set(document) == {"schema_version", "task", "task_id", "reference_length", "agent_final_answer", "action_history"}
    assert (document["schema_version"], document["task"], document["task_id"]) == (SCHEMA_VERSION, "Find the price.", "shop.price")
    assert document["reference_length"] == 4 and document["agent_final_answer"] == "$3"
    history = document["action_history"]
    assert [h["step"] for h in history] == [0, 1, 2, 3]
    assert [h["action"] for h in history] == ["CLICK (5, 6)", "TYPE 'milk'; KEY enter", "CLICK (1, 1)",
                                              "TASK_COMPLETE -> ANSWER: $3"]
    assert [h["action_status"] for h in history] == ["SUCCESS", "SUCCESS", "FAILED", None]
    assert all("$3" not in h["action"] and "$3" not in (h["thought"] or "") for h in history[:-1])
    assert history[-1]["thought"] is None and history[-1]["url"] == URL + "/5"
    for n, entry in enumerate(history):
        assert entry["screenshot"] == f"{n}_screenshot.png"  # a bare name in trajectory/, as the official script joins it
    shots = {n: np.asarray(Image.open(dest / "trajectory" / h["screenshot"]))[0, 0, 0] for n, h in enumerate(history)}
    assert shots == {0: 1, 1: 3, 2: 4, 3: 5}  # each the screen after its step; the last the final screen
    assert os.path.samefile(dest / "trajectory" / history[0]["screenshot"], source / "step_0001.png")  # shared


def test_a_step_whose_screen_was_not_captured_is_left_out_and_an_episode_without_screens_gets_no_folder(tmp_path):
    source = _episode(tmp_path / "episode", [
        ({"kind": "click", "x": 5, "y": 6}, None, None),
        ({"kind": "click", "x": 7, "y": 8}, None, None),
        ({"kind": "click", "x": 9, "y": 9}, None, None),
    ])
    (source / "step_0002.png").unlink()  # the screen after the second click was never captured
    (source / "step_0003.png").unlink()  # nor the last one
    dest = tmp_path / "m2w"
    history = write_from_episode(source, dest)["action_history"]
    assert [h["action"] for h in history] == ["CLICK (5, 6)", "TASK_COMPLETE -> ANSWER: "]
    assert [h["screenshot"] for h in history] == ["0_screenshot.png", "0_screenshot.png"]  # the last screen captured
    assert sorted(p.name for p in (dest / "trajectory").iterdir()) == ["0_screenshot.png"]
    blind = _episode(tmp_path / "blind", [({"kind": "click", "x": 5, "y": 6}, None, None)])
    for shot in blind.glob("*.png"):
        shot.unlink()
    (tmp_path / "blind-m2w").mkdir()
    assert write_from_episode(blind, tmp_path / "blind-m2w") is None and not (tmp_path / "blind-m2w").exists()


def test_a_ray_driver_places_the_task_folder_and_links_the_layout_to_it(tmp_path):
    source = _episode(tmp_path / "worker" / "tasks" / "shop.price__seed0",
                      [({"kind": "click", "x": 5, "y": 6}, None, None), ({"kind": "answer", "text": "$3"}, None, None)],
                      answer="$3")
    files = {p.relative_to(tmp_path / "worker").as_posix(): p.read_bytes() for p in source.iterdir()}
    store = ResultsStore(tmp_path / "run")
    place_episode(store, Job("shop.price", 0, {"reference_length": 2}), files)
    placed, layout = store.task_dir("shop.price__seed0"), store.mind2web_dir("shop.price__seed0")
    assert sorted(p.name for p in placed.iterdir()) == sorted(p.name for p in source.iterdir())
    document = json.loads((layout / "result.json").read_text())
    assert document["reference_length"] == 2 and document["agent_final_answer"] == "$3"
    shots = sorted((layout / "trajectory").iterdir())
    assert len(shots) == 2 and all(shot.stat().st_nlink == 2 for shot in shots)
    assert os.path.samefile(shots[0], placed / "step_0001.png")


def test_rewriting_replaces_the_old_layout_and_other_episodes_are_skipped(tmp_path):
    source = _episode(tmp_path / "episode", [({"kind": "click", "x": 5, "y": 6}, None, None)])
    dest = tmp_path / "m2w"
    dest.mkdir()
    (dest / "stale.txt").write_text("old")
    document = write_from_episode(source, dest)
    assert not (dest / "stale.txt").exists() and document["agent_final_answer"] == ""
    assert document["action_history"][-1]["action"] == "TASK_COMPLETE -> ANSWER: "
    assert document["reference_length"] is None
    assert write_from_episode(_episode(tmp_path / "desktop", [], url=None), tmp_path / "x") is None
    assert write_from_episode(tmp_path / "nothing", tmp_path / "y") is None
    died_at_start = tmp_path / "died"
    died_at_start.mkdir()
    (died_at_start / "result.json").write_text('{"task_id": "t", "error": "worker process died"}')
    assert write_from_episode(died_at_start, tmp_path / "z") is None


def official_reading(trajectories_dir):
    """What Online-Mind2Web's own evaluation script reads of a results folder, and nothing more:
    it mirrors the v2 branch of ``auto_eval`` and the folder list of ``parallel_eval`` in
    ``src/run.py`` of OSU-NLP-Group/Online-Mind2Web (the judging itself is left out). The task
    folders are every sub-folder; per folder, ``result.json``'s task, the action of every entry
    but the last (the closing TASK_COMPLETE), and one image per entry at
    ``os.path.join(<folder>/trajectory, entry["screenshot"])``, each opened with PIL as the
    script's ``judge_image`` opens it. The script is not on a package registry, so it is
    mirrored here rather than run (docs/mind2web.md says how it was checked by hand)."""
    readings = {}
    for task_id in sorted(os.listdir(trajectories_dir)):
        if not os.path.isdir(os.path.join(trajectories_dir, task_id)):
            continue
        trajectory_images_path = os.path.join(trajectories_dir, task_id, "trajectory")
        with open(os.path.join(trajectories_dir, task_id, "result.json")) as f:
            result = json.load(f)
        assert result.get("schema_version") == "online-mind2web-v2"
        steps = result["action_history"]
        action_history = [step["action"] for step in steps[:-1]]
        screenshot_paths = [os.path.join(trajectory_images_path, step["screenshot"]) for step in steps]
        for path in screenshot_paths:
            Image.open(path).load()
        readings[task_id] = (result["task"], action_history, screenshot_paths)
    return readings


@pytest.mark.slow
def test_the_official_scripts_reading_of_a_fresh_run_gives_the_success_rate_gui_bench_reports(tmp_path):
    out = tmp_path / "run"
    assert main(["run", "--env", "GUI/Demo-v0", "--max-steps", "1", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())["overall"]
    assert summary["errors"] == 0 and 0 < summary["successes"] < summary["tasks"], summary  # a mixed run
    readings = official_reading(out / "mind2web")
    assert len(readings) == summary["tasks"]  # the script's denominator: every task folder
    truth = {}
    for key, (task, actions, shots) in readings.items():
        result = read_result(out / "tasks" / key)
        trajectory = load_episode(out / "tasks" / key, screenshots=False)
        assert task == result.instruction and len(shots) == len(actions) + 1
        assert actions == [line for _, line in factual_history(trajectory.steps)]
        final_screen = out / "tasks" / key / trajectory.steps[-1].screenshot_file
        assert os.path.samefile(shots[-1], final_screen)
        truth[task] = result.success
    # a judge that answers each task's ground truth, given what the script read: the script's rate
    verdicts = [truth[task] for task, _, _ in readings.values()]
    assert sum(verdicts) / len(readings) == summary["success_rate"] == summary["success_rate_with_errors"]
