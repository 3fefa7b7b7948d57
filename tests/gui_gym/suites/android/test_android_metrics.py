"""AndroidControl's step-wise metrics on hand-computed cases."""

from __future__ import annotations

import pytest

from gui_gym.actions import Action
from gui_gym.backends.android.elements import BoundingBox
from gui_gym.suites.android.metrics import (StepScore, action_type, click_matches, score_step, summarize,
                                            text_matches, token_f1)

SCREEN = (1000, 2000)


@pytest.mark.parametrize("point, box, expected", [
    ((600, 1100), None, True),     # dx 0.1, dy 0.05: distance 0.1118 <= 0.14
    ((640, 1000), None, True),     # dx 0.14 exactly: on the threshold
    ((650, 1050), None, False),    # dx 0.15, dy 0.025: 0.1521
    ((650, 1050), BoundingBox(x_min=600, x_max=700, y_min=1000, y_max=1100), True),   # far, but in the box
    ((700, 1100), BoundingBox(x_min=600, x_max=700, y_min=1000, y_max=1100), True),   # on its corner
    ((500, 1300), None, False),    # dy 0.15
    ((500, 1279), None, True),     # dy 0.1395
])
def test_click_within_14_percent_or_in_the_box(point, box, expected):
    assert click_matches(point, (500, 1000), SCREEN, box) is expected


@pytest.mark.parametrize("prediction, reference, f1", [
    ("buy milk now", "buy milk", 0.8),              # P 2/3, R 1: 2*(2/3)/(5/3)
    ("hello world", "goodbye world", 0.5),          # P 1/2, R 1/2
    ("Hello, World!", "hello world", 1.0),          # case and punctuation dropped
    ("a a b", "a b b", 2 / 3),                      # overlap counts a once and b once
    ("abc", "xyz", 0.0),
    ("", "", 1.0),
])
def test_token_f1(prediction, reference, f1):
    assert token_f1(prediction, reference) == pytest.approx(f1)


@pytest.mark.parametrize("prediction, reference, ok", [
    ("Ada Lovelace", "ada lovelace ", True),        # exact up to case and space
    ("hello world", "goodbye world", True),         # F1 0.5: correct
    ("the red car", "a blue car", False),           # F1 1/3
    ("555-0100", "555-0100", True),
    ("555-0101", "555-0100", True),                 # tokens {555, 0101} vs {555, 0100}: F1 exactly 0.5
    ("5550101", "5550100", False),                  # one token each, different
])
def test_text_exact_or_f1_at_least_half(prediction, reference, ok):
    assert text_matches(prediction, reference) is ok


@pytest.mark.parametrize("action, kind", [
    (Action.click(1, 1), "click"), (Action("long_press", x=1, y=1), "long_press"), (Action.scroll("down"), "scroll"),
    (Action("swipe", direction="up"), "scroll"), (Action.type("x"), "input_text"), (Action("open_app", text="A"), "open_app"),
    (Action("navigate_home"), "navigate_home"), (Action("navigate_back"), "navigate_back"), (Action.wait(), "wait"),
    (Action.double_click(1, 1), "double_tap"), (Action.key("enter"), "keyboard_enter"), (Action.done(), "status"),
    (Action.right_click(1, 1), "right_click"), (None, None),
])
def test_action_types(action, kind):
    assert action_type(action) == kind


def test_step_scores():
    gold_click = Action.click(500, 1000)
    assert score_step(Action.click(600, 1100), gold_click, SCREEN, None) == StepScore("click", "click", True, True, True)
    assert score_step(Action.click(900, 1000), gold_click, SCREEN, None) == StepScore("click", "click", True, False, False)
    assert score_step(Action("long_press", x=500, y=1000), gold_click, SCREEN, None) == StepScore(
        "click", "long_press", False, False, False)
    assert score_step(None, gold_click, SCREEN, None) == StepScore("click", None, False, False, False)
    # a finger swipe up scrolls down
    assert score_step(Action("swipe", direction="up"), Action.scroll("down"), SCREEN, None).success
    assert not score_step(Action.scroll("up"), Action.scroll("down"), SCREEN, None).success
    assert score_step(Action.type("Ada\n"), Action.type("Ada"), SCREEN, None).success  # Enter aside
    assert score_step(Action("open_app", text="Google Maps"), Action("open_app", text="Maps"), SCREEN, None).success
    assert score_step(Action("navigate_back"), Action("navigate_back"), SCREEN, None).grounding is None


def test_summary_over_an_episode():
    scores = [StepScore("click", "click", True, True, True), StepScore("click", "click", True, False, False),
              StepScore("scroll", "click", False, False), StepScore("input_text", "input_text", True, True)]
    assert summarize(scores) == {"steps": 4, "type_accuracy": 0.75, "grounding_accuracy": 0.5,
                                 "step_success_rate": 0.5}
    assert summarize([]) == {"steps": 0, "type_accuracy": 0.0, "grounding_accuracy": 0.0, "step_success_rate": 0.0}
