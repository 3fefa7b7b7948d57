"""The metric registry, the desktop-env fallback, and the general, text, web and file
metrics, on small files written here (no desktop)."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from gui_gym.errors import MissingResourceError
from gui_gym.suites.osworld import metrics
from gui_gym.suites.osworld.metrics import general, text, web
from gui_gym.suites.osworld.metrics.common import fuzzy_ratio, match_value


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content)
    return path


def test_registry_finds_metrics_lazily_and_checks_options():
    assert metrics.has_metric("exact_match") and metrics.has_metric("infeasible")
    assert not metrics.has_metric("check_new_feature")
    assert metrics.has_metric("compare_table", {"rules": [{"type": "sheet_data"}]})
    assert not metrics.has_metric("compare_table", {"rules": [{"type": "no_such_rule"}]})
    assert metrics.get_metric("compare_text_file") is text.compare_text_file
    with pytest.raises(NotImplementedError, match=r"'check_new_feature' is not implemented in gui-gym"):
        metrics.get_metric("check_new_feature")


def test_fallback_loads_one_desktop_env_module_without_its_package(tmp_path: Path, monkeypatch):
    folder = tmp_path / "desktop_env" / "evaluators" / "metrics"
    folder.mkdir(parents=True)
    (tmp_path / "desktop_env" / "__init__.py").write_text("raise ImportError('the package must not be imported')\n")
    (tmp_path / "desktop_env" / "evaluators" / "__init__.py").write_text("raise ImportError('nor this one')\n")
    (folder / "__init__.py").write_text("raise ImportError('nor the metrics package')\n")
    (folder / "gimp.py").write_text("def check_new_feature(a, b):\n    return 0.75 if a == b else 0.0\n")
    (folder / "thunderbird.py").write_text("raise ImportError('an unrelated module must not be imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    metric = metrics.get_metric("check_new_feature", fallback=True)
    assert metric("x", "x") == 0.75
    assert "desktop_env" not in sys.modules
    with pytest.raises(MissingResourceError, match=r"'no_such_metric' is neither in gui-gym nor in desktop-env"):
        metrics.get_metric("no_such_metric", fallback=True)


def test_fallback_without_desktop_env_says_how_to_get_it(monkeypatch):
    monkeypatch.setattr(metrics.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingResourceError, match=r"desktop-env package is not installed"):
        metrics.get_metric("check_new_feature", fallback=True)


@pytest.mark.parametrize("value, rule, expected", [
    (3, {"method": "eq", "ref": 3}, True), (3, {"method": "lt", "ref": 3}, False),
    ("Total: 42", {"method": "re", "ref": r"\d+"}, True), ("ABC", {"method": "re.IGNORECASE", "ref": "abc"}, True),
    ("1.05", {"method": "approx:0.1", "ref": 1}, True), ("x", {"method": "approx:0.1", "ref": 1}, False),
    ('"Pass,Fail,Held"', {"method": "str_set_eq", "ref": ["Pass", "Fail", "Held"]}, True),
    ("'a,b'", {"method": "str_list_eq", "ref": ["a", "b"]}, True), ("b,a", {"method": "str_set_eq", "ref": ["a", "b"]}, True),
    ("a, b", {"method": "str_list_eq", "ref": ["a", "b"]}, False), (2.5, {"method": "range.te", "ref": [2, 3]}, True),
])
def test_value_rules(value, rule, expected):
    """OSWorld's ``metrics/utils.py::_match_value_to_rule``: str_list_eq/str_set_eq strip the
    outer quotes LibreOffice writes around a list validation (libreoffice_calc/ecb0df7a's
    ``"Pass,Fail,Held"``) and split at commas without stripping the items."""
    assert match_value(value, rule) is expected


def test_value_rules_raise_where_osworld_raises():
    """``_match_value_to_rule`` runs ``re.search(ref, None)`` and ``None > 1`` as they are:
    both raise, and OSWorld's evaluation fails (gui-gym scores that 0 with the reason)."""
    with pytest.raises(TypeError):
        match_value(None, {"method": "re", "ref": "x"})
    with pytest.raises(TypeError):
        match_value(None, {"method": "gt", "ref": 1})


