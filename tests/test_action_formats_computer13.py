"""OSWorld computer_13 dicts in and out."""

from __future__ import annotations

import json

import pytest

from gui_gym.action_formats import computer13, format_action, parse_action
from gui_gym.actions import Action
from gui_gym.errors import ActionParseError


def nested(action_type: str, **params):
    return {"action_type": action_type, "parameters": params}


@pytest.mark.parametrize("value, expected", [
    (nested("MOVE_TO", x=1, y=2), [Action.move(1, 2)]),
    ({"action_type": "MOVE_TO", "x": 1.5, "y": 2}, [Action.move(1.5, 2)]),
    (nested("CLICK", x=1, y=2), [Action.click(1, 2)]),
    ({"action_type": "CLICK", "x": 1, "y": 2, "button": "left", "num_clicks": 1}, [Action.click(1, 2)]),
    (nested("CLICK", x=1, y=2, num_clicks=2), [Action.double_click(1, 2)]),
    (nested("CLICK", x=1, y=2, num_clicks=3, button="left"), [Action("triple_click", x=1, y=2)]),
    (nested("CLICK", x=1, y=2, button="right"), [Action.right_click(1, 2)]),
    (nested("CLICK", x=1, y=2, button="middle", num_clicks=1), [Action("click", x=1, y=2, button="middle")]),
    (nested("CLICK"), [Action("mouse_down"), Action("mouse_up")]),
    (nested("CLICK", button="right"), [Action("mouse_down", button="right"), Action("mouse_up", button="right")]),
    ([nested("MOVE_TO", x=5, y=6), nested("CLICK", num_clicks=2)], [Action.move(5, 6), Action.double_click(5, 6)]),
    (nested("RIGHT_CLICK", x=1, y=2), [Action.right_click(1, 2)]),
    (nested("RIGHT_CLICK"), [Action("mouse_down", button="right"), Action("mouse_up", button="right")]),
    (nested("DOUBLE_CLICK", x=1, y=2), [Action.double_click(1, 2)]),
    (nested("MOUSE_DOWN"), [Action("mouse_down")]),
    (nested("MOUSE_UP", button="middle"), [Action("mouse_up", button="middle")]),
    ([nested("MOVE_TO", x=1, y=2), nested("MOUSE_DOWN", button="left")], [Action("mouse_down", x=1, y=2)]),
    (nested("DRAG_TO", x=7, y=8), [Action("mouse_down"), Action.move(7, 8), Action("mouse_up")]),
    ([nested("MOVE_TO", x=5, y=6), nested("DRAG_TO", x=7, y=8)], [Action.drag(5, 6, 7, 8)]),
    ([nested("CLICK", x=5, y=6), nested("DRAG_TO", x=7, y=8)], [Action.click(5, 6), Action.drag(5, 6, 7, 8)]),
    (nested("SCROLL", dx=0, dy=3), [Action.scroll("up", 3)]),
    (nested("SCROLL", dx=0, dy=-2), [Action.scroll("down", 2)]),
    ({"action_type": "SCROLL", "dx": 4}, [Action.scroll("right", 4)]),
    (nested("SCROLL", dx=-1, dy=-5), [Action.scroll("left", 1), Action.scroll("down", 5)]),
    ([nested("MOVE_TO", x=9, y=9), nested("SCROLL", dx=0, dy=-5)], [Action.scroll("down", 5, x=9, y=9)]),
    (nested("TYPING", text="it's <b>&|</b>\n"), [Action.type("it's <b>&|</b>\n")]),
    (nested("PRESS", key="Return"), [Action.key("enter")]),
    (nested("KEY_DOWN", key="shift"), [Action("key_down", keys=("shift",))]),
    (nested("KEY_UP", key="shift"), [Action("key_up", keys=("shift",))]),
    (nested("HOTKEY", keys=["ctrl", "c"]), [Action.hotkey("ctrl", "c")]),
    (nested("HOTKEY", keys=["win"]), [Action.key("meta")]),
    ({"action_type": "WAIT"}, [Action("wait")]),
    (nested("DONE"), [Action.done()]),
    ({"action_type": "FAIL", "parameters": None}, [Action.fail()]),
    ({"action_type": "click", "x": 1, "y": 2}, [Action.click(1, 2)]),
    ("DONE", [Action.done()]),
    (" WAIT ", [Action("wait")]),
    (["FAIL"], [Action.fail()]),
    ('{"action_type": "CLICK", "x": 1, "y": 2}', [Action.click(1, 2)]),
    ('[{"action_type": "TYPING", "text": "a"}, {"action_type": "PRESS", "key": "enter"}]',
     [Action.type("a"), Action.key("enter")]),
    ('```json\n{"action_type": "PRESS", "key": "tab"}\n```', [Action.key("tab")]),
])
def test_parse_many(value, expected):
    assert computer13.parse_many(value) == expected


