"""Action format ``choice``: multiple-choice answers in free text, JSON or UI-TARS."""

from __future__ import annotations

import pytest

from gui_gym.action_formats import format_action, parse_action
from gui_gym.actions import Action
from gui_gym.errors import ActionParseError
from gui_gym.suites.mmbench import choice_format


@pytest.mark.parametrize("output, action", [
    ("B", Action.answer("B")),
    ("  The answer is C.\n", Action.answer("The answer is C.")),
    ("[B]", Action.answer("[B]")),                                  # not JSON: free text
    ('{"kind": "answer", "text": "D"}', Action.answer("D")),
    ({"kind": "answer", "text": "Option A"}, Action.answer("Option A")),
    ("Thought: the heading says Form.\nAction: finished(content='B')", Action.done("B")),
])
def test_answers_in_every_spelling(output, action):
    assert parse_action(output, "choice") == action


@pytest.mark.parametrize("output, message", [
    ("I am not sure", r"found no option letter A-F in the answer 'I am not sure'"),
    ("", r"expected an answer naming one option letter A-F, received an empty string"),
    ('{"kind": "click", "x": 1, "y": 2}', r"this is a multiple-choice question: expected an answer naming one "
                                          r"option letter A-F \(e\.g\. 'B', or an answer action\), received a click"),
    ("Action: click(start_box='(1,2)')", r"received a click action"),
    ("Action: finished()", r"received a done action|found no option letter"),
    (42, r"expected an answer as text or an answer action, received int"),
])
def test_outputs_without_a_letter_are_parse_errors(output, message):
    with pytest.raises(ActionParseError, match=message):
        parse_action(output, "choice", screen_size=(100, 100))


def test_check_vets_action_objects():
    choice_format.check(Action.answer("b"))
    with pytest.raises(ActionParseError, match=r"found no option letter A-F in the answer 'maybe'"):
        choice_format.check(Action.answer("maybe"))
    with pytest.raises(ActionParseError, match=r"received a scroll action"):
        choice_format.check(Action.scroll("down"))


def test_format_writes_the_answer_text():
    assert format_action(Action.answer("C"), "choice") == "C"
    assert parse_action(format_action(Action.answer("C"), "choice"), "choice") == Action.answer("C")


# What MMBench-GUI's own evaluation makes of the same outputs. It stores the model's raw
# response as the prediction and reads it with `parser_answers_into_option`
# (open-compass/MMBench-GUI utils/misc.py:69-83, called from
# its l1_content_understanding.py:97-106 and 315-336): six patterns in order over the
# whole text, the first that matches anywhere wins. Pattern 4, `^[ \t]*([A-F])[\.:]?` per
# line, matches the "A" opening an "Action:" line and the "f" opening a "finished(" line.
UITARS_B = "Thought: the heading says Form.\nAction: finished(content='B')"


@pytest.mark.parametrize("output, official, meant", [
    (UITARS_B, "A", "B"),                                               # "Action:" opens line 2
    ("finished(content='C')", "F", "C"),                                # "finished" opens the line
    ("Thought: option C. fits\nAction: finished(content='C')", "C", "C"),  # pattern 1 finds "C." first
    ("The answer is B.", "B", "B"),                                     # free text: both read it whole
    ('{"kind": "answer", "text": "D"}', "D", "D"),                       # officially: the quoted letter "D"
])
def test_official_mode_reads_the_whole_output_as_the_official_parser_does(output, official, meant):
    """Expected letters written from utils/misc.py:69-83 applied to the raw output."""
    from gui_gym.suites.mmbench.answers import parse_option_letter

    read = parse_action(output, "choice", answers="official")
    assert read == Action.answer(output)                                # taken whole, untrimmed
    assert parse_option_letter(read.text) == official
    assert parse_option_letter(parse_action(output, "choice").text) == meant


def test_official_mode_still_refuses_outputs_without_a_letter():
    with pytest.raises(ActionParseError, match=r"found no option letter A-F in the answer 'I am not sure'"):
        parse_action("I am not sure", "choice", answers="official")
    with pytest.raises(ActionParseError, match=r"unknown answers mode 'raw'; expected one of \['meant', 'official'\]"):
        parse_action("B", "choice", answers="raw")