def test_fuzzy_ratio_is_rapidfuzz():
    assert fuzzy_ratio("abc", "abc") == 1.0 and fuzzy_ratio("abc", "xyz") == 0.0
    assert fuzzy_ratio("kitten", "sitting") == pytest.approx(0.6153846, rel=1e-3)


def test_literal_and_rule_metrics():
    assert general.exact_match("hello\n", {"expected": "hello\n"}) == 1.0
    assert general.check_include_exclude("43 132", {"include": ["43 132"], "exclude": ["error"]}) == 1.0
    assert general.check_include_exclude("43 132 error", {"include": ["43 132"], "exclude": ["error"]}) == 0.0
    assert general.check_include_exclude(None, {"include": []}) == 0.0
    assert general.match_in_list("b", {"expected": ["a", "b"]}) == 1.0
    assert general.is_in_list(["a", "b"], {"expected": "b"}) == 1.0
    assert general.literal_match("ABC", "abc", ignore_case=True) == 1.0
    assert general.literal_match([1, 2], ["1", "2"], type="list") == 1.0


def test_check_direct_json_object_modes():
    """OSWorld's ``metrics/general.py::check_direct_json_object``: ``ignore_list_order`` is
    read from inside ``expected`` (where it is compared as a key too, so OSWorld scores 0),
    not from the rules (chrome/f5d96daf sets it there, and its list order counts)."""
    tags = {"name": "x", "tags": ["a", "b"]}
    assert general.check_direct_json_object(tags, {"expected": {"name": "x", "tags": ["b", "a"]}}) == 0.0
    assert general.check_direct_json_object(tags, {"expected": {"tags": ["b", "a"]}, "ignore_list_order": True}) == 0.0
    assert general.check_direct_json_object(tags, {"expected": {"tags": ["a", "b"], "ignore_list_order": True}}) == 0.0
    assert general.check_direct_json_object("{'name': 'y'}", {"expected": {"name": "x"}}) == 0.0
    with pytest.raises(ValueError):
        general.check_direct_json_object("not json", {"expected": {"name": "x"}})
    loose = {"expect_in_result": True, "expected": {"city": ["Paris", "Lyon"], "title": "Hotel"}}
    assert general.check_direct_json_object({"city": "Lyon", "title": "Grand Hotel"}, loose) == 1.0
    assert general.check_direct_json_object({"city": "Nice", "title": "Grand Hotel"}, loose) == 0.0


def test_line_and_file_metrics(tmp_path: Path):
    """``check_list`` reads lines as ``for line in open(path)``: each keeps its newline
    (OSWorld's ``metrics/general.py::check_list``), so ``alpha\\n`` matches."""
    listing = write(tmp_path, "list.txt", "alpha\nbeta 2\n")
    assert general.check_list(listing, {"expect": [r"^beta \d$"], "unexpect": ["gamma"]}) == 1.0
    assert general.check_list(listing, {"expect": [r"alpha\n"]}) == 1.0
    assert general.check_list(listing, {"expect": ["gamma"]}) == 0.0
    assert general.file_contains(listing, {"expected": ["alpha", "beta"]}) == 1.0
    table = write(tmp_path, "t.csv", "name,age\nann,3\n")
    assert general.check_csv(table, {"expect": [{"name": "ann"}], "unexpect": [{"name": "bob"}]}) == 1.0
    settings = write(tmp_path, "s.json", '{"a": {"b": [1, 2]}, "font": 14}')
    assert general.check_json(settings, {"expect": [{"key": ["a", "b", 1], "method": "eq", "ref": 2}]}) == 1.0
    assert general.check_json(settings, {"unexpect": [{"key": ["font"], "method": "gt", "ref": 10}]}) == 0.0
    assert text.check_json_settings(settings, {"expected": {"font": 14}}) == 1.0
    keys = write(tmp_path, "k.json", '// comment\n[{"key": "ctrl+j", "command": "x"}]')
    assert text.check_json_keybindings(keys, {"expected": {"key": "ctrl+j", "command": "x"}}) == 1.0
    log = write(tmp_path, "log.txt", "12:00:01 a\nno time\n23:59:59 b\n")
    assert general.check_line_number(log, {"expected": "2"}) == 1.0


