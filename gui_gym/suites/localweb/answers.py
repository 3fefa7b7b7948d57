"""How an information task's answer is matched against the expected value."""

from __future__ import annotations

import re
from typing import Any


def normalize_answer(text: str | None) -> str:
    """Case, whitespace, surrounding punctuation and thousands separators removed."""
    if text is None:
        return ""
    text = text.strip().lower()
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = re.sub(r"\s+", " ", text)
    return text.strip(" .!?\"'`")


def answer_matches(answer: str | None, expected: Any) -> bool:
    """Whether an agent's answer states `expected`: equal after normalisation, or, for
    numbers, the same number (``$12.50`` answers 12.5)."""
    got, want = normalize_answer(answer), normalize_answer(str(expected))
    if got == want or (want and re.search(rf"(?<![\w.]){re.escape(want)}(?![\w])", got) and len(got) <= 3 * len(want) + 10):
        return True
    numbers = re.findall(r"-?\d+(?:\.\d+)?", got.replace("$", ""))
    try:
        return len(numbers) == 1 and float(numbers[0]) == float(want.replace("$", ""))
    except ValueError:
        return False


def states_time(answer: str | None, hhmm: str) -> bool:
    """Whether a short answer gives the time `hhmm`: 14:30, 9:30, 09:30 or 2:30 pm."""
    hour, minute = map(int, hhmm.split(":"))
    spoken = re.sub(r"\s*([ap])\.?m\.?", r" \1m", (answer or "").lower()).strip()
    twelve = rf"(?<![\d:]){hour % 12 or 12}:{minute:02d} {'pm' if hour >= 12 else 'am'}"
    clock = rf"(?<![\d:])0?{hour}:{minute:02d}(?![\d:])(?! {'am' if hour >= 12 else 'pm'})"
    return len(spoken) <= 40 and bool(re.search(twelve, spoken) or re.search(clock, spoken))
