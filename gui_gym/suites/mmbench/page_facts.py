"""Grounding targets and multiple-choice questions drawn from what a live page shows.

Input is the browser backend's element list (role, name, bbox [x, y, w, h], value, checked,
...), read from the live DOM at the moment of the screenshot, so every answer is a fact of
the app's state, not of a template. Output is MMBench-GUI's record content:

- L2 targets: a ``text`` or ``icon`` element, with a ``basic`` instruction (by its name or
  label) and an ``advanced`` one (by its function, or its position relative to a neighbour);
  only elements a description picks out uniquely are kept;
- L1 questions, one per difficulty where the page allows: easy (what the page says: its
  heading, which buttons it shows), medium (the state of its fields: what is typed, what is
  checked), hard (counting, spatial relations).

Deterministic for a given `random.Random`.
"""

from __future__ import annotations

import random
import re
from typing import Any, Callable

ICON_ROLES = frozenset({"img", "checkbox", "radio", "switch", "slider", "textbox", "searchbox",
                        "spinbutton", "combobox"})
"""Roles identified by their look rather than a text they show: ScreenSpot's icon/widget."""
ROLE_WORDS = {"button": "button", "link": "link", "textbox": "input field", "searchbox": "search field",
              "spinbutton": "number field", "combobox": "drop-down", "checkbox": "checkbox", "radio": "option",
              "switch": "switch", "slider": "slider", "heading": "heading", "tab": "tab", "menuitem": "menu item",
              "img": "image", "label": "label", "listitem": "list item", "option": "option"}
FUNCTIONS = {"button": "Click the control that carries out '{name}'.",
             "link": "Click where you would go to open '{name}'.",
             "textbox": "Click the field where you would type the {lower}.",
             "searchbox": "Click the field where you would type a search.",
             "spinbutton": "Click the field where you would enter the {lower}.",
             "combobox": "Click the control for choosing the {lower}.",
             "checkbox": "Click the box that turns '{name}' on or off.",
             "radio": "Click the choice that picks '{name}'.",
             "switch": "Click the switch that toggles '{name}'.",
             "tab": "Click the tab that shows the '{name}' section."}
FALLBACK_WORDS = ("Settings", "Search", "Cancel", "Save", "Next", "Back", "Help", "Sign in", "Delete",
                  "Share", "Home", "Profile", "Export", "Filter", "Refresh", "Archive", "Reply", "Upload")
FALLBACK_VALUES = ("Ada", "Grace", "Linus", "Berlin", "42", "blue", "2024-05-01", "alice@example.com")
EMPTY = "Nothing: it is empty"
MAX_NAME_CHARS = 60
MAX_COUNT = 10
"""Counting questions stop at this many elements: beyond it they test patience, not reading."""


def _usable(element: dict[str, Any]) -> bool:
    name = (element.get("name") or "").strip()
    w, h = element["bbox"][2:]
    return bool(name) and len(name) <= MAX_NAME_CHARS and w >= 4 and h >= 4


def _contains(outer: list[int], inner: list[int]) -> bool:
    ox, oy, ow, oh = outer
    ix, iy, iw, ih = inner
    return outer != inner and ox <= ix and oy <= iy and ix + iw <= ox + ow and iy + ih <= oy + oh


