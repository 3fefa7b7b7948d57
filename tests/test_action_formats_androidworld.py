"""AndroidWorld JSONAction dicts in and out."""

from __future__ import annotations

import json
import re

import pytest

from gui_gym.action_formats import androidworld, format_action, parse_action
from gui_gym.actions import Action
from gui_gym.errors import ActionParseError


@pytest.mark.parametrize("value, expected", [
    ({"action_type": "click", "index": 3}, Action.click_element(3)),
    ({"action_type": "click", "index": "3"}, Action.click_element(3)),
    ({"action_type": "click", "x": 10, "y": 20}, Action.click(10, 20)),
    ({"action_type": "click", "x": 10, "y": 20, "index": None, "text": None}, Action.click(10, 20)),
    ({"action_type": "double_tap", "index": 0}, Action("double_click", element=0)),
    ({"action_type": "long_press", "x": 1, "y": 2}, Action("long_press", x=1, y=2)),
    # AndroidWorld's scroll "down" swipes the finger up and reveals what is below: a desktop scroll down
    ({"action_type": "scroll", "direction": "down"}, Action.scroll("down")),
    ({"action_type": "scroll", "direction": "up", "index": 5}, Action("scroll", direction="up", element=5)),
    # swipe up/down name the finger's direction; AndroidWorld's left/right move it the other way
    ({"action_type": "swipe", "direction": "up"}, Action("swipe", direction="up")),
    ({"action_type": "swipe", "direction": "right"}, Action("swipe", direction="left")),
    ({"action_type": "input_text", "text": "hello", "index": 2}, Action("type", text="hello\n", element=2)),
    ({"action_type": "input_text", "text": "hello", "x": 5, "y": 6}, Action("type", text="hello\n", x=5, y=6)),
    ({"action_type": "input_text", "text": "it's <b>&|</b>"}, Action.type("it's <b>&|</b>\n")),
    ({"action_type": "input_text", "text": "a", "index": 1, "clear_text": False}, Action("type", text="a\n", element=1)),
    ({"action_type": "keyboard_enter"}, Action.key("enter")),
    ({"action_type": "navigate_home"}, Action("navigate_home")),
    ({"action_type": "navigate_back"}, Action("navigate_back")),
    ({"action_type": "open_app", "app_name": "Simple Calendar Pro"}, Action("open_app", text="Simple Calendar Pro")),
    ({"action_type": "status", "goal_status": "complete"}, Action.done()),
    ({"action_type": "status", "goal_status": "infeasible"}, Action.fail()),
    ({"action_type": "wait"}, Action("wait")),
    ({"action_type": "answer", "text": "It is 42."}, Action.answer("It is 42.")),
    ('{"action_type": "click", "index": 7}', Action.click_element(7)),
    ('```json\n{"action_type": "navigate_back"}\n```', Action("navigate_back")),
])
def test_parse(value, expected):
    assert androidworld.parse(value) == expected
    assert parse_action(value, "androidworld") == expected


def test_parse_many_and_exactly_one():
    value = '[{"action_type": "open_app", "app_name": "Files"}, {"action_type": "wait"}]'
    assert androidworld.parse_many(value) == [Action("open_app", text="Files"), Action("wait")]
    with pytest.raises(ActionParseError, match=r"expected exactly one AndroidWorld action, received 2"):
        androidworld.parse(value)


def test_input_text_without_submit():
    value = {"action_type": "input_text", "text": "hello", "index": 2}
    action = androidworld.parse(value, input_text_submits=False)
    assert action == Action("type", text="hello", element=2)
    assert androidworld.format(action, input_text_submits=False) == value


