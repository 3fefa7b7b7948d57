"""Parity with OSWorld's own code (desktop-env 1.0.2, ``metrics/general.py``,
``metrics/vscode.py`` and ``metrics/utils.py::_match_value_to_rule``) on generated inputs:
strings, rules, CRLF and odd encodings, JSON/YAML/CSV files, accessibility XML, SQLite."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import pytest
from tests.osworld_reference import Parity

from gui_gym.suites.osworld.metrics import common, general, text

TEXTS = {
    "plain": b"alpha\nbeta 2\ngamma\n", "crlf": b"alpha\r\nbeta 2\r\ngamma\r\n", "cr": b"alpha\rbeta 2\r",
    "no-newline": b"alpha\nbeta 2", "empty": b"", "blank-lines": b"\n\nalpha\n\n", "tabs": b"a\tb  c\n\td\n",
    "bom": b"\xef\xbb\xbfalpha\nbeta 2\n", "latin1": b"caf\xe9\nbeta 2\n", "unicode": "naïve — ok\nbeta 2\n".encode(),
    "formfeed": b"alpha\x0cbeta 2\n", "spaces": b"  alpha  \n beta   2 \n", "upper": b"ALPHA\nBeta 2\n",
    "time": b"12:00:01 start\nno time\n23:59:59 end\n24:00:00 bad\n", "code": b"#!/usr/bin/env python\n# coding: utf-8\n\ndef f():\n\treturn 1   \n",
    "code2": b"def f():\n    return 1\n", "number": b"42.0\n", "answer": b"The answer is 42.0\n", "number2": b"42.00001\n",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-general")
    out = {}
    for name, data in TEXTS.items():
        path = folder / f"{name}.txt"
        path.write_bytes(data)
        out[name] = str(path)
    out["missing"] = str(folder / "missing.txt")
    return out


def run(parity: Parity, cases: list) -> None:
    failures = parity.check(cases)
    assert not failures, "\n".join(failures)


VALUES = ["abc", "ABC", "", "a,b", "'a,b'", "\"a, b\"", "a, b", 3, 3.0, 2.5, "3", None, True, [1, 2], {"a": 1}]
RULES = [{"method": "eq", "ref": 3}, {"method": "ne", "ref": "abc"}, {"method": "lt", "ref": 3}, {"method": "ge", "ref": 2.5},
         {"method": "re", "ref": "^a"}, {"method": "re.IGNORECASE", "ref": "abc"}, {"method": "re.I.M", "ref": "b$"},
         {"method": "approx:0.1", "ref": 3}, {"method": "approx:1", "ref": 2}, {"method": "str_list_eq", "ref": ["a", "b"]},
         {"method": "str_set_eq", "ref": ["b", "a"]}, {"method": "str_list_eq", "ref": ["a", " b"]},
         {"method": "range.te", "ref": [2, 3]}, {"method": "range.et", "ref": [3, 4]}, {"method": "nope", "ref": 1}]


def test_value_rules(osworld_ref):
    theirs = osworld_ref.metrics("utils")._match_value_to_rule
    cases = [(f"{v!r}~{r['method']}:{r['ref']!r}", (v, r), {}) for v, r in itertools.product(VALUES, RULES)]
    ranges = [("A1:B3", [["A1:A2"], ["A1:C9"]]), ("A1:A2 C1", [["C1"], ["A1:C3"]]), ("D1", [["D1"], ["A1:C3"]])]
    from openpyxl.worksheet.cell_range import MultiCellRange

    cases += [(f"range:{v}", (MultiCellRange(v), {"method": "spreadsheet_range", "ref": ref}), {}) for v, ref in ranges]
    run(Parity("_match_value_to_rule", common.match_value, theirs), cases)


def test_string_and_object_metrics(osworld_ref):
    theirs = osworld_ref.metrics("general")
    strings = ["abc", "ABC", "", None, "43 132 error", ["a", "b"], 3]
    cases = {
        "exact_match": [(f"{r!r}={e!r}", (r, {"expected": e}), {}) for r in strings for e in ("abc", None, 3)],
        "match_in_list": [(f"{r!r}", (r, {"expected": ["abc", None, 3]}), {}) for r in strings],
        "is_in_list": [(f"{r!r}", (r, {"expected": "a"}), {}) for r in strings],
        "fuzzy_match": [(f"{r!r}", (r, {"expected": "abcd"}), {}) for r in strings],
        "check_include_exclude": [(f"{r!r}-{i}", (r, rule), {}) for r in strings for i, rule in enumerate(
            [{"include": ["43 132"], "exclude": ["error"]}, {"include": ["a"]}, {"exclude": ["b"]}, {}])],
        "literal_match": [(f"{r!r}-{e!r}-{o}", (r, e), o) for r in strings + [(1, 2), [1, 2]]
                          for e in ("abc", "None", [1, 2], ["1", "2"]) for o in ({}, {"ignore_case": True}, {"type": "list"})],
    }
    for name, metric_cases in cases.items():
        run(Parity(name, getattr(general, name), getattr(theirs, name)), metric_cases)


def test_check_direct_json_object(osworld_ref):
    theirs = osworld_ref.metrics("general").check_direct_json_object
    results = [{"name": "x", "tags": ["a", "b"]}, {"name": "y"}, "{'name': 'x', 'tags': ['a', 'b']}", " {\"name\": \"x\"} ",
               "not json", None, ["name"], {"city": "Lyon", "title": "Grand Hotel", "n": 3},
               {"city": ["Paris", "Rome"], "title": None}, {}]
    rules = [{"expected": {"name": "x"}}, {"expected": {"name": "x", "tags": ["b", "a"]}},
             {"expected": {"name": "x", "tags": ["b", "a"], "ignore_list_order": True}},
             {"expected": {"name": "x"}, "ignore_list_order": True},
             {"expected": {"name": "__EVALUATION_FAILED__"}}, {"expected": {}},
             {"expect_in_result": True, "expected": {"city": ["Paris", "Lyon"], "title": "Hotel"}},
             {"expect_in_result": True, "expected": {"n": 3}}, {"expect_in_result": True, "expected": {"title": "x"}}]
    cases = [(f"{i}-{j}", (r, rule), {}) for i, r in enumerate(results) for j, rule in enumerate(rules)]
    run(Parity("check_direct_json_object", general.check_direct_json_object, theirs), cases)


def test_line_file_metrics(osworld_ref, files):
    theirs = osworld_ref.metrics("general")
    names = [*TEXTS, "missing"]
    list_rules = [{"expect": [r"^beta \d$"], "unexpect": ["gamma"]}, {"expect": ["alpha"]}, {"expect": [r"alpha\n"]},
                  {"unexpect": [r"\r"]}, {"expect": ["caf"]}, {"expect": [], "unexpect": []}, {"expect": ["beta 2$"]}]
    cases = {
        "check_list": [(f"{n}-{i}", (files[n], r), {}) for n in names for i, r in enumerate(list_rules)]
        + [("none", (None, list_rules[0]), {})],
        "file_contains": [(f"{n}-{i}", (files[n], {"expected": e}), {}) for n in names
                          for i, e in enumerate([["alpha", "beta"], ["alpha\r\n"], ["\r"], []])] + [("none", (None, {"expected": []}), {})],
        "check_line_number": [(f"{n}-{e}", (files[n], {"expected": e}), {}) for n in names for e in ("2", 0, "3")]
        + [("none", (None, {"expected": 0}), {})],
        "diff_text_file": [(f"{a}-{b}", (files[a], files[b]), {}) for a in names for b in ("plain", "crlf", "cr", "blank-lines")]
        + [("none", (None, files["plain"]), {})],
        "compare_python_pure_text": [(f"{a}-{b}", (files[a], files[b]), {}) for a in names for b in ("code", "code2")]
        + [("none", (None, files["code"]), {})],
    }
    ours = {"diff_text_file": text.diff_text_file, "compare_python_pure_text": text.compare_python_pure_text}
    for name, metric_cases in cases.items():
        run(Parity(name, ours.get(name) or getattr(general, name), getattr(theirs, name)), metric_cases)


def test_vscode_text_metrics(osworld_ref, files, tmp_path):
    theirs = osworld_ref.metrics("vscode")
    names = [*TEXTS, "missing"]
    configs = [{"expected": "alpha\nbeta 2\ngamma\n"}, {"expected": "alpha\r\nbeta 2\r\ngamma\r\n"}, {"expected": ""}]
    cases = {
        "compare_text_file": [(f"{a}-{b}-{o}", (files[a], files[b]), opts) for a in names for b in ("plain", "crlf", "spaces")
                              for o, opts in enumerate([{}, {"ignore_blanks": True}, {"ignore_case": True},
                                                        {"ignore_blanks": True, "ignore_case": True}])]
        + [("none", (None, files["plain"]), {})],
        "compare_config": [(f"{a}-{i}", (files[a], c), {}) for a in names for i, c in enumerate(configs)]
        + [("none", (None, configs[0]), {})],
        "compare_result_files": [(f"{a}-{b}", (files[a], files[b]), {}) for a in ("number", "answer", "number2", "plain", "crlf")
                                 for b in ("number", "plain", "empty")] + [("none", (None, files["number"]), {})],
        "compare_answer": [(f"{r!r}", (r, {"expected": "x"}), {}) for r in ("x", "y", "", None)],
        "is_extension_installed": [(f"{r!r}-{t}", (r, {"type": t, "expected": "ms-python.python"}), {})
                                   for r in ("ms-python.python\nx.y\n", "", None) for t in ("contain", "not_contain", "other")],
    }
    settings = {"ok": '{"a": 1, "b": {"c": 2}}', "crlf": '{\r\n"a": 1\r\n}', "bad": "{oops", "list": "[1, 2]",
                "comment": '// keybindings\n[{"key": "ctrl+j", "command": "x"}]', "keys": '[{"key": "ctrl+j", "command": "x"}]'}
    paths = {}
    for name, content in settings.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(content)
    paths = {k: str(v) for k, v in paths.items()}
    cases["check_json_settings"] = [(f"{n}-{i}", (p, {"expected": e}), {}) for n, p in paths.items()
                                    for i, e in enumerate([{"a": 1}, {"a": 2}, {"b": {"c": 2}}, {}])] + [("none", (None, {"expected": {}}), {})]
    cases["check_json_keybindings"] = [(f"{n}-{i}", (p, {"expected": e}), {}) for n, p in paths.items()
                                       for i, e in enumerate([{"key": "ctrl+j", "command": "x"}, {"key": "x"}])]
    for name, metric_cases in cases.items():
        run(Parity(name, getattr(text, name), getattr(theirs, name)), metric_cases)


def test_structured_file_metrics(osworld_ref, tmp_path):
    theirs = osworld_ref.metrics("general")
    documents = {"json": json.dumps({"a": {"b": [1, 2]}, "font": 14, "name": "Ann", "empty": None}),
                 "yaml": "a:\n  b: [1, 2]\nfont: 14\nname: Ann\n", "empty-yaml": "", "bad-json": "{", "list": "[1, 2, 3]",
                 "crlf-json": '{\r\n "font": 14\r\n}'}
    paths = {}
    for name, content in documents.items():
        paths[name] = tmp_path / f"{name}.data"
        paths[name].write_text(content)
    rule_sets = [{"expect": [{"key": ["a", "b", 1], "method": "eq", "ref": 2}]},
                 {"expect": [{"key": ["font"], "method": "gt", "ref": 10}], "unexpect": [{"key": ["name"], "method": "eq", "ref": "Bob"}]},
                 {"unexpect": [{"key": ["missing"], "method": "eq", "ref": None}]},
                 {"unexpect": [{"key": ["a", "b", 5], "method": "eq", "ref": 1}]},
                 {"unexpect": [{"key": ["font", "x"], "method": "re", "ref": "1"}]},
                 {"expect": [{"key": ["a", "b", 9], "method": "eq", "ref": 1}]},
                 {"expect": [{"key": ["name"], "method": "re", "ref": "^A"}]}, {"expect": [{"key": [0], "method": "eq", "ref": 1}]},
                 {"expect": [{"key": ["font"], "method": "approx:0.5", "ref": 14.2}]}, {}]
    cases = [(f"{n}-{i}-{y}", (str(p), r), {"is_yaml": y}) for n, p in paths.items() for i, r in enumerate(rule_sets)
             for y in (False, True)] + [("none", (None, rule_sets[0]), {}), ("missing", (str(tmp_path / "no.json"), {}), {})]
    run(Parity("check_json", general.check_json, theirs.check_json), cases)

    csvs = {"plain": "name,age\nann,3\nbob,4\n", "crlf": "name,age\r\nann,3\r\n", "quoted": 'name,age\n"ann, jr",3\n',
            "header-only": "name,age\n", "empty": ""}
    csv_paths = {}
    for name, content in csvs.items():
        csv_paths[name] = tmp_path / f"{name}.csv"
        csv_paths[name].write_bytes(content.encode())
    csv_rules = [{"expect": [{"name": "ann"}], "unexpect": [{"name": "bob"}]}, {"expect": [{"name": "ann", "age": "3"}]},
                 {"expect": [{"name": "ann, jr"}]}, {"unexpect": [{"age": "4"}]}, {}]
    cases = [(f"{n}-{i}", (str(p), r), {}) for n, p in csv_paths.items() for i, r in enumerate(csv_rules)]
    run(Parity("check_csv", general.check_csv, theirs.check_csv), cases + [("none", (None, {}), {})])

    db = tmp_path / "t.db"
    with sqlite3.connect(db) as connection:
        connection.execute("create table t (x)")
        connection.executemany("insert into t values (?)", [(1,), (None,), (0.5,)])
    sql = ["select x from t", "select count(*) from t", "select x from t where x is null", "select x from t where x = 0.5",
           "select * from nope"]
    run(Parity("run_sqlite3", general.run_sqlite3, theirs.run_sqlite3),
        [(s, (str(db), {"sql": s}), {}) for s in sql])


A11Y = """<desktop-frame xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes"
 xmlns:st="https://accessibility.ubuntu.example.org/ns/state">
