"""Structured answers out of free text, and asking again when the model strays."""

from __future__ import annotations

import pytest

from gui_gym.errors import JudgeFormatError
from gui_gym.judges.parsing import ask, extract_json_object, parse_fields, parse_flag, parse_flags
from gui_gym.models.chat import Message
from gui_gym.models.openai_client import OpenAIClient
from tests.fakes.chat_server import ChatServer


@pytest.mark.parametrize("text", [
    '{"met": [true]}',
    'Sure.\n```json\n{"met": [true]}\n```\nDone.',
    'Reasoning: the form is sent, so {"met": [true]} is my verdict.',
    '```\n{"met": [true]}\n```',
])
def test_json_object_is_found_in_prose_and_fences(text):
    assert extract_json_object(text) == {"met": [True]}


def test_no_json_object_is_a_format_error_carrying_the_answer():
    with pytest.raises(JudgeFormatError, match="expected a JSON object in the answer, received 'all good'") as info:
        extract_json_object("all good")
    assert info.value.answer == "all good"
    with pytest.raises(JudgeFormatError, match="expected a JSON object"):
        extract_json_object("[1, 2]")


def test_fields_are_read_from_key_value_lines():
    text = "Thoughts: the page shows the receipt.\n**Status**: success\n"
    assert parse_fields(text, ["Thoughts", "Status"]) == {"Thoughts": "the page shows the receipt.", "Status": "success"}
    with pytest.raises(JudgeFormatError, match=r"expected lines Status: \.\.\. in the answer"):
        parse_fields("Thoughts: hmm", ["Thoughts", "Status"])


@pytest.mark.parametrize("value, expected", [
    (True, True), (0, False), ("Yes", True), ("no.", False), ("not met", False), ("met", True),
    ("yes, the receipt is shown", True), ("False", False),
])
def test_flags_read_booleans_and_words(value, expected):
    assert parse_flag(value) is expected


@pytest.mark.parametrize("value", ["maybe", 2, None, "partially"])
def test_undecided_flags_are_format_errors(value):
    with pytest.raises(JudgeFormatError, match="expected true/false"):
        parse_flag(value)


def test_flags_from_json_or_numbered_lines_with_exact_count():
    assert parse_flags('{"met": [true, "no", 1]}', "met", 3) == [True, False, True]
    assert parse_flags("1. yes\n2) no\n3: met", "met", 3) == [True, False, True]
    with pytest.raises(JudgeFormatError, match="expected 'met' to be a list of 3 true/false values, received 2 values"):
        parse_flags('{"met": [true, false]}', "met", 3)
    with pytest.raises(JudgeFormatError, match=r"or numbered lines 1\.\.3 with yes/no"):
        parse_flags("1: yes\n3: no", "met", 3)


def test_ask_shows_the_model_its_error_and_asks_again():
    with ChatServer(["I think it is fine", '{"met": [false]}']) as server:
        judge = OpenAIClient("m", server.base_url)
        flags = ask(judge, [Message.user("met?")], lambda text: parse_flags(text, "met", 1), attempts=3, seed=7)
        judge.close()
    assert flags == [False]
    first, second = (request.body for request in server.requests)
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert second["messages"][1]["content"] == "I think it is fine"
    assert "could not be read: expected a JSON object" in second["messages"][2]["content"]
    assert first["seed"] == second["seed"] == 7


def test_ask_gives_up_with_every_answer_recorded():
    with ChatServer(["nope", "still nope"]) as server:
        judge = OpenAIClient("m", server.base_url)
        with pytest.raises(JudgeFormatError, match=r"answered off-format 2 time\(s\)") as info:
            ask(judge, [Message.user("met?")], extract_json_object, attempts=2)
        judge.close()
    assert info.value.answer == "nope\n---\nstill nope"
    assert len(server.requests) == 2
