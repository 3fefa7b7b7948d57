"""How an information task's answer is matched against the expected value.

An answer names one value. It may be a sentence ("There are 7 items."), but it names the
expected value and no other candidate of that value's kind, so an answer that lists
candidates ("1 2 3 4 5 6 7", every role of the console) fails however short it is:

- a **number** (a count, an amount, a rating): the answer holds the expected number and no
  other number, save those the question itself states ("How many cost $45 or less?" answered
  "3 cost $45 or less" names 3). A currency sign, thousands separators and a rating's scale
  ("4.5 out of 5") are allowed;
- a **time of day**: the answer holds exactly one time (14:30, 2:30 pm, 09:30), the expected;
- a **choice** (a role, a title, a name): the answer names the expected value and none of the
  template's other candidates, matched as whole words after normalisation (longest first, so
  a candidate inside a longer one is not counted twice).

Normalisation drops case, runs of whitespace, surrounding punctuation and thousands separators.
A text answer with no candidate set must equal the expected value.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\d])")
_SCALE = re.compile(r"\s*(?:/|out of)\s*5(?:\.0)?(?:\s*stars?)?\b")
_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?:\s*([ap])\.?m\b\.?)?(?![\d:])")


def normalize_answer(text: str | None) -> str:
    """Case, whitespace, surrounding punctuation and thousands separators removed."""
    if text is None:
        return ""
    text = text.strip().lower()
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = re.sub(r"\s+", " ", text)
    return text.strip(" .!?\"'`")


def numbers_in(text: str | None) -> list[float]:
    """Every number `text` states, after normalisation (a currency sign and a rating's scale
    of 5 dropped): ``"$1,234.50 (4.5/5)"`` -> [1234.5, 4.5]."""
    plain = _SCALE.sub(" ", normalize_answer(text).replace("$", " "))
    return [float(n) for n in _NUMBER.findall(plain)]


def as_number(value: Any) -> float | None:
    """`value` as a number when it is one and nothing else (``"$12.50"`` -> 12.5), else None."""
    plain = normalize_answer(str(value)).replace("$", "").strip()
    return float(plain) if re.fullmatch(r"-?\d+(?:\.\d+)?", plain) else None


def names_number(answer: str | None, expected: float, question: str = "") -> bool:
    """Whether `answer` states `expected` and no other number than those `question` states."""
    stated = numbers_in(answer)
    allowed = {expected, *numbers_in(question)}
    return expected in stated and all(n in allowed for n in stated)


def times_in(text: str | None) -> list[tuple[int, int] | None]:
    """Every time of day `text` states as (hour, minute) on the 24-hour clock; None for one
    that is no time (25:00, 14:30 pm)."""
    found: list[tuple[int, int] | None] = []
    for hour, minute, half in _TIME.findall((text or "").lower()):
        h, m = int(hour), int(minute)
        if half:
            h = h % 12 + (12 if half == "p" else 0) if 1 <= h <= 12 else 99
        found.append((h, m) if h < 24 and m < 60 else None)
    return found


def names_time(answer: str | None, hhmm: str) -> bool:
    """Whether `answer` states exactly one time of day, `hhmm` (14:30, 2:30 pm, 14:30 h)."""
    hour, minute = map(int, hhmm.split(":"))
    return set(times_in(answer)) == {(hour, minute)}


def named(answer: str | None, candidates: Iterable[Any]) -> set[str]:
    """The normalised `candidates` that `answer` names as whole words; a candidate found
    inside a longer one that the answer names is not counted ("Billing admin" names only
    itself, not "admin")."""
    text = f" {normalize_answer(answer)} "
    found = set()
    for candidate in sorted({normalize_answer(str(c)) for c in candidates} - {""}, key=len, reverse=True):
        pattern = rf"(?<![\w]){re.escape(candidate)}(?![\w])"
        if re.search(pattern, text):
            found.add(candidate)
            text = re.sub(pattern, " | ", text)
    return found


def names_choice(answer: str | None, expected: Any, candidates: Iterable[Any]) -> bool:
    """Whether `answer` names `expected` and none of the other `candidates`."""
    return named(answer, [expected, *candidates]) == {normalize_answer(str(expected))}


def answer_matches(answer: str | None, expected: Any, *, candidates: Iterable[Any] | None = None,
                   question: str = "") -> bool:
    """Whether an agent's answer names `expected` (see the module's rules): a number when
    `expected` is one, else one of `candidates` (the values a blind answer would list), or,
    with no candidates, the expected text itself."""
    number = as_number(expected)
    if number is not None:
        return names_number(answer, number, question)
    if candidates is None:
        return normalize_answer(answer) == normalize_answer(str(expected))
    return names_choice(answer, expected, candidates)