def _targets(elements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Usable elements minus text containers of other elements (a paragraph around a bold
    code): their name is only part of what their box shows."""
    usable = [e for e in elements if _usable(e)]
    return [e for e in usable
            if e.get("interactive") or not any(_contains(e["bbox"], o["bbox"]) for o in usable if o is not e)]


def data_type(element: dict[str, Any]) -> str:
    """``icon`` for images and widgets and for elements that show no letter or digit (a
    glyph, an SVG with an accessible name), ``text`` for elements that show words. What an
    element shows is its ``shown_text`` when the generator measured it on the page, else its
    name."""
    if element.get("role") in ICON_ROLES or element.get("tag") in ("img", "svg", "canvas"):
        return "icon"
    shown = element.get("shown_text", element.get("name")) or ""
    return "text" if re.search(r"[^\W_]", shown) else "icon"


def _word(element: dict[str, Any]) -> str:
    return ROLE_WORDS.get(element["role"], "text")


def basic_instruction(element: dict[str, Any]) -> str:
    """By name or label: "Click the 'Send' button."."""
    word = _word(element)
    if word == "text":
        return f"Click the text '{element['name']}'."
    return f"Click the '{element['name']}' {word}."


def _below(upper: list[int], lower: list[int]) -> bool:
    ux, uy, uw, uh = upper
    lx, ly, lw, lh = lower
    return uy + uh <= ly and min(ux + uw, lx + lw) - max(ux, lx) > 0


def _right_of(left: list[int], right: list[int]) -> bool:
    lx, ly, lw, lh = left
    rx, ry, rw, rh = right
    return lx + lw <= rx and min(ly + lh, ry + rh) - max(ly, ry) > 0


def _nearest(anchor: dict[str, Any], elements: list[dict[str, Any]],
             test: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """The element closest to `anchor` among those passing `test`."""
    candidates = [e for e in elements if e is not anchor and test(e)]
    if not candidates:
        return None
    ax, ay, _, _ = anchor["bbox"]
    return min(candidates, key=lambda e: (abs(e["bbox"][0] - ax) + abs(e["bbox"][1] - ay), e["bbox"]))


def advanced_instructions(element: dict[str, Any], elements: list[dict[str, Any]]) -> list[str]:
    """Functional descriptions of `element`, and relational ones (below / to the right of its
    nearest neighbour) where it is the only element of its kind in that relation."""
    found = []
    if element["role"] in FUNCTIONS:
        name = element["name"]
        found.append(FUNCTIONS[element["role"]].format(name=name, lower=name[:1].lower() + name[1:]))
    for relation, phrase in ((_below, "below"), (_right_of, "to the right of")):
        neighbour = _nearest(element, elements, lambda e: relation(e["bbox"], element["bbox"]))
        if neighbour is None:
            continue
        alike = [e for e in elements if _word(e) == _word(element) and relation(neighbour["bbox"], e["bbox"])]
        if alike == [element]:  # no other element of its kind stands there: the description is exact
            found.append(f"Click the {_word(element)} {phrase} the {_word(neighbour)} '{neighbour['name']}'.")
    return found


def grounding_targets(elements: list[dict[str, Any]], rng: random.Random, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` L2 targets ``{element, instruction, data_type, grounding_type}``, basic and
    advanced alternating, interactive elements first. Descriptions shared by two elements
    are dropped, so each instruction has exactly one right box."""
    usable = _targets(elements)
    described: dict[str, list[tuple[dict[str, Any], str]]] = {"basic": [], "advanced": []}
    counts: dict[str, int] = {}
    for element in usable:
        texts = [("basic", basic_instruction(element))] + [("advanced", t) for t in advanced_instructions(element, usable)]
        for kind, text in texts:
            counts[text] = counts.get(text, 0) + 1
            described[kind].append((element, text))
    picks: dict[str, list[dict[str, Any]]] = {}
    for kind, pairs in described.items():
        unique = [(e, t) for e, t in pairs if counts[t] == 1]
        rng.shuffle(unique)
        unique.sort(key=lambda pair: not pair[0].get("interactive"))  # stable: interactive first
        taken: set[int] = set()
        picks[kind] = []
        for element, text in unique:
            if id(element) not in taken:  # one description per element and kind
                taken.add(id(element))
                picks[kind].append({"element": element, "instruction": text, "data_type": data_type(element),
                                    "grounding_type": kind})
    mixed = [pick for i in range(max(map(len, picks.values()))) for kind in ("basic", "advanced")
             for pick in picks[kind][i:i + 1]]
    return mixed[:limit]


def question_group(question: str, answer: str, distractors: list[str], difficulty: str, explanation: str,
                   rng: random.Random, max_options: int = 4) -> dict[str, Any] | None:
    """An official L1 question group ``{question, options, answer, explanation, difficulty}``
    with the answer among up to `max_options` shuffled options; None with fewer than 3."""
    seen = {answer.casefold()}
    picked = []
    for text in distractors:
        if text.casefold() not in seen:
            seen.add(text.casefold())
            picked.append(text)
    picked = picked[:max_options - 1]
    if len(picked) < 2:
        return None
    options = [answer, *picked]
    rng.shuffle(options)
    letters = "ABCDEF"
    return {"question": question, "options": {letters[i]: text for i, text in enumerate(options)},
            "answer": letters[options.index(answer)], "explanation": explanation, "difficulty": difficulty}


def _pool(words: list[str], exclude: set[str], rng: random.Random) -> list[str]:
    unique = sorted({w for w in words if w and w.casefold() not in exclude})
    rng.shuffle(unique)
    return unique


def page_questions(elements: list[dict[str, Any]], vocabulary: dict[str, list[str]],
                   rng: random.Random) -> list[dict[str, Any]]:
    """One question per difficulty that this page supports. `vocabulary` holds names seen
    on other screens (``"heading"``, ``"button"``, ``"value"``), the source of distractors
    that are plausible yet absent from this screen."""
    on_page = {(e.get("name") or "").casefold() for e in elements}
    makers = ([_heading, _visible_button], [_field_value, _checked_option], [_count, _below_question])
    groups = []
    for candidates in makers:  # easy, medium, hard
        rng.shuffle(candidates)
        for make in candidates:
            group = make(elements, vocabulary, on_page, rng)
            if group is not None:
                groups.append(group)
                break
    return groups


def _heading(elements, vocabulary, on_page, rng):
    headings = [e for e in elements if e["role"] == "heading" and _usable(e)]
    top = [h for h in headings if _heading_level(h) == min(map(_heading_level, headings))]
    if len(top) != 1:  # no heading, or no single main one
        return None
    answer = top[0]["name"]
    others = _pool(vocabulary["heading"] + list(FALLBACK_WORDS), on_page, rng)
    return question_group("What is the main heading of this screen?", answer, others, "easy",
                          f"The heading at the top of the screen reads '{answer}'.", rng)


def _heading_level(element: dict[str, Any]) -> int:
    tag = element.get("tag") or ""
    return int(tag[1]) if re.fullmatch(r"h[1-6]", tag) else 7


def _visible_button(elements, vocabulary, on_page, rng):
    buttons = [e for e in elements if e["role"] in ("button", "link") and _usable(e) and re.search(r"[^\W\d_]", e["name"])]
    if not buttons:
        return None
    answer = rng.choice(buttons)["name"]
    others = _pool(vocabulary["button"] + list(FALLBACK_WORDS), on_page, rng)
    return question_group("Which of these buttons or links can be seen on this screen?", answer, others, "easy",
                          f"'{answer}' is shown on the screen; the other labels are not.", rng)


def _field_value(elements, vocabulary, on_page, rng):
    fields = [e for e in elements if e["role"] in ("textbox", "searchbox", "spinbutton") and _usable(e)]
    if not fields:
        return None
    field = rng.choice(fields)
    value = field.get("value") or ""
    answer = value or EMPTY
    others = ([] if not value else [EMPTY]) + _pool(vocabulary["value"] + list(FALLBACK_VALUES), {value.casefold()}, rng)
    return question_group(f"What is currently entered in the '{field['name']}' field?", answer, others, "medium",
                          f"The '{field['name']}' field shows {repr(value) if value else 'nothing'}.", rng)


def _checked_option(elements, vocabulary, on_page, rng):
    boxes = [e for e in elements if e["role"] in ("checkbox", "radio", "switch") and _usable(e)]
    checked = [e for e in boxes if e.get("checked")]
    if len(checked) != 1 or len(boxes) < 3:
        return None
    answer = checked[0]["name"]
    others = [e["name"] for e in boxes if not e.get("checked")]
    return question_group("Which of these options is currently checked?", answer, others, "medium",
                          f"Only '{answer}' is checked.", rng)


_COUNTED = (("button", "buttons", ("button",)), ("link", "links", ("link",)),
            ("input field", "input fields", ("textbox", "searchbox", "spinbutton", "combobox")))


def _count(elements, vocabulary, on_page, rng):
    kinds = [(singular, plural, [e for e in elements if e["role"] in roles]) for singular, plural, roles in _COUNTED]
    kinds = [kind for kind in kinds if 0 < len(kind[2]) <= MAX_COUNT]
    if not kinds:
        return None
    singular, plural, found = rng.choice(kinds)
    answer = len(found)
    others = [str(n) for n in (answer + 1, answer - 1, answer + 2, answer + 3) if n >= 0]
    return question_group(f"How many {plural} are visible on this screen?", str(answer), others, "hard",
                          f"Counting them gives {answer} {singular if answer == 1 else plural}.", rng)


def _below_question(elements, vocabulary, on_page, rng):
    usable = _targets(elements)
    pairs = []
    for upper in usable:
        lower = _nearest(upper, usable, lambda e: _below(upper["bbox"], e["bbox"]))
        if lower is not None and lower["name"].casefold() != upper["name"].casefold():
            pairs.append((upper, lower))
    if not pairs:
        return None
    upper, lower = rng.choice(pairs)
    below = {e["name"].casefold() for e in usable if _below(upper["bbox"], e["bbox"])}
    beside = _pool([e["name"] for e in usable], below | {upper["name"].casefold()}, rng)
    absent = _pool(vocabulary["button"] + list(FALLBACK_WORDS), on_page, rng)
    return question_group(f"Which element is directly below the {_word(upper)} '{upper['name']}'?", lower["name"],
                          beside + absent, "hard", f"'{lower['name']}' sits right under '{upper['name']}'.", rng)
