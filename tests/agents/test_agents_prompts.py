"""Prompt formats: Qwen2.5-VL tool calls read into actions with the smart_resize mapping,
UI-TARS thoughts, the prompts carrying the task."""

from __future__ import annotations

import json

import pytest

from gui_gym.agents.prompts import FORMATS, get_prompt_format, read_qwen_tool_call
from gui_gym import Action
from gui_gym.errors import ActionParseError, AgentError

SCREEN = (1280, 720)  # smart_resize -> 1288 x 728 model pixels


def call(**arguments) -> str:
    return "I act.\n<tool_call>\n" + json.dumps({"name": "computer_use", "arguments": arguments}) + "\n</tool_call>"


@pytest.mark.parametrize("arguments, expected", [
    ({"action": "left_click", "coordinate": [644, 364]}, Action.click(640, 360)),
    ({"action": "double_click", "coordinate": [0, 728]}, Action.double_click(0, 720)),
    ({"action": "right_click", "coordinate": [1288, 0]}, Action.right_click(1280, 0)),
    ({"action": "mouse_move", "coordinate": [322, 182]}, Action.move(320, 180)),
    ({"action": "left_click_drag", "start_coordinate": [0, 0], "coordinate": [644, 364]}, Action.drag(0, 0, 640, 360)),
    ({"action": "type", "text": "hello\n"}, Action.type("hello\n")),
    ({"action": "key", "keys": ["ctrl", "c"]}, Action.hotkey("ctrl", "c")),
    ({"action": "key", "keys": "Return"}, Action.key("enter")),
    ({"action": "scroll", "direction": "down", "amount": 3.0}, Action.scroll("down", 3)),
    ({"action": "scroll", "direction": "up", "coordinate": [644, 364]}, Action.scroll("up", 5, 640, 360)),
    ({"action": "wait", "time": 2}, Action.wait(2)),
    ({"action": "answer", "text": "42"}, Action.answer("42")),
    ({"action": "terminate", "status": "success"}, Action.done()),
    ({"action": "terminate", "status": "failure"}, Action.fail()),
])
def test_qwen_tool_calls_become_actions_in_screen_pixels(arguments, expected):
    assert read_qwen_tool_call(call(**arguments), SCREEN) == expected


def test_qwen_tool_calls_in_other_spellings_and_spaces():
    bare = json.dumps({"name": "computer_use", "arguments": json.dumps({"action": "left_click", "coordinate": [500, 500]})})
    assert read_qwen_tool_call(bare, SCREEN, "relative1000") == Action.click(640, 360)
    assert read_qwen_tool_call(call(action="left_click", coordinate=[10, 20]), SCREEN, "absolute") == Action.click(10, 20)


@pytest.mark.parametrize("text, message", [
    ("I will click the button.", "expected a <tool_call> holding a JSON computer_use call"),
    (call(action="left_click"), r"left_click: expected coordinate=\[x, y\], received None"),
    (call(action="left_click", coordinate=[1, "2"]), "expected coordinate="),
    (call(action="fly"), "unknown computer_use action 'fly'"),
    (call(action="key", keys=[]), r"computer_use key: expected keys=\[...\]"),
    ('<tool_call>{"name": "computer_use", "arguments": {"coordinate": [1, 2]}}</tool_call>', "with an 'action'"),
])
def test_malformed_tool_calls_are_parse_errors(text, message):
    with pytest.raises(ActionParseError, match=message):
        read_qwen_tool_call(text, SCREEN)


def test_the_formats_read_thoughts_and_carry_the_task():
    uitars, qwen = get_prompt_format("uitars"), get_prompt_format("qwen25vl")
    answer = "Thought: The button is at the top.\nAction: click(start_box='(10,20)')"
    assert uitars.thought(answer) == "The button is at the top."
    assert uitars.to_action(answer, SCREEN, "smart_resize") == answer  # the env parses UI-TARS text itself
    assert uitars.system("Buy milk", "computer", "English") is None
    prompt = uitars.first_user("Buy milk", "computer", "English")
    assert prompt.rstrip().endswith("Buy milk") and "hotkey(key='ctrl c')" in prompt
    assert "press_home()" in uitars.first_user("x", "mobile", "English")
    assert "<tools>" in qwen.system("Buy milk", "computer", "English")
    assert qwen.first_user("Buy milk", "computer", "English") == "Task: Buy milk"
    assert qwen.thought(call(action="wait")) == "I act."
    assert qwen.to_action("no call here", SCREEN, "smart_resize") == "no call here"  # the env reports it
    assert {name: f.action_format for name, f in FORMATS.items()} == {"uitars": "uitars", "qwen25vl": "json"}
    with pytest.raises(AgentError, match=r"unknown prompt format 'gpt'; expected one of \['qwen25vl', 'uitars'\]"):
        get_prompt_format("gpt")
