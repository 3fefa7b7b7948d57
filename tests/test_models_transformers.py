"""The local transformers chat model on a tiny randomly initialised Qwen2.5-VL model, built from a
config with a character-level tokenizer (`gui_gym.models.tiny_qwen`) and saved to a folder: nothing
is downloaded."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gui_gym.errors import MissingResourceError
from gui_gym.models.chat import Message
from gui_gym.models.tiny_qwen import build_tiny_qwen25_vl
from gui_gym.models.transformers_model import TransformersModel


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny-qwen25-vl")
    build_tiny_qwen25_vl(folder)
    return folder


QUESTION = [Message.system("You judge."),
            Message.user("Start:", np.full((60, 90, 3), 30, np.uint8), " End:", np.full((300, 500, 3), 220, np.uint8),
                         " Is the form sent? Answer {\"met\": [..]}")]


@pytest.mark.slow
def test_the_local_judge_answers_questions_with_images(model_path):
    judge = TransformersModel(model_path, max_new_tokens=12, max_image_side=112)
    answer = judge.complete(QUESTION)
    assert isinstance(answer, str) and answer == judge.complete(QUESTION)  # greedy decoding repeats itself
    assert judge.identity.startswith("transformers:") and str(model_path.resolve()) in judge.identity
    assert judge.complete([Message.user("text only")]) is not None


@pytest.mark.slow
def test_sampling_is_reproducible_per_seed(model_path):
    judge = TransformersModel(model_path, temperature=1.5, max_new_tokens=16)
    answers = {seed: judge.complete(QUESTION, seed=seed) for seed in range(4)}
    assert judge.complete(QUESTION, seed=2) == answers[2]
    assert len(set(answers.values())) > 1


def test_a_folder_without_a_checkpoint_is_named(tmp_path):
    with pytest.raises(MissingResourceError, match=f"no checkpoint at {tmp_path}: expected a folder with config.json"):
        TransformersModel(tmp_path)


def test_importing_the_judges_imports_neither_torch_nor_transformers():
    code = ("import sys, gui_gym, gui_gym.judges, gui_gym.wrappers.progress, gui_gym.wrappers.subtasks; "
            "print('torch' in sys.modules, 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
