"""General OSWorld metrics: literal and rule checks on strings, lists and JSON, and on the
lines of text files (OSWorld's ``general.py``). Standard library, plus lxml/cssselect for
accessibility-tree selectors and PyYAML for YAML files.

Convention (OSWorld's): ``metric(result, expected_or_rules, **options) -> float``. Each
metric treats a missing result (None) as OSWorld's does, usually a 0; where OSWorld's code
raises on an input, ours raises too and the evaluator scores the task 0 with the reason.
"""

from __future__ import annotations

import csv
import json
import os
import re
import sqlite3
from typing import Any
from urllib.parse import quote

from gui_gym.suites.osworld.metrics.common import (
    fuzzy_ratio,
    match_record,
    match_value,
    read_lines,
    read_text,
    require,
)


def exact_match(result: Any, rules: dict[str, Any]) -> float:
    return float(result == rules["expected"])


def match_in_list(result: Any, rules: dict[str, Any]) -> float:
    return float(result in rules["expected"])


def is_in_list(result: Any, rules: dict[str, Any]) -> float:
    """1 when the expected value is an element (or substring) of the result."""
    return float(rules["expected"] in result)


def literal_match(result: Any, expected: Any, **options: Any) -> float:
    """``str(result) == str(expected)`` (``type: "list"``: item by item), ``ignore_case``."""
    kind, ignore_case = options.get("type", "str"), options.get("ignore_case", False)

    def norm(value: Any) -> str:
        return str(value).lower() if ignore_case else str(value)
    if kind == "str":
        return float(norm(result) == norm(expected))
    if kind == "list":
        if type(result) not in (list, tuple) or type(expected) not in (list, tuple) or len(result) != len(expected):
            return 0.0
        return float([norm(v) for v in result] == [norm(v) for v in expected])
    raise NotImplementedError(f"literal_match: type {kind!r} is not supported (expected 'str' or 'list')")


def fuzzy_match(result: Any, rules: dict[str, Any]) -> float:
    return fuzzy_ratio(result, rules["expected"])


def check_include_exclude(result: Any, rules: dict[str, Any]) -> float:
    """1 when every ``include`` string is in the result and no ``exclude`` string is."""
    if result is None:
        return 0.0
    return float(all(s in result for s in rules.get("include", []))
                 and all(s not in result for s in rules.get("exclude", [])))


def check_direct_json_object(result: Any, rules: dict[str, Any]) -> float:
    """Compare a JSON object (or its text, where single quotes count as double) with
    ``rules["expected"]``, OSWorld's most used check.

    By default every expected key must hold the expected value; when ``expected`` itself has
    a true ``ignore_list_order`` key, values are compared sorted (that key is compared too, so
    sorting it fails and the score is 0, as in OSWorld). With ``expect_in_result``, a list
    expected value means "the result's list has one of these, or its string is one of these",
    and a string means "contained in the result's string"; other expected types score 0."""
    if isinstance(result, str):
        result = json.loads(result.strip().replace("'", '"'))
    if result is None:
        return 0.0
    expected = rules.get("expected", {})
    if expected and any(value == "__EVALUATION_FAILED__" for value in expected.values()):
        return 0.0
    try:
        expected = rules["expected"]
        if not rules.get("expect_in_result", False):
            for key, value in expected.items():
                if expected.get("ignore_list_order", False):
                    if sorted(value) != sorted(result.get(key)):
                        return 0.0
                elif value != result.get(key):
                    return 0.0
            return 1.0
        for key, value in expected.items():
            actual = result.get(key)
            if isinstance(value, list):
                if not any((isinstance(actual, list) and v in actual) or (isinstance(actual, str) and v == actual)
                           for v in value):
                    return 0.0
            elif isinstance(value, str):
                if value not in actual:
                    return 0.0
            else:
                return 0.0
        return 1.0
    except Exception:  # noqa: BLE001 - OSWorld scores a result it cannot compare 0
        return 0.0


def check_list(result: Any, rules: dict[str, Any]) -> float:
    """Lines of a text file (each with its newline): each ``expect`` regex is found in some
    line, no ``unexpect`` regex in any."""
    if result is None:
        return 0.0
    expect = [re.compile(p) for p in rules.get("expect", [])]
    unexpect = [re.compile(p) for p in rules.get("unexpect", [])]
    lines = read_lines(result)
    return float(all(any(p.search(line) for line in lines) for p in expect)
                 and not any(p.search(line) for p in unexpect for line in lines))


def check_csv(result: Any, rules: dict[str, Any]) -> float:
    """Records of a CSV file: each ``expect`` pattern (column -> value) matches a record, no
    ``unexpect`` pattern matches any."""
    if result is None:
        return 0.0
    records = list(csv.DictReader(read_lines(result)))
    return float(all(any(match_record(p, r) for r in records) for p in rules.get("expect", []))
                 and not any(match_record(p, r) for p in rules.get("unexpect", []) for r in records))


