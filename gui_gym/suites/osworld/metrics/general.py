"""General OSWorld metrics: literal and rule checks on strings, lists and JSON, and on the
lines of text files. Standard library only (plus lxml for accessibility-tree selectors).

Convention (OSWorld's): ``metric(result, expected_or_rules, **options) -> float``; a result
that is None (the getter found nothing) scores 0.
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
from typing import Any

from gui_gym.suites.osworld.metrics.common import (
    fuzzy_ratio,
    match_value,
    missing,
    read_text,
    require,
)


def exact_match(result: Any, rules: dict[str, Any]) -> float:
    return float(result is not None and result == rules["expected"])


def match_in_list(result: Any, rules: dict[str, Any]) -> float:
    return float(result is not None and result in rules["expected"])


def is_in_list(result: Any, rules: dict[str, Any]) -> float:
    """1 when the expected value is an element (or substring) of the result."""
    return float(result is not None and rules["expected"] in result)


def literal_match(result: Any, expected: Any, **options: Any) -> float:
    kind, ignore_case = options.get("type", "str"), options.get("ignore_case", False)

    def norm(value: Any) -> str:
        return str(value).lower() if ignore_case else str(value)
    if kind == "str":
        return float(norm(result) == norm(expected))
    if kind == "list":
        if not isinstance(result, (list, tuple)) or not isinstance(expected, (list, tuple)):
            return 0.0
        return float([norm(v) for v in result] == [norm(v) for v in expected])
    raise ValueError(f"literal_match: unknown type {kind!r}; expected 'str' or 'list'")


def fuzzy_match(result: Any, rules: dict[str, Any]) -> float:
    if result is None:
        return 0.0
    return fuzzy_ratio(str(result), str(rules["expected"]))


def check_include_exclude(result: Any, rules: dict[str, Any]) -> float:
    """1 when every ``include`` string is in the result and no ``exclude`` string is."""
    if result is None:
        return 0.0
    text = str(result)
    return float(all(s in text for s in rules.get("include", []))
                 and not any(s in text for s in rules.get("exclude", [])))


def check_direct_json_object(result: Any, rules: dict[str, Any]) -> float:
    """Compare a JSON object (or its text, single quotes allowed) with ``rules["expected"]``.

    By default every expected key must hold the expected value (lists compared sorted when
    ``expected["ignore_list_order"]``). With ``expect_in_result``, a list expected value means
    "any of these" and a string means "contained in the result's string"."""
    if isinstance(result, str):
        try:
            result = json.loads(result.strip().replace("'", '"'))
        except json.JSONDecodeError:
            return 0.0
    if not isinstance(result, dict):
        return 0.0
    expected = rules["expected"]
    if any(v == "__EVALUATION_FAILED__" for v in expected.values()):
        return 0.0
    if not rules.get("expect_in_result", False):
        for key, value in expected.items():
            actual = result.get(key)
            if expected.get("ignore_list_order", False) and isinstance(value, list) and isinstance(actual, list):
                if sorted(map(str, value)) != sorted(map(str, actual)):
                    return 0.0
            elif actual != value:
                return 0.0
        return 1.0
    for key, value in expected.items():
        actual = result.get(key)
        if isinstance(value, list):
            ok = any((isinstance(actual, list) and v in actual) or (isinstance(actual, str) and v == actual)
                     for v in value)
        elif isinstance(value, str):
            ok = isinstance(actual, str) and value in actual
        else:
            ok = False
        if not ok:
            return 0.0
    return 1.0


def check_list(result: Any, rules: dict[str, Any]) -> float:
    """Lines of a text file: each ``expect`` regex matches some line, no ``unexpect`` regex
    matches any line."""
    if missing(result):
        return 0.0
    expect = [re.compile(p) for p in rules.get("expect", [])]
    unexpect = [re.compile(p) for p in rules.get("unexpect", [])]
    lines = read_text(result).splitlines()
    return float(all(any(p.search(line) for line in lines) for p in expect)
                 and not any(p.search(line) for p in unexpect for line in lines))


def check_csv(result: Any, rules: dict[str, Any]) -> float:
    """Records of a CSV file: each ``expect`` pattern (column -> value) matches a record, no
    ``unexpect`` pattern matches any."""
    if missing(result):
        return 0.0
    records = list(csv.DictReader(read_text(result).splitlines()))

    def matches(pattern: dict[str, Any], record: dict[str, Any]) -> bool:
        return all(k in record and record[k] == v for k, v in pattern.items())
    return float(all(any(matches(p, r) for r in records) for p in rules.get("expect", []))
                 and not any(matches(p, r) for p in rules.get("unexpect", []) for r in records))


def _load_structured(path: Any, is_yaml: bool) -> Any:
    text = read_text(path)
    if is_yaml:
        return require("yaml", "pyyaml", "check_json").safe_load(text)
    return json.loads(text)


def check_json(result: Any, rules: dict[str, Any], is_yaml: bool = False) -> float:
    """A JSON (or YAML) file: each ``expect`` rule ``{key: [path...], method, ref}`` holds at
    its key path, and no ``unexpect`` rule does."""
    if missing(result):
        return 0.0
    try:
        data = _load_structured(result, is_yaml)
    except (ValueError, OSError):
        return 0.0

    def lookup(keys: list[Any]) -> tuple[bool, Any]:
        value = data
        for key in keys:
            try:
                value = value[key]
            except (KeyError, IndexError, TypeError):
                return False, None
        return True, value
    for rule in rules.get("expect", []):
        found, value = lookup(rule["key"])
        if not found or not match_value(value, rule):
            return 0.0
    for rule in rules.get("unexpect", []):
        found, value = lookup(rule["key"])
        if found and match_value(value, rule):
            return 0.0
    return 1.0


def check_json_settings(result: Any, expected: dict[str, Any], **options: Any) -> float:
    """A JSON settings file holds every expected key with the expected value."""
    if missing(result):
        return 0.0
    try:
        data = json.loads(read_text(result))
    except ValueError:
        return 0.0
    return float(isinstance(data, dict) and all(k in data and data[k] == v for k, v in expected["expected"].items()))


def check_json_keybindings(result: Any, expected: dict[str, Any], **options: Any) -> float:
    """A keybindings JSON list (possibly after a comment line) contains the expected entry."""
    if missing(result):
        return 0.0
    text = read_text(result)
    for candidate in (text, text.split("\n", 1)[-1]):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, list):
            return float(expected["expected"] in data)
    return 0.0


def file_contains(result: Any, rules: dict[str, Any]) -> float:
    if missing(result):
        return 0.0
    text = read_text(result)
    return float(all(s in text for s in rules["expected"]))


def check_line_number(result: Any, rules: dict[str, Any]) -> float:
    """The number of lines holding a clock time (HH:MM:SS) equals ``expected``."""
    if missing(result):
        return 0.0
    clock = re.compile(r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)")
    count = sum(1 for line in read_text(result).splitlines() if clock.search(line))
    return float(count == int(rules["expected"]))


def run_sqlite3(result: Any, rules: dict[str, Any]) -> float:
    """The first column of the first row of ``rules["sql"]`` on the database, as a score."""
    if missing(result):
        return 0.0
    with sqlite3.connect(f"file:{result}?mode=ro", uri=True) as connection:
        row = connection.execute(rules["sql"]).fetchone()
    return float(row[0] or 0) if row else 0.0


A11Y_NAMESPACES = {
    "st": "https://accessibility.ubuntu.example.org/ns/state",
    "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
    "cp": "https://accessibility.ubuntu.example.org/ns/component",
    "doc": "https://accessibility.ubuntu.example.org/ns/document",
    "docattr": "https://accessibility.ubuntu.example.org/ns/document/attributes",
    "txt": "https://accessibility.ubuntu.example.org/ns/text",
    "val": "https://accessibility.ubuntu.example.org/ns/value",
    "act": "https://accessibility.ubuntu.example.org/ns/action",
}


def check_accessibility_tree(result: Any, rules: list[dict[str, Any]], osname: str = "ubuntu") -> float:
    """Each rule selects elements (``xpath`` or CSS ``selectors``) of the accessibility XML;
    with ``text``, the best match of an element's text (exact, or fuzzy when ``exact`` is
    false) multiplies into the score."""
    if result is None:
        return 0.0
    etree = require("lxml.etree", "lxml", "check_accessibility_tree")
    tree = etree.fromstring(result.encode() if isinstance(result, str) else result)
    score = 1.0
    for rule in rules:
        if "xpath" in rule:
            elements = tree.xpath(rule["xpath"], namespaces=A11Y_NAMESPACES)
        elif "selectors" in rule:
            cssselect = require("lxml.cssselect", "cssselect", "check_accessibility_tree")
            elements = cssselect.CSSSelector(", ".join(rule["selectors"]), namespaces=A11Y_NAMESPACES)(tree)
        else:
            raise ValueError("check_accessibility_tree: a rule needs 'xpath' or 'selectors'")
        if not elements:
            return 0.0
        if "text" in rule:
            if rule.get("exact", True):
                best = max(float(e.text == rule["text"]) for e in elements)
            else:
                best = max(fuzzy_ratio(e.text or "", rule["text"]) for e in elements)
            score *= best
    return score
