"""The function_call format: calls named after our kinds, both call shapes, and the translation
to and from another tool set (CUBE's stop action, an answer function)."""

from __future__ import annotations

import json

import pytest

from gui_gym.action_formats import format_action, parse_action, read_actions
from gui_gym.action_formats.function_call import Function, action_for, call_for
from gui_gym.actions import Action
from gui_gym.errors import ActionParseError

EVERY_KIND = [Action.click(10, 20), Action.double_click(1, 2), Action("triple_click", x=3, y=4), Action.right_click(5, 6),
              Action.move(7, 8), Action.drag(1, 2, 3, 4), Action("swipe", x=1, y=2, to_x=3, to_y=4),
              Action.scroll("down", 3, x=5, y=6), Action.type("hi\n"), Action.key("enter"), Action.hotkey("ctrl", "c"),
              Action("key_down", keys=("shift",)), Action("key_up", keys=("shift",)), Action.wait(2),
              Action.answer("42"), Action.done("all set"), Action.fail(), Action("goto", text="http://x.test/"),
              Action("navigate_back"), Action("open_app", text="Clock"), Action("long_press", x=1, y=2),
              Action("mouse_down"), Action("mouse_up")]
ARITHMETIC = (Function("submit_answer", ("answer",), ("integer",)), Function("final_step"))
"""arithmetic-cube's tool set, as CUBE describes it."""


@pytest.mark.parametrize("action", EVERY_KIND, ids=lambda action: action.kind)
def test_every_action_is_written_as_a_call_and_read_back_unchanged(action):
    call = format_action(action, "function_call")
    assert parse_action(call, "function_call") == action
    assert parse_action(json.dumps(call), "function_call") == action


def test_a_call_is_named_after_the_kind_with_the_fields_as_arguments():
    assert format_action(Action.click(10, 20), "function_call") == {"name": "click", "arguments": {"x": 10.0, "y": 20.0}}
    assert format_action(Action.key("enter"), "function_call") == {"name": "key", "arguments": {"key": "enter"}}
    assert format_action(Action.hotkey("ctrl", "c"), "function_call") == {"name": "hotkey",
                                                                        "arguments": {"keys": ["ctrl", "c"]}}


def test_the_chat_completions_shape_with_arguments_as_json_text_is_read():
    call = {"id": "call_1", "type": "function", "function": {"name": "type", "arguments": '{"text": "hello"}'}}
    assert parse_action(call, "function_call") == Action.type("hello")
    assert read_actions([call, {"name": "key", "arguments": {"key": "enter"}}], "function_call") == [
        Action.type("hello"), Action.key("enter")]


def test_a_bare_done_is_the_cube_stop_action_and_reads_back_as_done():
    assert call_for(Action.done()) == ("final_step", {})
    assert action_for("final_step", {}) == Action.done()


def test_an_answer_goes_to_the_answer_function_of_another_tool_set_in_its_declared_type():
    assert call_for(Action.answer("42"), ARITHMETIC) == ("submit_answer", {"answer": 42})
    assert call_for(Action.done("7"), ARITHMETIC) == ("submit_answer", {"answer": 7})
    assert action_for("submit_answer", {"answer": 42}, ARITHMETIC) == Action.answer("42")
    with pytest.raises(ActionParseError, match=r"^submit_answer takes an integer, received 'forty-two'"):
        call_for(Action.answer("forty-two"), ARITHMETIC)


def test_an_action_a_tool_set_cannot_carry_out_names_what_it_offers():
    with pytest.raises(ActionParseError, match=r"no function for a click action; it offers \['final_step', 'submit_answer'\]"):
        call_for(Action.click(1, 2), ARITHMETIC)
    with pytest.raises(ActionParseError, match=r"no function 'launch_missiles' in this tool set"):
        action_for("launch_missiles", {}, ARITHMETIC)


@pytest.mark.parametrize("call, message", [
    ({"arguments": {}}, r"a function call needs a 'name'"),
    ({"name": "click", "arguments": "[1, 2]"}, r"the arguments of click must be an object"),
    ({"name": "click", "arguments": {"kind": "type", "x": 1, "y": 2}}, r"click: 'kind' is the function's name"),
    ({"name": "click", "arguments": {"x": 1}}, r"click"),
    ([], r"received an empty list"),
    ("not json", r"function call"),
])
def test_a_malformed_call_is_an_action_parse_error(call, message):
    with pytest.raises(ActionParseError, match=message):
        read_actions(call, "function_call")