def check_json(result: Any, rules: dict[str, Any], is_yaml: bool = False) -> float:
    """A JSON (or YAML) file: each ``expect`` rule ``{key: [path...], method, ref}`` holds at
    its key path (a missing key scores 0), and no ``unexpect`` rule holds (there a missing key
    or a non-container on the way is the value None; a list index out of range scores 0)."""
    if result is None or not os.path.exists(result):
        return 0.0
    try:
        text = read_text(result)
        if is_yaml:
            data = require("yaml", "pyyaml", "check_json").safe_load(text)
            if data is None:
                return 0.0
        else:
            data = json.loads(text)
    except Exception:  # noqa: BLE001 - an unreadable file scores 0 in OSWorld
        return 0.0
    holds = True
    try:
        for rule in rules.get("expect", {}):
            value = data
            for key in rule["key"]:
                try:
                    value = value[key]
                except (KeyError, TypeError):
                    return 0.0
            holds = holds and match_value(value, rule)
        for rule in rules.get("unexpect", {}):
            value = data
            for key in rule["key"]:
                try:
                    value = value[key]
                except (KeyError, TypeError):
                    value = None
                    break
            holds = holds and not match_value(value, rule)
    except Exception:  # noqa: BLE001 - OSWorld scores a rule it cannot apply 0
        return 0.0
    return float(holds)


def file_contains(result: Any, rules: dict[str, Any]) -> float:
    if not result:
        return 0.0
    try:
        text = read_text(result)
    except Exception:  # noqa: BLE001 - OSWorld: "file not found or not readable" scores 0
        return 0.0
    return float(all(s in text for s in rules["expected"]))


CLOCK = re.compile(r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)")


def check_line_number(result: Any, rules: dict[str, Any]) -> float:
    """The number of lines holding a clock time (HH:MM:SS) equals ``expected``."""
    if result is None or not os.path.isfile(result):
        return 0.0
    try:
        count = sum(1 for line in read_lines(result) if CLOCK.search(line))
        return float(count == int(rules["expected"]))
    except Exception:  # noqa: BLE001 - OSWorld scores an unreadable file 0
        return 0.0


def run_sqlite3(result: Any, rules: dict[str, Any]) -> float:
    """The first column of the first row of ``rules["sql"]`` on the database, as a score."""
    with sqlite3.connect(f"file:{quote(str(result))}?mode=ro", uri=True) as connection:
        row = connection.execute(rules["sql"]).fetchone()
    return float(row[0] or 0)


def _a11y_namespaces(os_name: str, *names: str) -> dict[str, str]:
    return {prefix: f"https://accessibility.{os_name}.example.org/ns/{path}" for prefix, path in (
        ("st", "state"), ("attr", "attributes"), ("cp", "component"), ("doc", "document"),
        ("docattr", "document/attributes"), ("txt", "text"), ("val", "value"), ("act", "action"),
        *((n, n) for n in names))}


A11Y_NAMESPACES = {"ubuntu": _a11y_namespaces("ubuntu"), "windows": _a11y_namespaces("windows", "class"),
                   "macos": {k: v for k, v in _a11y_namespaces("macos", "role").items() if k != "docattr"}}
"""The namespaces of OSWorld's accessibility-tree XML (``check_accessibility_tree``), per OS."""


def check_accessibility_tree(result: Any, rules: list[dict[str, Any]], osname: str = "ubuntu") -> float:
    """Each rule selects elements of the accessibility XML (``xpath``, else CSS ``selectors``
    joined by commas); none found scores 0. With ``text``, the best match of an element's text
    (equality when ``exact``, else the fuzzy ratio) multiplies into the score."""
    etree = require("lxml.etree", "lxml", "check_accessibility_tree")
    namespaces = A11Y_NAMESPACES[osname]
    tree = etree.fromstring(result)
    score = 1.0
    for rule in rules:
        if "xpath" in rule:
            elements = tree.xpath(rule["xpath"], namespaces=namespaces)
        elif "selectors" in rule:
            cssselect = require("lxml.cssselect", "cssselect", "check_accessibility_tree")
            elements = cssselect.CSSSelector(", ".join(rule["selectors"]), namespaces=namespaces)(tree)
        else:
            raise ValueError("check_accessibility_tree: a rule needs 'xpath' or 'selectors'")
        if not elements:
            return 0.0
        if "text" in rule:
            exact = rule["exact"]
            best = 0.0
            for element in elements:
                text = element.text or None
                best = max(best, float(rule["text"] == text) if exact else fuzzy_ratio(rule["text"], text))
            score *= best
    return score
