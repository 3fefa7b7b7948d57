"""Action format ``point``: a point on the screenshot in any supported spelling, as pixels."""

from __future__ import annotations

import pytest

from gui_gym.action_formats import format_action, parse_action
from gui_gym.actions import Action
from gui_gym.errors import ActionParseError
from gui_gym.suites.mmbench import point_format

SIZE = (1920, 1080)


@pytest.mark.parametrize("output, context, point", [
    ("(960, 540)", {}, (960, 540)),
    ("I would click [0.5, 0.25].", {}, (960, 270)),                          # auto: normalized
    ("(500, 250)", {"coordinates": "relative1000"}, (960, 270)),
    ("x=0.5, y=0.5", {"coordinates": "absolute"}, (0.5, 0.5)),
    ("<point>966 546</point>", {"coordinates": "smart_resize"}, (960, 540)),
    ("<|box_start|>(10,20)<|box_end|>", {}, (10, 20)),
    ("Action: click(start_box='(966,546)')", {}, (960, 540)),                 # UI-TARS-1.5 default
    ("Thought: the icon.\nAction: click(start_box='(500,500)')", {"coordinates": "relative1000"}, (960, 540)),
    ("click(point='<point>966 546</point>')", {}, (960, 540)),
    ('{"kind": "click", "x": 7, "y": 8}', {}, (7, 8)),
    ({"kind": "double_click", "x": 7, "y": 8}, {}, (7, 8)),                  # any pointer action: its point
])
def test_points_in_every_spelling_become_clicks(output, context, point):
    action = parse_action(output, "point", screen_size=SIZE, **context)
    assert action.kind == "click" and action.point == pytest.approx(point)


@pytest.mark.parametrize("output, message", [
    ("B", r"expected a point like '\(x,y\)', '\[x, y\]', 'x=\.\., y=\.\.' or a click action, received 'B'"),
    ("Action: type(content='hi')", r"this is a grounding task: expected a click or a point \(x,y\) on the "
                                   r"screenshot, received a type action without x,y"),
    ('{"kind": "click", "element": 3}', r"received a click action on an element index"),
    (["(1,2)"], r"expected a point as text or a click action, received list"),
])
def test_outputs_without_a_point_are_parse_errors(output, message):
    with pytest.raises(ActionParseError, match=message):
        parse_action(output, "point", screen_size=SIZE)


def test_a_screen_size_is_needed():
    with pytest.raises(ActionParseError, match=r"reading a point needs screen_size=\(width, height\)"):
        point_format.parse_many("(1,2)")


def test_check_vets_action_objects():
    point_format.check(Action.click(1, 2))
    with pytest.raises(ActionParseError, match=r"received an answer action without x,y"):
        point_format.check(Action.answer("(1,2)"))


@pytest.mark.parametrize("coordinates, text", [
    ("auto", "(960,270)"), ("absolute", "(960,270)"), ("normalized", "(0.5,0.25)"), ("relative1000", "(500,250)")])
def test_format_round_trips(coordinates, text):
    written = format_action(Action.click(960, 270), "point", screen_size=SIZE, coordinates=coordinates)
    assert written == text
    assert parse_action(written, "point", screen_size=SIZE, coordinates=coordinates).point == pytest.approx((960, 270))