@pytest.mark.parametrize("action, written", [
    (Action.click(10.4, 20.6), {"action_type": "click", "x": 10, "y": 21}),
    (Action.click_element(3), {"action_type": "click", "index": 3}),
    (Action("long_press", x=1, y=2, duration_s=2.0), {"action_type": "long_press", "x": 1, "y": 2}),
    (Action.scroll("down", 9), {"action_type": "scroll", "direction": "down"}),
    (Action("type", text="hi\n", element=4), {"action_type": "input_text", "text": "hi", "index": 4}),
    (Action.key("enter"), {"action_type": "keyboard_enter"}),
    (Action.done("not written"), {"action_type": "status", "goal_status": "complete"}),
    (Action.fail("call_user"), {"action_type": "status", "goal_status": "infeasible"}),
    (Action.wait(3), {"action_type": "wait"}),
])
def test_format(action, written):
    assert androidworld.format(action) == written
    assert format_action(action, "androidworld") == written


EXPRESSIBLE = [
    Action.click(10, 20), Action.click_element(0), Action("double_click", x=1, y=2), Action("double_click", element=4),
    Action("long_press", x=3, y=4), Action("long_press", element=1), Action.scroll("up"),
    Action("scroll", direction="left", element=2), Action("swipe", direction="right"), Action("swipe", direction="down"),
    Action.type("hello world\n"), Action("type", text="a'b\"c\n", element=3),
    Action("type", text="x\n", x=1, y=2), Action.key("enter"), Action("navigate_home"), Action("navigate_back"),
    Action("open_app", text="Clock"), Action.done(), Action.fail(), Action("wait"), Action.answer("42"),
]


@pytest.mark.parametrize("action", EXPRESSIBLE, ids=lambda a: a.kind)
def test_round_trip_action_dict_action(action):
    written = androidworld.format(action)
    assert androidworld.parse(written) == action
    assert androidworld.parse(json.dumps(written)) == action


@pytest.mark.parametrize("action", [Action.scroll("down", x=5, y=5), Action("scroll", direction="up", element=0),
                                    Action("swipe", direction="up", x=1, y=2), Action("swipe", direction="left")])
def test_round_trip_with_intended_semantics(action):
    context = {"androidworld_semantics": "intended"}
    assert androidworld.parse(androidworld.format(action, **context), **context) == action


@pytest.mark.parametrize("value", [
    {"action_type": "click", "index": 12},
    {"action_type": "input_text", "text": "query", "x": 100, "y": 200},
    {"action_type": "scroll", "direction": "up"},
    {"action_type": "status", "goal_status": "infeasible"},
    {"action_type": "answer", "text": "Yes"},
])
def test_round_trip_dict_action_dict(value):
    assert androidworld.format(androidworld.parse(value)) == value


@pytest.mark.parametrize("action, match", [
    (Action.drag(1, 2, 3, 4), r"drag cannot be written as an AndroidWorld JSONAction"),
    (Action.right_click(1, 2), r"right_click cannot be written"),
    (Action.hotkey("ctrl", "c"), r"hotkey cannot be written"),
    (Action.key("tab"), r"key cannot be written"),
    (Action.goto("https://a.b"), r"goto cannot be written"),
    (Action("swipe", x=1, y=2, to_x=3, to_y=4), r"a swipe between two points cannot be written as AndroidWorld"),
    (Action.type("no enter"), r"type\('no enter'\) cannot be written as AndroidWorld input_text, which always presses"),
    (Action.type("\n"), r"cannot be written as AndroidWorld input_text"),
])
def test_format_unsupported(action, match):
    with pytest.raises(ActionParseError, match=match):
        androidworld.format(action)