def test_parse_requires_exactly_one():
    assert computer13.parse([nested("MOVE_TO", x=1, y=2), nested("DRAG_TO", x=3, y=4)]) == Action.drag(1, 2, 3, 4)
    with pytest.raises(ActionParseError, match=r"expected exactly one computer_13 action, received 3 actions"):
        computer13.parse(nested("DRAG_TO", x=3, y=4))


@pytest.mark.parametrize("action, written", [
    (Action.click(10.4, 20.6), nested("CLICK", button="left", x=10, y=21, num_clicks=1)),
    (Action("triple_click", x=1, y=2), nested("CLICK", button="left", x=1, y=2, num_clicks=3)),
    (Action.double_click(1, 2), nested("DOUBLE_CLICK", x=1, y=2)),
    (Action.right_click(1, 2), nested("RIGHT_CLICK", x=1, y=2)),
    (Action.move(1, 2), nested("MOVE_TO", x=1, y=2)),
    (Action.drag(1, 2, 3, 4), [nested("MOVE_TO", x=1, y=2), nested("DRAG_TO", x=3, y=4)]),
    (Action.scroll("down", 3), nested("SCROLL", dx=0, dy=-3)),
    (Action.scroll("right", 2, x=5, y=6), [nested("MOVE_TO", x=5, y=6), nested("SCROLL", dx=2, dy=0)]),
    (Action("mouse_down"), nested("MOUSE_DOWN", button="left")),
    (Action.type("hi"), nested("TYPING", text="hi")),
    (Action.key("meta"), nested("PRESS", key="win")),
    (Action.hotkey("ctrl", "c"), nested("HOTKEY", keys=["ctrl", "c"])),
    (Action("key_up", keys=("alt",)), nested("KEY_UP", key="alt")),
    (Action.wait(3), {"action_type": "WAIT"}),
    (Action.done("text is not written"), {"action_type": "DONE"}),
    (Action.fail(), {"action_type": "FAIL"}),
])
def test_format(action, written):
    assert computer13.format(action) == written
    assert format_action(action, "computer_13") == written


EXPRESSIBLE = [
    Action.click(10, 20), Action("click", x=10, y=20, button="middle"), Action.double_click(1, 2),
    Action("triple_click", x=1, y=2), Action.right_click(1, 2), Action.move(3, 4), Action("mouse_down"),
    Action("mouse_down", x=1, y=2, button="right"), Action("mouse_up", button="middle"), Action.drag(1, 2, 30, 40),
    Action.scroll("up", 2), Action.scroll("down", 7, x=10, y=10), Action.scroll("left", 1), Action.scroll("right", 3),
    Action.type("a'b\"c\\d\n"), Action.key("enter"), Action.key(" "), Action.hotkey("ctrl", "alt", "t"),
    Action.hotkey("meta", "d"), Action("key_down", keys=("shift",)), Action("key_up", keys=("shift",)),
    Action("wait"), Action.done(), Action.fail(),
]


@pytest.mark.parametrize("action", EXPRESSIBLE, ids=lambda a: a.kind)
def test_round_trip_action_dict_action(action):
    written = computer13.format(action)
    assert computer13.parse(written) == action
    assert computer13.parse(json.dumps(written)) == action
    assert parse_action(written, "computer_13") == action


@pytest.mark.parametrize("value", [
    {"action_type": "CLICK", "x": 10, "y": 20, "num_clicks": 2},
    {"action_type": "SCROLL", "dx": 0, "dy": -4},
    [{"action_type": "MOVE_TO", "x": 1, "y": 1}, {"action_type": "DRAG_TO", "x": 9, "y": 9}],
    {"action_type": "HOTKEY", "keys": ["ctrl", "shift", "esc"]},
    "DONE",
])
def test_round_trip_dict_action_dict(value):
    action = computer13.parse(value)
    assert computer13.parse(computer13.format(action)) == action


