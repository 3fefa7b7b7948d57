"""Text comparisons as AndroidWorld's checks make them.

AndroidWorld compares free text (note contents, SMS bodies, titles, answers) with one fuzzy
rule: case-insensitive `difflib.SequenceMatcher` ratio of at least 0.9. A typo in a long text
passes, a different word in a short one does not. Labels on screen are found by Levenshtein
distance (at most one edit), which is how its set-up code finds a button to tap.
"""

from __future__ import annotations

import difflib
import re

MIN_SIMILARITY = 0.9


def fuzzy_match(text1: object, text2: object, ignore_case: bool = True) -> bool:
    """Whether two texts are nearly equal (ratio >= 0.9); None never matches."""
    if text1 is None or text2 is None:
        return False
    a, b = str(text1), str(text2)
    if ignore_case:
        a, b = a.lower(), b.lower()
    return difflib.SequenceMatcher(None, a, b).ratio() >= MIN_SIMILARITY


def levenshtein(a: str, b: str) -> int:
    """Edits (insertions, deletions, substitutions) between two strings."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a):
        current = [i + 1]
        for j, cb in enumerate(b):
            current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca != cb)))
        previous = current
    return previous[-1]


def digits(text: str) -> str:
    """The digits of a phone number, without spaces, dashes, brackets or a plus sign."""
    return re.sub(r"\D", "", text)
