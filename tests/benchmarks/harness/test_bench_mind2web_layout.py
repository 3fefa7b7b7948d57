"""The Online-Mind2Web v2 layout written from a recorded episode: exact keys, consecutive
steps with their screenshots (hard links to the episode's, on a local run and a Ray run's
driver alike), factual actions only, the answer kept out of the facts."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PIL import Image

from gui_gym.benchmarks.harness.mind2web_layout import SCHEMA_VERSION, write_from_episode
from gui_gym.benchmarks.harness.ray_runner import place_episode
from gui_gym.benchmarks.harness.results import ResultsStore
from gui_gym.suites.mind2web.history import describe_action

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
        assert entry["screenshot"] == f"trajectory/{n}_screenshot.png"
    shots = {n: np.asarray(Image.open(dest / h["screenshot"]))[0, 0, 0] for n, h in enumerate(history)}
    assert shots == {0: 1, 1: 3, 2: 4, 3: 5}  # each the screen after its step; the last the final screen
    assert os.path.samefile(dest / history[0]["screenshot"], source / "step_0001.png")  # shared, not copied


def test_a_ray_driver_places_the_task_folder_and_links_the_layout_to_it(tmp_path):
    source = _episode(tmp_path / "worker" / "tasks" / "shop.price__seed0",
                      [({"kind": "click", "x": 5, "y": 6}, None, None), ({"kind": "answer", "text": "$3"}, None, None)],
                      answer="$3")
    files = {p.relative_to(tmp_path / "worker").as_posix(): p.read_bytes() for p in source.iterdir()}
    store = ResultsStore(tmp_path / "run")
    place_episode(store, "shop.price__seed0", files, reference_length=2)
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
