"""AndroidControl's step-wise metrics: each predicted action against the recorded one.

For every step the prediction is compared with the recorded (gold) action:

- type accuracy: the AndroidControl action types agree (click, long_press, scroll, open_app,
  input_text, navigate_home, navigate_back, wait). A swipe with a direction is the scroll
  the other way (the finger moves up to scroll down); a double click, a key press or a
  terminal action has a type of its own that no gold step has;
- a click or long press is right when the point is within 14% of the screen of the gold
  point (distance of the width- and height-normalised points <= 0.14) or inside the gold
  target element's box (edges included);
- typed text and app names are right on an exact match (case and surrounding space aside)
  or a token F1 >= 0.5; a scroll needs the same direction; the other types only the type;
- a step succeeds when its type and these details are right; the step success rate is the
  share of steps that succeed (a step with no usable prediction fails).

>>> from gui_gym.actions import Action
>>> score_step(Action.click(540, 1300), Action.click(540, 1200), (1080, 2400), None).success
True
>>> round(token_f1("buy milk now", "buy milk"), 3)
0.8
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from gui_gym.actions import Action
from gui_gym.backends.android.elements import BoundingBox

CLICK_DISTANCE = 0.14
TEXT_F1 = 0.5
_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
_TYPES = {"click": "click", "double_click": "double_tap", "long_press": "long_press", "scroll": "scroll",
          "type": "input_text", "open_app": "open_app", "navigate_home": "navigate_home",
          "navigate_back": "navigate_back", "wait": "wait", "done": "status", "fail": "status", "answer": "answer"}


def action_type(action: Action | None) -> str | None:
    """The AndroidControl action type of a canonical action (None for no action)."""
    if action is None:
        return None
    if action.kind == "swipe" and action.direction is not None:
        return "scroll"
    if action.kind == "key" and action.keys == ("enter",):
        return "keyboard_enter"
    return _TYPES.get(action.kind, action.kind)


def scroll_direction(action: Action) -> str | None:
    """Which way the content moves: a scroll's direction, a swipe's reversed."""
    if action.kind == "swipe" and action.direction is not None:
        return _OPPOSITE[action.direction]
    return action.direction


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def token_f1(prediction: str, reference: str) -> float:
    """F1 of the word tokens (lower-cased, punctuation dropped) the two texts share."""
    pred, ref = _tokens(prediction), _tokens(reference)
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def text_matches(prediction: str | None, reference: str | None) -> bool:
    if prediction is None or reference is None:
        return prediction == reference
    if prediction.strip().lower() == reference.strip().lower():
        return True
    return token_f1(prediction, reference) >= TEXT_F1


def click_matches(point: tuple[float, float], gold: tuple[float, float], screen_size: tuple[int, int],
                  target: BoundingBox | None) -> bool:
    """Within `CLICK_DISTANCE` of the gold point in normalised screen units, or in `target`."""
    width, height = screen_size
    distance = math.hypot((point[0] - gold[0]) / width, (point[1] - gold[1]) / height)
    return distance <= CLICK_DISTANCE or (target is not None and target.contains(*point))


@dataclass(frozen=True)
class StepScore:
    """How one predicted action compares with the gold one."""

    gold_type: str
    predicted_type: str | None
    type_match: bool
    success: bool
    grounding: bool | None = None
    """For gold clicks / long presses: whether the point was right (False on a type miss)."""


def score_step(predicted: Action | None, gold: Action, screen_size: tuple[int, int],
               target: BoundingBox | None) -> StepScore:
    """Score one step. `predicted` holds screen pixels (element indices already resolved)."""
    gold_type, predicted_type = action_type(gold), action_type(predicted)
    type_match = gold_type == predicted_type
    grounding = None
    detail = type_match
    if type_match and gold_type in ("click", "long_press"):
        detail = predicted.point is not None and click_matches(predicted.point, gold.point, screen_size, target)
    elif type_match and gold_type == "scroll":
        detail = scroll_direction(predicted) == scroll_direction(gold)
    elif type_match and gold_type in ("input_text", "open_app"):
        detail = text_matches((predicted.text or "").rstrip("\n"), (gold.text or "").rstrip("\n"))
    if gold_type in ("click", "long_press"):
        grounding = bool(type_match and detail)
    return StepScore(gold_type, predicted_type, type_match, bool(type_match and detail), grounding)


def summarize(scores: Sequence[StepScore]) -> dict[str, float | int]:
    """Type accuracy, grounding accuracy (over gold clicks and long presses) and step
    success rate over `scores`."""
    grounded = [s.grounding for s in scores if s.grounding is not None]
    count = len(scores)
    return {
        "steps": count,
        "type_accuracy": sum(s.type_match for s in scores) / count if count else 0.0,
        "grounding_accuracy": sum(grounded) / len(grounded) if grounded else 0.0,
        "step_success_rate": sum(s.success for s in scores) / count if count else 0.0,
    }
