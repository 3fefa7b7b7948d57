"""The content-hash disk cache: a repeated question costs no request, a changed one does."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gui_gym.errors import JudgeError
from gui_gym.judges.cache import CachedJudge
from gui_gym.models.chat import Message
from gui_gym.models.openai_client import OpenAIClient
from tests.fakes.chat_server import ChatServer, Reply


@pytest.fixture
def server():
    server = ChatServer(lambda request: f"answer {len(server.requests)}")
    with server:
        yield server


def question(pixel: int = 0, text: str = "Is the form sent?") -> list[Message]:
    screenshot = np.zeros((32, 48, 3), np.uint8)
    screenshot[0, 0, 0] = pixel
    return [Message.system("You judge."), Message.user(text, screenshot)]


def test_a_repeated_question_is_answered_from_disk(server, tmp_path):
    judge = CachedJudge(OpenAIClient("m", server.base_url), tmp_path)
    first = judge.complete(question(), seed=1)
    assert judge.complete(question(), seed=1) == first
    assert (judge.hits, judge.misses, len(server.requests)) == (1, 1, 1)
    again = CachedJudge(OpenAIClient("m", server.base_url), tmp_path)  # a new process, the same folder
    assert again.complete(question(), seed=1) == first and len(server.requests) == 1
    judge.close()
    again.close()


@pytest.mark.parametrize("change", ["seed", "pixel", "text", "model"])
def test_any_change_in_the_question_misses(server, tmp_path, change):
    judge = CachedJudge(OpenAIClient("m", server.base_url), tmp_path)
    judge.complete(question(), seed=1)
    if change == "model":
        judge = CachedJudge(OpenAIClient("other", server.base_url), tmp_path)
    judge.complete(question(pixel=int(change == "pixel"), text="Is it sent?" if change == "text" else "Is the form sent?"),
                   seed=2 if change == "seed" else 1)
    assert len(server.requests) == 2
    judge.close()


def test_a_damaged_entry_is_a_miss_and_is_rewritten(server, tmp_path):
    judge = CachedJudge(OpenAIClient("m", server.base_url), tmp_path)
    judge.complete(question())
    (entry,) = [p for p in tmp_path.rglob("*.json")]
    entry.write_text("{not json")
    answer = judge.complete(question())
    assert len(server.requests) == 2 and json.loads(entry.read_text())["answer"] == answer
    judge.close()


def test_errors_are_not_cached(tmp_path):
    with ChatServer([Reply(status=400), "now it works"]) as server:
        judge = CachedJudge(OpenAIClient("m", server.base_url), tmp_path)
        with pytest.raises(JudgeError):
            judge.complete(question())
        assert judge.complete(question()) == "now it works"
        judge.close()
    assert len(server.requests) == 2


def test_only_judges_can_be_cached(tmp_path):
    with pytest.raises(TypeError, match=r"expected a ChatModel \(identity and complete\(messages, seed=...\)\), received str"):
        CachedJudge("gpt", tmp_path)