<application name="Thunderbird"><tool-bar attr:id="MsgHeadersToolbar"><label name="To">To</label>
<section attr:class="address-pill"><label attr:class="pill-label" name="fox@uni.edu">fox</label></section></tool-bar>
<page-tab-list attr:id="tabmail-tabs"><page-tab name="About Profiles" st:selected="true">About Profiles</page-tab></page-tab-list>
<entry name="Search">hello world</entry><entry name="Empty"></entry></application></desktop-frame>"""


def test_check_accessibility_tree(osworld_ref):
    theirs = osworld_ref.metrics("general").check_accessibility_tree
    rules = [[{"selectors": ['tool-bar[attr|id=MsgHeadersToolbar] label[name=To]~[attr|class="address-pill"]>'
                             'label[attr|class="pill-label"][name*="fox@uni.edu"]']}],
             [{"selectors": ['application[name=Thunderbird] page-tab-list[attr|id="tabmail-tabs"]>page-tab[name="About Profiles"]']}],
             [{"xpath": "//application[@name='Thunderbird']//*[contains(@name, 'fox')]"}],
             [{"xpath": "//entry[@name='Search']", "text": "hello world", "exact": True}],
             [{"xpath": "//entry[@name='Search']", "text": "hello wrld", "exact": False}],
             [{"xpath": "//entry", "text": "hello world", "exact": True}],
             [{"xpath": "//entry[@name='Empty']", "text": "", "exact": True}],
             [{"xpath": "//entry[@name='Empty']", "text": "x", "exact": False}],
             [{"xpath": "//entry", "text": "x"}], [{"xpath": "//nothing"}], [{"selectors": ["[st|selected=true]"]}], [{}]]
    cases = [(f"{i}", (A11Y, r), {}) for i, r in enumerate(rules)]
    cases += [("bytes", (A11Y.encode(), rules[0]), {}), ("declared", ('<?xml version="1.0" encoding="UTF-8"?>' + A11Y, rules[0]), {})]
    run(Parity("check_accessibility_tree", general.check_accessibility_tree, theirs), cases)


def test_fuzzy_ratio_is_rapidfuzz():
    assert common.fuzzy_ratio("kitten", "sitting") == pytest.approx(0.6153846, rel=1e-6)
    assert common.fuzzy_ratio("abc", None) == 0.0


def test_text_files_are_read_in_text_mode(tmp_path: Path):
    """OSWorld opens text files in text mode (``open(path)``): CRLF and CR read as LF; a
    UTF-8 BOM stays; bytes that are not UTF-8 raise (and OSWorld's evaluation fails)."""
    path = tmp_path / "t.txt"
    path.write_bytes(b"\xef\xbb\xbfa\r\nb\rc")
    assert common.read_text(path) == "\ufeffa\nb\nc" and common.read_lines(path) == ["\ufeffa\n", "b\n", "c"]
    path.write_bytes(b"caf\xe9\r\n")
    with pytest.raises(UnicodeDecodeError):
        common.read_text(path)
    assert common.read_lines_any_encoding(path) == ["café"]
