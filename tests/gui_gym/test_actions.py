"""The canonical Action (validation, normalisation, dict form) and the plain JSON format."""

from __future__ import annotations

import doctest
import json

import pytest

import gui_gym.actions as actions_module
from gui_gym.action_formats import FORMATS, format_action, get_format, json_format, parse_action
from gui_gym.actions import DEFAULT_SCROLL_AMOUNT, KINDS, Action, normalize_key
from gui_gym.errors import ActionParseError, UsageError

ONE_OF_EACH = [
    Action.click(10, 20),
    Action("click", x=1, y=2, button="middle"),
    Action.click_element(4),
    Action.double_click(1, 2),
    Action("triple_click", x=1, y=2),
    Action.right_click(1, 2),
    Action.move(3, 4),
    Action("long_press", x=1, y=2, duration_s=1.5),
    Action("mouse_down", button="right"),
    Action("mouse_up", x=5, y=6),
    Action.drag(1, 2, 3, 4),
    Action("swipe", direction="up", x=5, y=5),
    Action("swipe", x=1, y=2, to_x=3, to_y=4),
    Action.scroll("down", 3, x=1, y=2),
    Action.type("hello\n"),
    Action("type", text="hi", element=2),
    Action("type", text="hi", x=3, y=4),
    Action.key("Return"),
    Action.hotkey("ctrl", "shift", "t"),
    Action("key_down", keys=("shift",)),
    Action("key_up", keys=("shift",)),
    Action.wait(2),
    Action.done("ok"),
    Action.fail(),
    Action.answer("42"),
    Action("open_app", text="Clock"),
    Action("navigate_back"),
    Action("navigate_home"),
    Action.goto("https://example.com"),
]


def test_every_kind_is_covered_by_the_samples():
    assert {a.kind for a in ONE_OF_EACH} == KINDS


@pytest.mark.parametrize("action", ONE_OF_EACH, ids=lambda a: a.kind)
def test_dict_round_trip(action):
    assert Action.from_dict(action.to_dict()) == action
    assert json.loads(json.dumps(action.to_dict())) == action.to_dict()


@pytest.mark.parametrize("action", ONE_OF_EACH, ids=lambda a: a.kind)
def test_json_format_round_trip(action):
    text = json_format.format(action)
    assert json_format.parse(text) == action
    assert format_action(action) == text
    assert parse_action(text) == action


def test_coordinates_become_floats_and_left_button_has_one_spelling():
    action = Action("click", x=1, y=2, button="left")
    assert (action.x, action.y, action.button) == (1.0, 2.0, None)
    assert isinstance(action.x, float)
    assert Action.click(1, 2, button="right").kind == "right_click"


def test_scroll_amount_defaults():
    assert Action("scroll", direction="up").amount == DEFAULT_SCROLL_AMOUNT


@pytest.mark.parametrize("key, expected", [
    ("Control", "ctrl"), ("RETURN", "enter"), ("escape", "esc"), ("cmd", "meta"), ("win", "meta"),
    ("page_down", "pagedown"), ("PgUp", "pageup"), ("space", " "), ("A", "a"), ("F5", "f5"),
    ("ctrlleft", "ctrl"), ("arrow-up", "up"), ("\n", "enter"), ("\t", "tab"), ("+", "+"),
])
def test_normalize_key(key, expected):
    assert normalize_key(key) == expected


def test_keys_are_normalised_in_actions():
    assert Action.hotkey("Control", "C").keys == ("ctrl", "c")


def test_action_properties():
    assert Action.done().is_terminal and Action.answer("x").is_terminal and not Action.wait().is_terminal
    assert Action.click(1, 2).point == (1.0, 2.0)
    assert Action.click_element(3).point is None
    assert repr(Action.click(1, 2)) == "Action(kind='click', x=1.0, y=2.0)"


def test_docstring_examples():
    assert doctest.testmod(actions_module).failed == 0