@pytest.mark.parametrize("action, match", [
    (Action.answer("x"), r"answer cannot be written as computer_13"),
    (Action.goto("https://a.b"), r"goto cannot be written as computer_13"),
    (Action("long_press", x=1, y=2), r"long_press cannot be written as computer_13"),
    (Action("navigate_home"), r"navigate_home cannot be written"),
    (Action.click_element(1), r"click on element 1 cannot be written as computer_13"),
    (Action("type", text="a", element=1), r"type on element 1 cannot be written"),
    (Action("type", text="a", x=1, y=2), r"type at a point cannot be written as computer_13"),
])
def test_format_unsupported(action, match):
    with pytest.raises(ActionParseError, match=match):
        computer13.format(action)


@pytest.mark.parametrize("value, match", [
    ('{"action_type": "CLICK", "x": "a"}', r"computer_13 \(CLICK\): x must be a number of screen pixels, received 'a'"),
    ('{"action_type": "CLICK", "x": "a", "y": 2}', r"x must be a number of screen pixels, received 'a'"),
    ({"action_type": "CLICK", "x": 1}, r"computer_13 \(CLICK\): needs both x and y"),
    ({"action_type": "MOVE_TO"}, r"computer_13 \(MOVE_TO\): needs both x and y"),
    ({"action_type": "DRAG_TO", "x": 1}, r"needs both x and y"),
    ({"action_type": "CLICK", "x": True, "y": 2}, r"x must be a number of screen pixels, received True"),
    ({"action_type": "CLICK", "x": 1, "y": 2, "button": "side"}, r"button must be 'left', 'middle' or 'right'"),
    ({"action_type": "CLICK", "x": 1, "y": 2, "num_clicks": 4}, r"num_clicks=4 with button 'left' has no canonical"),
    ({"action_type": "CLICK", "x": 1, "y": 2, "num_clicks": 2, "button": "right"}, r"num_clicks=2 with button 'right'"),
    ({"action_type": "CLICK", "x": 1, "y": 2, "num_clicks": "1"}, r"num_clicks='1'"),
    ({"action_type": "DOUBLE_CLICK"}, r"a double_click needs x and y"),
    ({"action_type": "CLICK", "num_clicks": 3}, r"a triple_click needs x and y"),
    ({"action_type": "SCROLL", "dx": 0, "dy": 0}, r"dx and dy are both 0"),
    ({"action_type": "SCROLL"}, r"dx and dy are both 0"),
    ({"action_type": "SCROLL", "dy": 1.5}, r"dy must be an int, received 1.5"),
    ({"action_type": "TYPING", "text": ""}, r"text must be a non-empty string"),
    ({"action_type": "TYPING"}, r"text must be a non-empty string, received None"),
    ({"action_type": "PRESS", "key": 13}, r"key must be a non-empty string, received 13"),
    ({"action_type": "HOTKEY", "keys": "ctrl+c"}, r"keys must be a non-empty list of key names, received 'ctrl\+c'"),
    ({"action_type": "HOTKEY", "keys": []}, r"keys must be a non-empty list"),
    ({"action_type": "CLICK", "x": 1, "y": 2, "clicks": 2}, r"computer_13 \(CLICK\) takes button, x, y, num_clicks; received unknown \['clicks'\]"),
    ({"action_type": "WAIT", "seconds": 3}, r"\(WAIT\) takes no parameters; received unknown \['seconds'\]"),
    ({"action_type": "CLICK", "parameters": {"x": 1, "y": 2}, "x": 1}, r"give parameters either under 'parameters' or flat"),
    ({"action_type": "CLICK", "parameters": [1, 2]}, r"'parameters' must be an object"),
    ({"action_type": "TAP", "x": 1, "y": 2}, r"unknown action_type 'TAP'; expected one of \['MOVE_TO', 'CLICK'"),
    ({"x": 1, "y": 2}, r"unknown action_type None"),
    ([{"action_type": "WAIT"}, 5], r"action 2: expected an object like"),
    ([{"action_type": "WAIT"}, {"action_type": "NOPE"}], r"action 2: unknown action_type 'NOPE'"),
    ("CLICK", r"received invalid JSON"),
    ("{'action_type': 'CLICK'}", r"received invalid JSON"),
    ("", r"received an empty string"),
    ([], r"received an empty list"),
    (None, r"received NoneType"),
    (42, r"received int"),
])
def test_malformed(value, match):
    with pytest.raises(ActionParseError, match=match):
        computer13.parse_many(value)
