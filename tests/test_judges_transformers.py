"""The local transformers judge on a tiny randomly initialised Qwen2.5-VL model, built here
from a config with a character-level tokenizer and saved to a folder: nothing is downloaded."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gui_gym.errors import MissingResourceError
from gui_gym.judges.base import Message
from gui_gym.judges.transformers_judge import TransformersJudge

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
           "<|video_pad|>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] %}{% if c['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def build_tiny_qwen25_vl(folder) -> None:
    """A 2-layer, 64-wide Qwen2.5-VL with a character vocabulary, as save_pretrained writes it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    vocab = {token: i for i, token in enumerate(SPECIAL + [chr(c) for c in range(32, 127)] + ["\n"])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<|endoftext|>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tokenizer.decoder = decoders.Fuse()
    tokenizer.add_special_tokens(SPECIAL)
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                            unk_token="<|endoftext|>", chat_template=CHAT_TEMPLATE).save_pretrained(folder)
    Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=112 * 112).save_pretrained(folder)
    ids = {name: vocab[f"<|{name}|>"] for name in ("image_pad", "video_pad", "vision_start", "vision_end", "im_end",
                                                   "endoftext")}
    config = Qwen2_5_VLConfig(
        text_config={"vocab_size": len(vocab), "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                     "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 4096,
                     "bos_token_id": ids["endoftext"], "eos_token_id": ids["im_end"], "pad_token_id": ids["endoftext"],
                     "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]}},
        vision_config={"depth": 2, "hidden_size": 64, "intermediate_size": 128, "num_heads": 4, "out_hidden_size": 64,
                       "fullatt_block_indexes": [1], "window_size": 56},
        image_token_id=ids["image_pad"], video_token_id=ids["video_pad"], vision_start_token_id=ids["vision_start"],
        vision_end_token_id=ids["vision_end"], eos_token_id=ids["im_end"], pad_token_id=ids["endoftext"])
    Qwen2_5_VLForConditionalGeneration(config).save_pretrained(folder)


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
    judge = TransformersJudge(model_path, max_new_tokens=12, max_image_side=112)
    answer = judge.complete(QUESTION)
    assert isinstance(answer, str) and answer == judge.complete(QUESTION)  # greedy decoding repeats itself
    assert judge.identity.startswith("transformers:") and str(model_path.resolve()) in judge.identity
    assert judge.complete([Message.user("text only")]) is not None


@pytest.mark.slow
def test_sampling_is_reproducible_per_seed(model_path):
    judge = TransformersJudge(model_path, temperature=1.5, max_new_tokens=16)
    answers = {seed: judge.complete(QUESTION, seed=seed) for seed in range(4)}
    assert judge.complete(QUESTION, seed=2) == answers[2]
    assert len(set(answers.values())) > 1


def test_a_folder_without_a_checkpoint_is_named(tmp_path):
    with pytest.raises(MissingResourceError, match=f"no checkpoint at {tmp_path}: expected a folder with config.json"):
        TransformersJudge(tmp_path)


def test_importing_the_judges_imports_neither_torch_nor_transformers():
    code = ("import sys, gui_gym, gui_gym.judges, gui_gym.wrappers.progress, gui_gym.wrappers.subtasks; "
            "print('torch' in sys.modules, 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