@pytest.mark.parametrize("make, match", [
    (lambda: Action("jump"), r"unknown action kind 'jump'"),
    (lambda: Action("click"), r"click: needs x,y or an element index"),
    (lambda: Action("click", x=1), r"click: x and y must be given together"),
    (lambda: Action("click", x=1, y=2, element=3), r"click: give either x,y or element, not both"),
    (lambda: Action("click", x=float("nan"), y=2), r"click: x must be a finite number"),
    (lambda: Action("click", x=True, y=2), r"click: x must be a finite number"),
    (lambda: Action("click", x="1", y=2), r"click: x must be a finite number"),
    (lambda: Action("click", x=1, y=2, button="right"), r"a right-button click is kind 'right_click'"),
    (lambda: Action("double_click", x=1, y=2, button="middle"), r"double_click: takes no button"),
    (lambda: Action("click", x=1, y=2, button="side"), r"button must be one of"),
    (lambda: Action("click", element=-1), r"element must be a non-negative int"),
    (lambda: Action("click", x=1, y=2, text="a"), r"click: unexpected field\(s\) \['text'\]"),
    (lambda: Action("drag", x=1, y=2), r"drag: needs x, y, to_x and to_y"),
    (lambda: Action("swipe", direction="up", to_x=1, to_y=2), r"swipe: give a direction or an end point"),
    (lambda: Action("scroll", direction="sideways"), r"scroll: direction must be one of"),
    (lambda: Action("scroll", direction="up", amount=0), r"scroll: amount must be a positive int"),
    (lambda: Action("type"), r"type: needs a non-empty text"),
    (lambda: Action("type", text="a", x=1), r"type: x and y must be given together"),
    (lambda: Action("type", text="a", x=1, y=2, element=0), r"type: give either x,y or element"),
    (lambda: Action("key", keys=("a", "b")), r"key: takes exactly one key"),
    (lambda: Action("hotkey", keys=()), r"hotkey: needs at least one key"),
    (lambda: Action("hotkey", keys="ctrl"), r"keys must be a sequence of key names"),
    (lambda: Action("key", keys=("",)), r"expected a non-empty key name"),
    (lambda: Action.wait(61), r"wait: duration_s must be within \[0, 60\]"),
    (lambda: Action("answer"), r"answer: needs a non-empty text"),
    (lambda: Action("navigate_back", text="x"), r"navigate_back: unexpected field"),
])
def test_invalid_actions(make, match):
    with pytest.raises(ActionParseError, match=match):
        make()


def test_json_parse_many():
    text = json.dumps([{"kind": "click", "x": 1, "y": 2}, {"kind": "type", "text": "a"}])
    assert json_format.parse_many(text) == [Action.click(1, 2), Action.type("a")]
    assert json_format.parse_many({"kind": "wait"}) == [Action("wait")]
    assert json_format.parse([{"kind": "wait"}]) == Action("wait")


@pytest.mark.parametrize("value, match", [
    ("", r"invalid JSON"),
    ("{kind: click}", r"invalid JSON"),
    (None, r"expected an action object, received NoneType"),
    (42, r"expected an action object, received int"),
    ("[]", r"received an empty list"),
    ('{"x": 1}', r"action object has no 'kind'"),
    ('{"kind": "click", "x": 1, "y": 2, "colour": "red"}', r"unknown action field\(s\) \['colour'\]"),
    ('{"kind": "hotkey", "keys": "ctrl c"}', r"keys must be a list of key names"),
    ('{"kind": "click", "x": "a", "y": 2}', r"x must be a finite number"),
    ('[{"kind": "wait"}, {"kind": "wait"}]', r"expected exactly one JSON action object, received a list of 2"),
])
def test_json_malformed(value, match):
    with pytest.raises(ActionParseError, match=match):
        json_format.parse(value)


def test_registry():
    assert get_format("json") is json_format
    for name in FORMATS:
        module = get_format(name)
        assert callable(module.parse) and callable(module.parse_many) and callable(module.format)
    with pytest.raises(UsageError, match=r"unknown action format 'yaml'"):
        get_format("yaml")


def test_parse_action_passes_actions_through():
    action = Action.click(1, 2)
    assert parse_action(action, "uitars") is action