@pytest.mark.parametrize("value, match", [
    ({"action_type": "click", "index": 1, "x": 2, "y": 3}, r"AndroidWorld \(click\): give either index or x, y, not both"),
    ({"action_type": "input_text", "text": "a", "index": 1, "x": 2}, r"give either index or x, y, not both"),
    ({"action_type": "click"}, r"\(click\): needs an element index or x, y"),
    ({"action_type": "click", "x": 1}, r"y must be a number of screen pixels, received None"),
    ({"action_type": "click", "x": "a", "y": 2}, r"x must be an integer, received 'a'"),
    ({"action_type": "click", "x": [1], "y": 2}, r"x must be a number of screen pixels, received \[1\]"),
    ({"action_type": "click", "index": -1}, r"index must be a non-negative int, received -1"),
    ({"action_type": "click", "index": "two"}, r"index must be an integer, received 'two'"),
    ({"action_type": "click", "index": "3.0"}, r"index must be an integer, received '3.0'"),  # int("3.0") fails
    ({"action_type": "click", "index": True}, r"index must be an integer, received True"),
    ({"action_type": "click", "index": float("nan")}, r"index must be an integer, received nan"),
    ({"action_type": "navigate_home", "index": 1, "x": 2}, r"give either index or x, y, not both"),
    ({"action_type": "wait", "direction": "sideways"}, r"direction must be one of .*received 'sideways'"),
    ({"action_type": "click", "index": 1, "keycode": "ENTER"}, r"keycode must be a name like 'KEYCODE_A'"),
    ({"action_type": "click", "index": 1, "reason": "why"}, r"unknown field\(s\) \['reason'\]; JSONAction fields are"),
    ({"action_type": "press_keyboard", "keycode": "KEYCODE_A"}, r"unknown action_type 'press_keyboard'"),
    ({"action_type": "tap", "index": 1}, r"unknown action_type 'tap'; expected one of \['click'"),
    ({"action_type": "unknown"}, r"unknown action_type 'unknown'"),
    ({"index": 1}, r"unknown action_type None"),
    ({"action_type": "scroll"}, r"\(scroll\): direction must be one of \['up', 'down', 'left', 'right'\], received None"),
    ({"action_type": "scroll", "direction": "forward"}, r"direction must be one of .*received 'forward'"),
    ({"action_type": "open_app"}, r"app_name must be a non-empty string"),
    ([{"action_type": "wait"}, "click"], r"action 2: expected an object like"),
    ("click the button", r"received invalid JSON"),
    ("", r"received an empty string"),
    ([], r"received an empty list"),
    (None, r"received NoneType"),
    (42, r"received int"),
])
def test_malformed(value, match):
    with pytest.raises(ActionParseError, match=match):
        androidworld.parse_many(value)


def _parse_noting(value, **context):
    from gui_gym.action_formats import collect_warnings

    with collect_warnings() as notes:
        actions = androidworld.parse_many(value, **context)
    return actions, notes


