"""OSWorld metrics on text and code files and command output (OSWorld's ``vscode.py`` and
the text checks of ``general.py``): whole-file comparisons, line diffs, code files,
configuration text, JSON settings and keybindings, and lists of installed extensions.
Standard library only; files are read as OSWorld reads them (`common.read_text`)."""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from gui_gym.suites.osworld.metrics.common import read_text


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[\t\n]", " ", text).strip())


def compare_text_file(result: Any, expected: Any, **options: Any) -> float:
    """The files' texts are equal (``ignore_blanks``: tabs and newlines as spaces, runs of
    whitespace as one; ``ignore_case``)."""
    if not result:
        return 0.0
    actual, gold = read_text(result), read_text(expected)
    if options.get("ignore_blanks", False):
        actual, gold = _squash(actual), _squash(gold)
    if options.get("ignore_case", False):
        actual, gold = actual.lower(), gold.lower()
    return float(actual == gold)


def diff_text_file(result: Any, expected: Any) -> float:
    """Similarity of the two files' lists of lines (difflib's ratio, a partial score)."""
    if result is None:
        return 0.0
    return difflib.SequenceMatcher(a=read_text(result).splitlines(), b=read_text(expected).splitlines()).ratio()


CODE_PREAMBLE = ("#!", "# -*- coding:", "# coding:", "# coding=")


def _code_lines(text: str) -> str:
    """OSWorld's normalisation of a code file: shebang/encoding lines among the first three
    dropped, then the non-blank lines with tabs as four spaces and no trailing spaces."""
    lines = text.splitlines()
    start = 0
    while start < min(3, len(lines)) and lines[start].strip().startswith(CODE_PREAMBLE):
        start += 1
    return "\n".join(line.expandtabs(4).rstrip() for line in lines[start:] if line.strip())


def compare_python_pure_text(result: Any, expected: Any) -> float:
    if not result or not expected:
        return 0.0
    try:
        return float(_code_lines(read_text(result)) == _code_lines(read_text(expected)))
    except Exception:  # noqa: BLE001 - OSWorld scores unreadable files 0
        return 0.0


def compare_config(result: Any, rules: dict[str, Any], **options: Any) -> float:
    """The file's text (newlines translated) equals ``rules["expected"]`` exactly."""
    if not result:
        return 0.0
    return float(read_text(result) == rules["expected"])


def compare_answer(result: Any, rules: dict[str, Any], **options: Any) -> float:
    if not result:
        return 0.0
    return float(result == rules["expected"])


def compare_result_files(result: Any, expected: Any) -> float:
    """Two answer files agree: when the gold is a number, the result contains its text or
    is within 1e-4 of it; else the stripped texts are equal."""
    if not result or not expected:
        return 0.0
    actual, gold = read_text(result).strip(), read_text(expected).strip()
    try:
        gold_number = float(gold)
        if gold in actual:
            return 1.0
        return float(abs(float(actual) - gold_number) < 1e-4)
    except ValueError:
        return float(actual == gold)


def is_extension_installed(result: Any, rules: dict[str, Any], **options: Any) -> float:
    """The output of ``code --list-extensions`` contains (``type: contain``) or lacks
    (``not_contain``) the expected extension id."""
    if rules["type"] == "contain":
        return float(rules["expected"] in result)
    if rules["type"] == "not_contain":
        return float(rules["expected"] not in result)
    raise NotImplementedError(f"is_extension_installed: unknown type {rules['type']!r}")


def _json_file(path: Any, skip_first_line: bool) -> Any:
    try:
        text = read_text(path)
        if skip_first_line:
            text = text.split("\n", 1)[1] if "\n" in text else ""
        return json.loads(text)
    except Exception:  # noqa: BLE001 - unreadable: try the next way, as OSWorld does
        return None


def check_json_keybindings(result: Any, expected: dict[str, Any], **options: Any) -> float:
    """A keybindings JSON list (possibly after a first comment line) contains the expected entry."""
    for skip in (False, True):
        data = _json_file(result, skip)
        if isinstance(data, list):
            return float(expected["expected"] in data)
    return 0.0


def check_json_settings(result: Any, expected: dict[str, Any], **options: Any) -> float:
    """A JSON settings file holds every expected key with the expected value."""
    if not result:
        return 0.0
    try:
        data = json.loads(read_text(result))
    except Exception:  # noqa: BLE001 - OSWorld scores an unreadable file 0
        return 0.0
    return float(all(key in data and data[key] == value for key, value in expected["expected"].items()))
