"""OSWorld metrics on text files and command output: whole-file comparisons, line diffs,
code files, configuration text, and lists of installed extensions. Standard library only."""

from __future__ import annotations

import difflib
import re
from typing import Any

from gui_gym.suites.osworld.metrics.common import missing, read_text


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[\t\n]", " ", text).strip())


def compare_text_file(result: Any, expected: Any, **options: Any) -> float:
    """The files' texts are equal (``ignore_blanks``: runs of whitespace count as one space;
    ``ignore_case``)."""
    if missing(result, expected):
        return 0.0
    actual, gold = read_text(result), read_text(expected)
    if options.get("ignore_blanks", False):
        actual, gold = _squash(actual), _squash(gold)
    if options.get("ignore_case", False):
        actual, gold = actual.lower(), gold.lower()
    return float(actual == gold)


def diff_text_file(result: Any, expected: Any) -> float:
    """Similarity of the two files' lists of lines (a partial score)."""
    if missing(result, expected):
        return 0.0
    return difflib.SequenceMatcher(None, read_text(result).splitlines(), read_text(expected).splitlines()).ratio()


def _code_lines(text: str) -> str:
    """Code without leading shebang/encoding lines, blank lines and trailing spaces; tabs as
    four spaces."""
    lines = text.splitlines()
    start = 0
    while start < min(3, len(lines)) and re.match(r"\s*#(!|\s*-\*-\s*coding|\s*coding[:=])", lines[start]):
        start += 1
    return "\n".join(line.expandtabs(4).rstrip() for line in lines[start:] if line.strip())


def compare_python_pure_text(result: Any, expected: Any) -> float:
    if missing(result, expected):
        return 0.0
    return float(_code_lines(read_text(result)) == _code_lines(read_text(expected)))


def compare_config(result: Any, rules: dict[str, Any], **options: Any) -> float:
    """The file's text equals ``rules["expected"]`` exactly."""
    if missing(result):
        return 0.0
    return float(read_text(result) == rules["expected"])


def compare_answer(result: Any, rules: dict[str, Any], **options: Any) -> float:
    return float(bool(result) and result == rules["expected"])


def compare_result_files(result: Any, expected: Any) -> float:
    """Two answer files agree: as numbers (within 1e-4, or the gold number appears in the
    result's text), else as stripped text."""
    if missing(result, expected):
        return 0.0
    actual, gold = read_text(result).strip(), read_text(expected).strip()
    try:
        gold_number = float(gold)
    except ValueError:
        return float(actual == gold)
    if gold in actual:
        return 1.0
    try:
        return float(abs(float(actual) - gold_number) < 1e-4)
    except ValueError:
        return 0.0


def is_extension_installed(result: Any, rules: dict[str, Any], **options: Any) -> float:
    """The output of ``code --list-extensions`` contains (``type: contain``) or lacks
    (``not_contain``) the expected extension id."""
    if result is None:
        return 0.0
    if rules["type"] == "contain":
        return float(rules["expected"] in result)
    if rules["type"] == "not_contain":
        return float(rules["expected"] not in result)
    raise ValueError(f"is_extension_installed: unknown type {rules['type']!r}")