@pytest.mark.parametrize("value, actions, note", [
    # json_action.py:117-129: `self.index = int(self.index)`; fields a type does not use are kept and unused
    ({"action_type": "click", "index": 3.0}, [Action.click_element(3)], None),
    ({"action_type": "click", "index": " 4 "}, [Action.click_element(4)], None),
    ({"action_type": "click", "index": 2.7}, [Action.click_element(2)], r"index 2\.7 read as 2"),
    ({"action_type": "click", "x": "12", "y": 30.5}, [Action.click(12, 30.5)], None),
    ({"action_type": "click", "index": 1, "direction": "up", "text": "hi"}, [Action.click_element(1)],
     r"click does not use \['direction', 'text'\]; ignored, as AndroidWorld ignores them"),
    ({"action_type": "wait", "text": "5s"}, [Action("wait")], r"wait does not use \['text'\]"),
    ({"action_type": "input_text", "text": "a", "keycode": "KEYCODE_A"}, [Action.type("a\n")], r"does not use \['keycode'\]"),
    # json_action.py:126-127: a text that is not a string becomes one
    ({"action_type": "input_text", "text": 5}, [Action.type("5\n")], None),
    # actuation.py:74-110: no text, nothing at all; clear_text: focus, ctrl+a and delete, type, Enter
    ({"action_type": "input_text", "index": 2}, [Action.wait(0)], r"no text to type; AndroidWorld executes nothing"),
    ({"action_type": "input_text", "text": "new", "index": 2, "clear_text": True},
     [Action.click_element(2), Action.hotkey("ctrl", "a"), Action.key("backspace"), Action.type("new\n")], None),
    ({"action_type": "input_text", "text": "new", "clear_text": "yes"},
     [Action.hotkey("ctrl", "a"), Action.key("backspace"), Action.type("new\n")], r"clear_text 'yes' read as True"),
    # actuation.py:138-167: `if action.index:` (index 0 falls through to the whole screen); x, y never read
    ({"action_type": "scroll", "direction": "down", "index": 0}, [Action.scroll("down")], r"index 0 scrolls the whole screen"),
    ({"action_type": "scroll", "direction": "left", "x": 5, "y": 6}, [Action.scroll("left")], r"ignores x, y"),
    ({"action_type": "scroll", "direction": "up", "index": 5}, [Action("scroll", direction="up", element=5)], None),
    # actuation.py:169-191: "left" starts at x=0 and ends at the screen's width: the finger moves right
    ({"action_type": "swipe", "direction": "left", "x": 9, "y": 9}, [Action("swipe", direction="right")],
     r"swipe ignores index, x, y"),
    # m3a.py:509-517: any status action ends the episode; only the log tells infeasible apart
    ({"action_type": "status", "goal_status": "task_complete"}, [Action.done()], r"neither 'complete' nor 'infeasible'"),
    ({"action_type": "status"}, [Action.done()], r"goal_status None"),
    # env/interface.py:297-302: an answer sets the interaction cache to its text (none here) and the episode goes on
    ({"action_type": "answer"}, [Action.wait(0)], r"an answer with no text; AndroidWorld records no answer"),
    ({"action_type": "answer", "text": 42}, [Action.answer("42")], None),
])
def test_accepts_what_androidworld_accepts(value, actions, note):
    """Expected actions written from google-research/android_world env/json_action.py and
    env/actuation.py (lines cited per case); what is ignored is noted."""
    got, notes = _parse_noting(value)
    assert got == actions
    if note is None:
        assert notes == []
    else:
        assert len(notes) == 1 and re.search(note, notes[0]), notes


def test_intended_semantics_reads_what_the_fields_say():
    intended = {"androidworld_semantics": "intended"}
    assert _parse_noting({"action_type": "scroll", "direction": "down", "index": 0}, **intended) == \
        ([Action("scroll", direction="down", element=0)], [])
    assert _parse_noting({"action_type": "scroll", "direction": "up", "x": 5, "y": 6}, **intended) == \
        ([Action.scroll("up", x=5, y=6)], [])
    assert _parse_noting({"action_type": "swipe", "direction": "left", "x": 9, "y": 8}, **intended) == \
        ([Action("swipe", direction="left", x=9, y=8)], [])
    with pytest.raises(ActionParseError, match=r"androidworld_semantics must be one of \['androidworld', 'intended'\]"):
        androidworld.parse_many({"action_type": "wait"}, androidworld_semantics="loose")


def test_swipes_are_written_as_androidworld_executes_them():
    assert androidworld.format(Action("swipe", direction="right")) == {"action_type": "swipe", "direction": "left"}
    assert androidworld.format(Action("swipe", direction="up", x=1, y=2)) == {"action_type": "swipe", "direction": "up"}
    assert androidworld.format(Action("swipe", direction="right", x=1, y=2), androidworld_semantics="intended") == \
        {"action_type": "swipe", "direction": "right", "x": 1, "y": 2}


def test_the_action_space_contains_outputs_that_hold_several_actions():
    from gui_gym.spaces import ActionSpace

    space = ActionSpace((360, 800), "androidworld")
    assert space.contains({"action_type": "input_text", "text": "new", "index": 2, "clear_text": True})
    assert space.contains({"action_type": "click", "x": 10, "y": 20, "text": "ignored"})
    assert not space.contains({"action_type": "click", "x": 400, "y": 20})      # off the screen
    assert not space.contains({"action_type": "tap", "index": 1})
