"""Thunderbird metrics (OSWorld's ``thunderbird.py``) on profile files: ``prefs.js``
preferences, ``msgFilterRules.dat`` filters, and mbox folders."""

from __future__ import annotations

import json
import re
from typing import Any

from gui_gym.suites.osworld.metrics.common import match_record, match_value, read_lines, read_text

PREF = re.compile(r'^user_pref\("(?P<key>(?:[^"]|\\")+)\", (?P<val>.+)\);$')
CONDITION = re.compile(r'\b(?:AND|OR) \((?:[\w ]+),(?:[\w \']+),(?:"(?:(?:[^"]|\")+)"|(?:[^)]+))\)|\bALL\b')


def check_thunderbird_prefs(result: Any, rule: dict[str, Any]) -> float:
    """Each ``expect`` preference is set (``user_pref("key", value);``, the value read as
    JSON) and matches its value rule (the last setting counts); no ``unexpect`` preference
    matches its rule."""
    if result is None:
        return 0.0
    expect, unexpect = rule.get("expect", {}), rule.get("unexpect", {})
    found = {key: False for key in expect}
    clean = True
    for line in read_lines(result):
        match = PREF.match(line.strip())
        if match is None:
            continue
        key, value = match.group("key"), json.loads(match.group("val"))
        if key in expect:
            found[key] = match_value(value, expect[key])
        elif key in unexpect:
            clean = clean and not match_value(value, unexpect[key])
    return float(all(found.values()) and clean)


def _unescape(value: str) -> str:
    return value.replace('\\"', '"').replace("\\\\", "\\")


def _filters(path: Any) -> list[dict[str, Any]]:
    """The filters of a ``msgFilterRules.dat`` file, each complete at its ``condition=`` line."""
    fields = {"name=": "name", "enabled=": "enabled", "type=": "type", "action=": "action",
              "actionValue=": "actionValue"}
    filters, current = [], None
    for line in read_lines(path):
        if line.startswith("name="):
            current = {"name": _unescape(line[6:-2])}
        elif line.startswith("condition="):
            current["condition"] = CONDITION.findall(_unescape(line[11:-2]))
            filters.append(current)
        else:
            for prefix, key in fields.items():
                if line.startswith(prefix) and prefix != "name=":
                    current[key] = _unescape(line[len(prefix) + 1:-2])
                    break
    return filters


def check_thunderbird_filter(result: Any, rules: dict[str, Any]) -> float:
    """Each ``expect`` pattern (field -> value) matches some filter, no ``unexpect`` pattern
    matches any."""
    if result is None:
        return 0.0
    filters = _filters(result)
    return float(all(any(match_record(p, f) for f in filters) for p in rules.get("expect", []))
                 and not any(match_record(p, f) for p in rules.get("unexpect", []) for f in filters))


def _folder_text(path: Any, options: dict[str, Any]) -> str:
    """OSWorld's reading of an mbox folder: it splits at ``FROM - `` and keeps only the
    empty pieces (its test is inverted), so what it compares is how many empty pieces a file
    has, and with ``remove_duplicate`` (the default) at most one."""
    messages = []
    for mail in read_text(path).strip().split("FROM - "):
        if mail.strip():
            continue
        if options.get("remove_deleted", True) and re.search(r"X-Mozilla-Status: 000[89]", mail):
            continue
        if options.get("ignore_status", False):
            mail = re.sub(r"X-Mozilla-Status\d?:[\s\d]+", "", mail)
        if options.get("ignore_keys", False):
            mail = re.sub(r"(X-Mozilla-Keys:[^\n]*?)\n(MIME-Version)", r"\2", mail)
        messages.append("FROM - " + mail.strip())
    if options.get("remove_duplicate", True):
        messages = list(set(messages))
    return "\n".join(sorted(messages))


def check_thunderbird_folder(result: Any, reference: Any, **options: Any) -> float:
    """The folder file(s) read as OSWorld reads them (see `_folder_text`) are equal."""
    if not isinstance(reference, list):
        result, reference = [result], [reference]
    for pred, gold in zip(result, reference):
        if pred is None:
            return 0.0
        if _folder_text(pred, options) != _folder_text(gold, options):
            return 0.0
    return 1.0