def test_check_json_unexpect(tmp_path: Path):
    """OSWorld's ``metrics/general.py::check_json``: under ``unexpect`` a missing key is the
    value None (so ``eq None`` holds and scores 0), and a list index out of range scores 0."""
    settings = write(tmp_path, "s.json", '{"a": [1, 2]}')
    assert general.check_json(settings, {"unexpect": [{"key": ["b"], "method": "eq", "ref": None}]}) == 0.0
    assert general.check_json(settings, {"unexpect": [{"key": ["b"], "method": "eq", "ref": 1}]}) == 1.0
    assert general.check_json(settings, {"unexpect": [{"key": ["a", 5], "method": "eq", "ref": 1}]}) == 0.0


def test_text_metrics_read_crlf_as_osworld(tmp_path: Path):
    """OSWorld's ``metrics/vscode.py::compare_config`` and ``compare_text_file`` open files in
    text mode: a CRLF file equals its LF rule text (multi_apps and vs_code tasks)."""
    crlf = tmp_path / "c.txt"
    crlf.write_bytes(b"[core]\r\n\tname = x\r\n")
    assert text.compare_config(crlf, {"expected": "[core]\n\tname = x\n"}) == 1.0
    assert text.compare_text_file(crlf, write(tmp_path, "lf.txt", "[core]\n\tname = x\n")) == 1.0


def test_text_metrics(tmp_path: Path):
    a = write(tmp_path, "a.txt", "one  two\nthree\n")
    b = write(tmp_path, "b.txt", "one two three")
    assert text.compare_text_file(a, b) == 0.0
    assert text.compare_text_file(a, b, ignore_blanks=True) == 1.0
    assert text.compare_text_file(None, b) == 0.0
    assert text.diff_text_file(a, write(tmp_path, "c.txt", "one  two\nfour\n")) == pytest.approx(0.5)
    code = write(tmp_path, "x.py", "#!/usr/bin/env python\n\ndef f():\n\treturn 1   \n")
    assert text.compare_python_pure_text(code, write(tmp_path, "y.py", "def f():\n    return 1\n")) == 1.0
    assert text.compare_result_files(write(tmp_path, "r.txt", "The answer is 42.0"), write(tmp_path, "g.txt", "42.0")) == 1.0
    assert text.is_extension_installed("ms-python.python\n", {"type": "contain", "expected": "ms-python.python"}) == 1.0
    assert text.is_extension_installed("", {"type": "not_contain", "expected": "x"}) == 1.0


def test_zip_metric(tmp_path: Path):
    def archive(name: str, members: dict[str, bytes]) -> Path:
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as z:
            for member, data in members.items():
                z.writestr(member, data)
        return path
    from gui_gym.suites.osworld.metrics.files import compare_zip_files

    gold = archive("g.zip", {"a.txt": b"1", "b.txt": b"2"})
    assert compare_zip_files(archive("r.zip", {"b.txt": b"2", "a.txt": b"1"}), gold) == 1.0
    assert compare_zip_files(archive("s.zip", {"a.txt": b"1"}), gold) == 0.0


def test_url_metrics_as_osworld_compares_urls():
    """OSWorld's ``metrics/utils.py::compare_urls``: the registrable domain without its public
    suffix (airbnb.com = airbnb.com.sg), a bare "www" dropped, the port dropped with the host,
    a lone "/" path as none, the query and the fragment kept. ``is_expected_active_tab_approximate``
    (``metrics/chrome.py``) only drops the query, with no other normalisation."""
    assert web.is_expected_active_tab("https://www.airbnb.com.sg/", {"type": "url", "url": "https://airbnb.com"}) == 1.0
    assert web.is_expected_active_tab("https://example.org:8080/a", {"type": "url", "url": "https://example.org/a"}) == 1.0
    assert web.is_expected_active_tab("https://example.org/a#top", {"type": "url", "url": "https://example.org/a"}) == 0.0
    assert web.is_expected_active_tab("https://drugs.com/npc", {"type": "url", "url": "https://www.drugs.com/npc/"}) == 0.0
    assert web.is_expected_active_tab_approximate("https://e.com/p?x=1", {"type": "url", "url": "https://e.com/p?y=2"}) == 1.0
    assert web.is_expected_active_tab_approximate("https://www.e.com/p", {"type": "url", "url": "https://e.com/p"}) == 0.0
    assert web.is_expected_url_pattern_match({"url": "https://example.com"}, {"expected": ["google"]}) == 0.0
