"""Grounding targets and questions from an element list: unique instructions, true answers."""

from __future__ import annotations

import random

from gui_gym.suites.mmbench.page_facts import (
    advanced_instructions, basic_instruction, data_type, grounding_targets, page_questions, question_group)

ELEMENTS = [
    {"role": "heading", "name": "Checkout", "tag": "h1", "bbox": [40, 40, 1200, 42], "interactive": False},
    {"role": "label", "name": "Email", "tag": "label", "bbox": [40, 110, 60, 20], "interactive": False},
    {"role": "textbox", "name": "Email", "tag": "input", "bbox": [110, 105, 240, 30], "interactive": True,
     "value": "ada@example.com"},
    {"role": "radio", "name": "Standard", "tag": "input", "bbox": [40, 160, 100, 20], "interactive": True, "checked": True},
    {"role": "radio", "name": "Express", "tag": "input", "bbox": [40, 190, 100, 20], "interactive": True, "checked": False},
    {"role": "radio", "name": "Pickup", "tag": "input", "bbox": [40, 220, 100, 20], "interactive": True, "checked": False},
    {"role": "button", "name": "Pay now", "tag": "button", "bbox": [40, 260, 90, 30], "interactive": True},
    {"role": "button", "name": "✕", "tag": "button", "bbox": [1240, 5, 30, 30], "interactive": True},
    {"role": "img", "name": "Logo", "tag": "img", "bbox": [5, 5, 20, 20], "interactive": False},
    {"role": "paragraph", "name": "Total", "tag": "p", "bbox": [0, 300, 400, 50], "interactive": False},
    {"role": "text", "name": "$12", "tag": "b", "bbox": [60, 310, 40, 20], "interactive": False},
]
VOCABULARY = {"heading": ["Inbox", "Checkout"], "button": ["Reply", "Pay now", "Compose"], "value": ["Grace"]}
TRUTH = {
    "What is the main heading of this screen?": "Checkout",
    "What is currently entered in the 'Email' field?": "ada@example.com",
    "Which of these options is currently checked?": "Standard",
    "How many buttons are visible on this screen?": "2",
    "How many input fields are visible on this screen?": "1",
    "Which element is directly below the heading 'Checkout'?": "Email",
}


def by_name(name, role=None):
    return next(e for e in ELEMENTS if e["name"] == name and (role is None or e["role"] == role))


def test_text_or_icon_from_the_element():
    assert [data_type(by_name(n)) for n in ("Pay now", "✕", "Logo", "Checkout", "$12")] == [
        "text", "icon", "icon", "text", "text"]
    assert data_type(by_name("Email", "textbox")) == "icon" and data_type(by_name("Standard")) == "icon"
    # measured on the page: an icon button named "Close" shows no text
    assert data_type(dict(by_name("✕"), name="Close", shown_text="")) == "icon"
    assert data_type(dict(by_name("Pay now"), shown_text="Pay now")) == "text"


def test_basic_instructions_name_the_element():
    assert basic_instruction(by_name("Pay now")) == "Click the 'Pay now' button."
    assert basic_instruction(by_name("Email", "textbox")) == "Click the 'Email' input field."
    assert basic_instruction(by_name("$12")) == "Click the text '$12'."


def test_advanced_instructions_describe_function_or_an_exact_relation():
    usable = [e for e in ELEMENTS if e["name"] != "Total"]
    assert advanced_instructions(by_name("Pay now"), usable) == [
        "Click the control that carries out 'Pay now'.", "Click the button below the option 'Pickup'."]
    # Express, Pickup are both options below Standard: no relational description for them
    assert advanced_instructions(by_name("Express"), usable) == ["Click the choice that picks 'Express'."]
    assert advanced_instructions(by_name("$12"), usable) == ["Click the text below the button 'Pay now'."]


def test_targets_are_unique_alternating_and_deterministic():
    targets = grounding_targets(ELEMENTS, random.Random(1), limit=100)
    instructions = [t["instruction"] for t in targets]
    assert len(set(instructions)) == len(instructions)
    assert [t["grounding_type"] for t in targets[:4]] == ["basic", "advanced", "basic", "advanced"]
    assert all(t["element"]["name"] != "Total" for t in targets)          # a container of '$12' is no target
    assert {t["element"]["name"] for t in targets if t["grounding_type"] == "basic"} >= {"Pay now", "Checkout"}
    assert grounding_targets(ELEMENTS, random.Random(1), limit=3) == targets[:3]
    assert grounding_targets(ELEMENTS, random.Random(1), limit=100) == targets


def test_questions_have_true_answers_and_absent_distractors():
    on_page = {e["name"] for e in ELEMENTS}
    seen = set()
    for seed in range(30):
        groups = page_questions(ELEMENTS, VOCABULARY, random.Random(seed))
        assert [g["difficulty"] for g in groups] == ["easy", "medium", "hard"]
        for group in groups:
            options, answer = group["options"], group["options"][group["answer"]]
            assert 3 <= len(options) <= 4 and len(set(options.values())) == len(options)
            assert list(options) == list("ABCD"[:len(options)])
            if group["question"] in TRUTH:
                assert answer == TRUTH[group["question"]], group
            if group["question"].startswith("Which of these buttons"):
                assert answer in ("Pay now", "✕")
                assert not on_page & {t for letter, t in options.items() if letter != group["answer"]}
            seen.add(group["question"])
    assert set(TRUTH) <= seen


def test_question_group_needs_two_distractors():
    rng = random.Random(0)
    assert question_group("Q?", "yes", ["Yes", "no"], "easy", "", rng) is None   # "Yes" is the answer again
    group = question_group("Q?", "yes", ["no", "maybe", "never", "later"], "easy", "because", rng)
    assert len(group["options"]) == 4 and group["options"][group["answer"]] == "yes"
    assert group["explanation"] == "because" and group["difficulty"] == "easy"
