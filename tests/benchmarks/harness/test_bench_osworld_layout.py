"""OSWorld's own results layout written from recorded episodes: the folder names, ``result.txt``
and ``traj.jsonl`` as OSWorld's runner writes them, errors left without a score; and a fresh
OSWorld run on the local sample read as OSWorld's ``show_result.py`` reads it, with the score
gui-bench reports."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PIL import Image

from gui_gym.benchmarks.cli import main
from gui_gym.benchmarks.harness.osworld_layout import OSWorldLayout, write_from_episode
from gui_gym.errors import HarnessError

LAYOUT = OSWorldLayout("pyautogui", "screenshot", "my-model")


def _episode(folder, steps, *, error=None, score=1.0, seed=0):
    folder.mkdir(parents=True)
    records = [{"step": 0, "event": "reset", "screenshot_file": "step_0000.webp", "time": "2026-01-02T03:04:05.000+00:00"}]
    for n, action in enumerate(steps, 1):
        records.append({"step": n, "action": action, "response": f"Thought: {n}\nAction: {action}", "reward": 0.0,
                        "terminated": n == len(steps), "truncated": False, "info": {"step": n},
                        "screenshot_file": f"step_{n:04d}.webp", "time": f"2026-01-02T03:04:0{5 + n}.250+00:00"})
    for record in records:
        Image.fromarray(np.full((4, 6, 3), record["step"], np.uint8)).save(folder / record["screenshot_file"], "WEBP",
                                                                            lossless=True)
    (folder / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "result.json").write_text(json.dumps({"task_id": "abc-123", "seed": seed, "domain": "os", "score": score,
                                                    "success": score == 1.0, "error": error}))
    return folder


def show_result_scores(result_dir, action_space, observation_type, model):
    """``{domain: [score, ...]}`` as OSWorld's ``show_result.py`` (``get_result``) reads a result
    folder, and nothing more: it walks ``<result_dir>/<action_space>/<observation_type>/<model>/``,
    its domain folders and their example folders, and takes the float in every
    ``result.txt`` (an example folder without one is not counted). OSWorld's scripts are not on a
    package registry (desktop-env ships the environment only), so this mirrors them."""
    target_dir = os.path.join(result_dir, action_space, observation_type, model)
    if not os.path.exists(target_dir):
        return None  # "New experiment, no result yet."
    domain_result = {}
    for domain in os.listdir(target_dir):
        domain_path = os.path.join(target_dir, domain)
        if os.path.isdir(domain_path):
            for example_id in os.listdir(domain_path):
                example_path = os.path.join(domain_path, example_id)
                if os.path.isdir(example_path) and "result.txt" in os.listdir(example_path):
                    with open(os.path.join(example_path, "result.txt")) as f:
                        domain_result.setdefault(domain, []).append(float(f.read()))
    return domain_result


def test_an_episode_is_written_as_osworlds_runner_writes_it(tmp_path):
    source = _episode(tmp_path / "tasks" / "abc-123__seed0", ["pyautogui.click(1, 2)", "DONE"], score=0.5)
    dest = write_from_episode(source, LAYOUT, tmp_path / "run")
    assert dest == tmp_path / "run" / "osworld" / "pyautogui" / "screenshot" / "my-model" / "os" / "abc-123"
    assert (dest / "result.txt").read_text() == "0.5\n"
    lines = [json.loads(line) for line in (dest / "traj.jsonl").read_text().splitlines()]
    assert [set(line) for line in lines] == [{"step_num", "action_timestamp", "action", "response", "reward", "done",
                                              "info", "screenshot_file"}] * 2
    assert [line["step_num"] for line in lines] == [1, 2] and [line["done"] for line in lines] == [False, True]
    assert lines[0]["action"] == "pyautogui.click(1, 2)" and lines[1]["response"] == "Thought: 2\nAction: DONE"
    for line in lines:
        assert line["screenshot_file"] == f"step_{line['step_num']}_{line['action_timestamp']}.webp"
        assert "@" in line["action_timestamp"]
    assert os.path.samefile(dest / lines[1]["screenshot_file"], source / "step_0002.webp")  # shared, not copied
    assert show_result_scores(tmp_path / "run" / "osworld", "pyautogui", "screenshot", "my-model") == {"os": [0.5]}


def test_an_error_has_its_steps_and_no_score_and_a_rewrite_replaces_the_earlier_attempt(tmp_path):
    source = _episode(tmp_path / "ok", ["DONE"])
    write_from_episode(source, LAYOUT, tmp_path / "run")
    failed = _episode(tmp_path / "failed", ["pyautogui.click(1, 2)"], error="worker process died", score=None)
    dest = write_from_episode(failed, LAYOUT, tmp_path / "run")
    lines = [json.loads(line) for line in (dest / "traj.jsonl").read_text().splitlines()]
    assert lines[-1] == {"Error": "worker process died"} and len(lines) == 2
    assert not (dest / "result.txt").exists()  # unfinished to OSWorld's tools, left out of their rates
    assert show_result_scores(tmp_path / "run" / "osworld", "pyautogui", "screenshot", "my-model") == {}
    assert write_from_episode(tmp_path / "nothing", LAYOUT, tmp_path / "run") is None


def test_repeated_tasks_get_a_result_folder_per_seed_and_names_stay_folder_names(tmp_path):
    layout = OSWorldLayout("pyautogui", "screenshot", "m", per_seed=True)
    for seed in (0, 1):
        write_from_episode(_episode(tmp_path / f"e{seed}", ["DONE"], seed=seed), layout, tmp_path / "run")
    for seed in (0, 1):
        assert show_result_scores(tmp_path / "run" / "osworld" / f"seed{seed}", "pyautogui", "screenshot", "m") == \
            {"os": [1.0]}
    with pytest.raises(ValueError, match="model must be a folder name, received '../up'"):
        OSWorldLayout("pyautogui", "screenshot", "../up")
    with pytest.raises(HarnessError, match="field osworld_layout: .*action_space"):
        OSWorldLayout.from_dict({"observation_type": "screenshot", "model": "m"})


@pytest.mark.slow
def test_show_results_reading_of_a_fresh_osworld_run_gives_the_score_gui_bench_reports(tmp_path):
    out = tmp_path / "run"
    env_args = ["provider=local", "tasks=sample", "screen_size=[640,480]", "accessibility=false", "shell=openbox"]
    tasks = "sample-os-infeasible-bluetooth,sample-os-write-greeting"  # the oracle: FAIL succeeds; one step is too few
    code = main(["run", "--env", "GUI/OSWorld-v0", *(f"--env-arg={a}" for a in env_args), "--tasks", tasks,
                 "--max-steps", "1", "--out", str(out), "--osworld-model", "oracle-1step"])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    run = json.loads((out / "run.json").read_text())
    assert run["osworld_layout"] == {"action_space": "pyautogui", "observation_type": "screenshot",
                                     "model": "oracle-1step", "per_seed": False}
    scores = show_result_scores(out / "osworld", "pyautogui", "screenshot", "oracle-1step")
    assert sorted(scores) == sorted(summary["by_domain"]) == ["os"]
    every = [s for domain in scores.values() for s in domain]
    assert len(every) == summary["overall"]["tasks"] - summary["overall"]["errors"] == 2
    assert sum(every) / len(every) == pytest.approx(summary["overall"]["mean_score"])
    assert 0 < summary["overall"]["successes"] < 2, summary  # a mixed run
    for example in (out / "osworld" / "pyautogui" / "screenshot" / "oracle-1step" / "os").iterdir():
        lines = [json.loads(line) for line in (example / "traj.jsonl").read_text().splitlines()]
        assert lines and all((example / line["screenshot_file"]).is_file() for line in lines)
