"""The sample generator on a real browser env (GUI/Demo-v0): deterministic by seed, questions
from the app state (including a task's own `sample_questions`), loadable and solvable."""

from __future__ import annotations

import json
import random

import gymnasium as gym
import pytest

from gui_gym.suites.demo import ReadCode
from gui_gym.benchmarks.samples.mmbench import generate, main, write_sample


def _read(root):
    folder = root / "MMBench-GUI"
    images = {p.name: p.read_bytes() for p in sorted((folder / "offline_images" / "os_web").iterdir())}
    return (json.loads((folder / "L1_annotations.json").read_text()),
            json.loads((folder / "L2_annotations.json").read_text()), images)


@pytest.fixture
def code_questions(monkeypatch):
    """Demo's read-code task offers a question whose answer is its server-side code."""
    def sample_questions(self, backend):
        wrong = [str((int(self.code) + k) % 10**6).zfill(6) for k in (1, 7, 13)]
        return [{"question": "Which one-time code does the page show?", "answer": self.code,
                 "distractors": wrong, "difficulty": "hard", "explanation": "It is in bold."}]
    monkeypatch.setattr(ReadCode, "sample_questions", sample_questions, raising=False)


@pytest.mark.slow
def test_generator_is_deterministic_and_its_output_solvable(tmp_path, code_questions, capsys):
    first = generate(tmp_path / "a", env_id="GUI/Demo-v0", seed=3, screens=3, max_steps=4, targets_per_screen=4)
    assert main(["--seed", "3", "--out", str(tmp_path / "b"), "--env", "GUI/Demo-v0", "--screens", "3",
                 "--max-steps", "4", "--targets-per-screen", "4"]) == 0
    assert "3 screens" in capsys.readouterr().out
    l1, l2, images = _read(tmp_path / "a")
    assert (l1, l2, images) == _read(tmp_path / "b")                       # same seed, same sample
    assert first["screens"] == len(images) == 3 and first["l2_targets"] == len(l2) > 0
    assert {r["image_path"] for r in l1 + l2} <= set(images)
    assert all(r["platform"] == "os_web" and r["app_name"] == "demo" and r["image_size"] == [1280, 720] for r in l1 + l2)
    offered = [g for r in l1 for g in r["groups"] if g["question"] == "Which one-time code does the page show?"]
    assert offered and all(g["options"][g["answer"]].isdigit() for g in offered)
    for env_id in ("GUI/MMBench-GUI-L1-v0", "GUI/MMBench-GUI-L2-v0"):
        env = gym.make(env_id, data_root=tmp_path / "a")
        for task_id in env.unwrapped.task_ids:
            env.reset(options={"task_id": task_id})
            assert env.step(env.unwrapped.oracle_action())[1] == 1.0, task_id
        env.close()


def test_generator_refuses_to_overwrite_a_foreign_folder(tmp_path):
    (tmp_path / "MMBench-GUI").mkdir()
    (tmp_path / "MMBench-GUI" / "precious.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match=r"MMBench-GUI exists and is not an MMBench-GUI sample"):
        write_sample([], tmp_path, random.Random(0), 1)
    assert (tmp_path / "MMBench-GUI" / "precious.txt").exists()


def test_a_malformed_env_arg_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(tmp_path), "--env-arg", "apps"])
    assert exit_info.value.code == 2 and "--env-arg: expected KEY=VALUE, received 'apps'" in capsys.readouterr().err
