"""Parity with OSWorld's ``metrics/table.py`` (desktop-env 1.0.2) on generated workbooks:
every compare_table rule type, on files written by openpyxl and on the same files saved
again by LibreOffice (cached formula values, shared and inline strings, booleans, dates),
plus compare_csv and compare_conference_city_in_order."""

from __future__ import annotations

import datetime
import itertools
import shutil
import subprocess
import tempfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.chart import BarChart, LineChart, Reference
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.datavalidation import DataValidation
from tests.osworld_reference import Parity

from gui_gym.suites.osworld.metrics import table

ROWS = {
    "base": [["Item", "Amount", "When"], ["Pens", 12, datetime.datetime(2024, 1, 5)], ["Ink", 45.00001, None]],
    "floats": [["Item", "Amount", "When"], ["Pens", 12.0, datetime.datetime(2024, 1, 5)], ["Ink", 45, None]],
    "text3": [["Item", "Amount", "When"], ["Pens", "12", datetime.datetime(2024, 1, 5)], ["Ink", 45.00001, None]],
    "extra-empty": [["Item", "Amount", "When"], ["Pens", 12, datetime.datetime(2024, 1, 5)], ["Ink", 45.00001, None],
                    [None, None, None]],
    "extra-row": [["Item", "Amount", "When"], ["Pens", 12, datetime.datetime(2024, 1, 5)], ["Ink", 45.00001, None],
                  [None, 1, None]],
    "header": [["item", "Amount", "When"], ["Pens", 12, datetime.datetime(2024, 1, 5)], ["Ink", 45.00001, None]],
    "precise": [["Item", "Amount", "When"], ["Pens", 12, datetime.datetime(2024, 1, 5)], ["Ink", 45.00004, None]],
    "bools": [["Flag", "N"], [True, 1], [False, 2]],
    "bools-text": [["Flag", "N"], ["TRUE", 1], ["FALSE", 2]],
    "na": [["Name", "V"], ["NA", 1], ["x", None]],
    "na2": [["Name", "V"], [None, 1], ["x", None]],
    "formula": [["A", "B", "Sum"], [1, 2, "=A2+B2"], [3, 4, "=A3+B3"]],
    "formula-values": [["A", "B", "Sum"], [1, 2, 3], [3, 4, 7]],
    "dup-header": [["A", "A", None], [1, 2, 3]],
    "empty": [],
    "unicode": [["Città", "Ünit"], ["naïve", "—"]],
}


def _workbook(rows: list[list], title: str = "Sheet1", **features) -> openpyxl.Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = title
    for row in rows:
        ws.append(row)
    if features.get("second"):
        wb.create_sheet("Second").append(["x", 1])
    if features.get("style"):
        ws["A1"].font = Font(bold=True, italic=True, size=14, name="Arial", color="FFFF0000")
        ws["B1"].fill = PatternFill("solid", fgColor="FF0000FF")
        ws["B2"].number_format = "0.00"
        ws["A2"].hyperlink = "https://example.com/"
        ws.merge_cells("D1:E1")
    if features.get("freeze"):
        ws.freeze_panes = features["freeze"]
    if features.get("zoom"):
        ws.sheet_view.zoomScale = features["zoom"]
    if features.get("validation"):
        dv = DataValidation(type="list", formula1=features["validation"], allow_blank=True)
        dv.add("D2:D9")
        ws.add_data_validation(dv)
    if features.get("hidden_row"):
        ws.row_dimensions[2].hidden = True
        ws.column_dimensions["B"].width = 20
    if features.get("filter"):
        ws.auto_filter.ref = "A1:C3"
        ws.auto_filter.add_filter_column(0, ["Pens"])
        if features["filter"] == "sorted":
            ws.auto_filter.add_sort_condition("B2:B3", descending=True)
    if features.get("chart"):
        chart = BarChart() if features["chart"] != "line" else LineChart()
        chart.title = "Sales" if features["chart"] != "untitled" else None
        chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=3), titles_from_data=True)
        chart.set_categories(Reference(ws, min_col=1, min_row=2, max_row=3))
        if features["chart"] == "horizontal":
            chart.type = "bar"
        ws.add_chart(chart, "E5")
    if features.get("conditional"):
        red = PatternFill(bgColor="FFFF0000")
        if features["conditional"] == "formula":
            ws.conditional_formatting.add("B2:B3", FormulaRule(formula=["B2>20"], fill=red))
        else:
            ws.conditional_formatting.add("B2:B3", CellIsRule(operator="greaterThan", formula=["20"], fill=red))
    return wb


VARIANTS = {
    **{name: (rows, {}) for name, rows in ROWS.items()},
    "named": (ROWS["base"], {"title": "Budget"}), "two-sheets": (ROWS["base"], {"second": True}),
    "styled": (ROWS["base"], {"style": True}), "frozen-B2": (ROWS["base"], {"freeze": "B2"}),
    "frozen-A2": (ROWS["base"], {"freeze": "A2"}), "zoom-50": (ROWS["base"], {"zoom": 50}),
    "validation": (ROWS["base"], {"validation": '"Pass,Fail,Held"'}),
    "validation2": (ROWS["base"], {"validation": '"Pass,Held"'}), "rows": (ROWS["base"], {"hidden_row": True}),
    "filter": (ROWS["base"], {"filter": "plain"}), "filter-sorted": (ROWS["base"], {"filter": "sorted"}),
    "chart-bar": (ROWS["base"], {"chart": "bar"}), "chart-line": (ROWS["base"], {"chart": "line"}),
    "chart-horizontal": (ROWS["base"], {"chart": "horizontal"}), "chart-untitled": (ROWS["base"], {"chart": "untitled"}),
    "cf-formula": (ROWS["base"], {"conditional": "formula"}), "cf-cellis": (ROWS["base"], {"conditional": "cellis"}),
}


def _libreoffice_resave(files: list[Path], out: Path) -> list[Path]:
    """The same workbooks saved by LibreOffice (a private profile, so it never meets another
    LibreOffice on this machine)."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.fail("LibreOffice (soffice) is needed to write real workbooks; scripts/setup.sh installs it")
    out.mkdir()
    with tempfile.TemporaryDirectory(prefix="lo-profile-") as profile:
        subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to",
                        "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out), *map(str, files)],
                       check=True, capture_output=True, timeout=300)
    return [out / f.name for f in files]


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-table")
    written = {}
    for name, (rows, features) in VARIANTS.items():
        path = folder / f"{name}.xlsx"
        _workbook(rows, **features).save(path)
        written[name] = path
    resaved = _libreoffice_resave(list(written.values()), folder / "lo")
    out = {name: str(path) for name, path in written.items()}
    out.update({f"lo-{name}": str(path) for name, path in zip(written, resaved)})
    (folder / "junk.xlsx").write_bytes(b"not a zip")
    out["junk"] = str(folder / "junk.xlsx")
    out["missing"] = str(folder / "missing.xlsx")
    for name in ("base", "floats", "header"):  # what LibreOffice prints next to a workbook
        for base in (name, f"lo-{name}"):
            rows = ROWS[name]
            Path(out[base]).with_name(f"{Path(out[base]).stem}-Sheet1.csv").write_text(
                "\n".join(",".join("" if v is None else str(v) for v in row) for row in rows) + "\n\n")
    return out


def run(parity: Parity, cases: list) -> None:
    failures = parity.check(cases)
    assert not failures, "\n".join(failures)


def pairs(books: dict[str, str], names: list[str]) -> list[tuple[str, str, str]]:
    """Result/expected pairs: every ordered pair of the openpyxl-written files of a group,
    and each one against its LibreOffice-saved copy, both ways, and LibreOffice's copies
    against the first of the group's."""
    out = [(f"{a}~{b}", books[a], books[b]) for a, b in itertools.product(names, names)]
    for name in names:
        lo = f"lo-{name}"
        out += [(f"{name}~{lo}", books[name], books[lo]), (f"{lo}~{name}", books[lo], books[name]),
                (f"{lo}~lo-{names[0]}", books[lo], books[f"lo-{names[0]}"])]
    return out


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_sheet_data_and_names(osworld_ref, books):
    theirs = osworld_ref.metrics("table").compare_table
    groups = [["base", "floats", "text3", "extra-empty", "extra-row", "header", "precise", "unicode", "two-sheets"],
              ["bools", "bools-text", "na", "na2"], ["formula", "formula-values", "dup-header", "empty"]]
    rule_sets = {
        "data": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}],
        "data-p2": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "precision": 2}],
        "names": [{"type": "sheet_name"}, {"type": "sheet_data", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"}],
        "second": [{"type": "sheet_data", "sheet_idx0": "RI1", "sheet_idx1": "EI1"}],
    }
    cases = [(f"{label}/{rules}", (a, b), {"rules": rule_sets[rules]})
             for names in groups for label, a, b in pairs(books, names) for rules in rule_sets
             if rules == "data" or label.split("~")[0].removeprefix("lo-") in ("base", "two-sheets", "text3")]
    cases += [(f"bad/{n}", (books[n], books["base"]), {"rules": rule_sets["data"]}) for n in ("junk", "missing")]
    cases += [("none", (None, books["base"]), {"rules": rule_sets["data"]}),
              ("no-expected", (books["base"], None), {"rules": rule_sets["data"]})]
    run(Parity("compare_table/sheet_data", table.compare_table, theirs), cases)


CELL_PROPS = [
    ("A1", {"value": {"method": "eq", "ref": "Item"}}), ("B2", {"value": {"method": "eq", "ref": 12}}),
    ("B2", {"value": {"method": "approx:0.01", "ref": 12}}), ("B2", {"value": {"method": "approx:0.1", "ref": "12"}}),
    ("C2", {"value": {"method": "eq", "ref": 45296.0}}), ("C2", {"value": {"method": "eq", "ref": "2024-01-05"}}),
    ("A2", {"value": {"method": "re", "ref": "^P"}}), ("C3", {"value": {"method": "eq", "ref": None}}),
    ("B2", {"number_format": {"method": "eq", "ref": "0.00"}}), ("B2", {"number_format": {"method": "eq", "ref": "General"}}),
    ("A1", {"font_bold": {"method": "eq", "ref": True}, "font_italic": {"method": "eq", "ref": True}}),
    ("A1", {"font_size": {"method": "eq", "ref": 14}, "font_name": {"method": "eq", "ref": "Arial"}}),
    ("A1", {"font_color": {"method": "eq", "ref": "FFFF0000"}}), ("A2", {"font_color": {"method": "eq", "ref": "FF000000"}}),
    ("B1", {"bgcolor": {"method": "eq", "ref": "FF0000FF"}, "fill_type": {"method": "eq", "ref": "patternFill"}}),
    ("A2", {"hyperlink": {"method": "eq", "ref": "https://example.com/"}}), ("A3", {"hyperlink": {"method": "eq", "ref": ""}}),
    ("E1", {"merge": {"method": "eq", "ref": True}}), ("D1", {"merge": {"method": "eq", "ref": False}}),
    ("A1", {"font_underline": {"method": "eq", "ref": None}}), ("B3", {"value": {"method": "gt", "ref": 40}}),
    ("C2", {"value": {"method": "eq", "ref": 3}, "font_bold": {"method": "eq", "ref": True}}),
]


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_check_cell(osworld_ref, books):
    theirs = osworld_ref.metrics("table").compare_table
    names = ["base", "styled", "bools", "named"]
    cases = []
    for name in names + [f"lo-{n}" for n in names]:
        for index, (coordinate, props) in enumerate(CELL_PROPS):
            for sheet in (0, "RNSheet1", "EI0") if index < 3 else (0,):
                rule = {"type": "check_cell", "sheet_idx": sheet, "coordinate": coordinate, "props": props}
                cases.append((f"{name}/{index}/{sheet}", (books[name], books["base"] if sheet == "EI0" else None),
                              {"rules": [rule]}))
    formula_cells = [("C2", {"value": {"method": "eq", "ref": 3}}), ("C2", {"value": {"method": "eq", "ref": "=A2+B2"}}),
                     ("A2", {"value": {"method": "eq", "ref": True}}), ("A2", {"value": {"method": "eq", "ref": 1.0}}),
                     ("C2", {"number_format": {"method": "eq", "ref": "General"}})]
    for name in ("formula", "lo-formula", "bools", "lo-bools"):
        for index, (coordinate, props) in enumerate(formula_cells):
            rule = {"type": "check_cell", "sheet_idx": 0, "coordinate": coordinate, "props": props}
            cases.append((f"{name}/formula-{index}", (books[name], None), {"rules": [rule]}))
    run(Parity("compare_table/check_cell", table.compare_table, theirs), cases)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_sheet_properties(osworld_ref, books):
    theirs = osworld_ref.metrics("table").compare_table
    pair_rules = {
        "freeze": {"type": "freeze", "sheet_idx0": 0, "sheet_idx1": "EI0"},
        "rows": {"type": "row_props", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["hidden"]},
        "cols": {"type": "col_props", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["width", "hidden"]},
        "filter": {"type": "filter", "sheet_idx0": 0, "sheet_idx1": "EI0"},
        "chart": {"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["type", "title"]},
        "chart-dir": {"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["type", "direction"]},
        "chart-legend": {"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["legend", "xtitle"]},
        "style-bg": {"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["bgcolor"]},
        "style-bold": {"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["font_bold", "number_format"]},
        "style-color": {"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["font_color"]},
        "sparkline": {"type": "sparkline", "sheet_idx0": 0, "sheet_idx1": "EI0"},
        "pivot": {"type": "pivot_table", "sheet_idx0": 0, "sheet_idx1": "EI0",
                  "pivot_props": ["col_fields", "filter", "row_fields", "data_fields"]},
    }
    groups = {
        "freeze": ["base", "frozen-B2", "frozen-A2"], "rows": ["base", "rows"], "cols": ["base", "rows"],
        "filter": ["base", "filter", "filter-sorted"],
        "chart": ["base", "chart-bar", "chart-line", "chart-horizontal", "chart-untitled"],
        "chart-dir": ["chart-bar", "chart-horizontal", "chart-line"], "chart-legend": ["chart-bar", "chart-untitled"],
        "style-bg": ["base", "styled", "cf-formula", "cf-cellis"], "style-bold": ["base", "styled", "cf-cellis"],
        "style-color": ["base", "styled"], "sparkline": ["base", "styled"], "pivot": ["base", "chart-bar"],
    }
    cases = [(f"{rule}/{label}", (a, b), {"rules": [pair_rules[rule]]})
             for rule, names in groups.items() for label, a, b in pairs(books, names)]
    single = [{"type": "zoom", "sheet_idx": 0, "method": "eq", "ref": 50}, {"type": "zoom", "sheet_idx": 0, "method": "ge", "ref": 100},
              {"type": "data_validation", "sheet_idx": 0, "dv_props": [{"type": {"method": "eq", "ref": "list"},
                                                                         "formula1": {"method": "str_set_eq", "ref": ["Pass", "Fail", "Held"]},
                                                                         "sqref": {"method": "spreadsheet_range", "ref": [["D2:D9"], ["D1:D30"]]}}]},
              {"type": "data_validation", "sheet_idx": 0, "dv_props": [{"formula1": {"method": "eq", "ref": '"Pass,Fail,Held"'}}]}]
    for name in ("base", "zoom-50", "validation", "validation2"):
        for base in (name, f"lo-{name}"):
            cases += [(f"single/{base}/{i}", (books[base], None), {"rules": [rule]}) for i, rule in enumerate(single)]
    run(Parity("compare_table/properties", table.compare_table, theirs), cases)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_printed_and_fuzzy_sheets(osworld_ref, books):
    theirs = osworld_ref.metrics("table").compare_table
    printed = [{"type": "sheet_print", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"},
               {"type": "sheet_print", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1", "ignore_case": True}]
    fuzzy = [{"type": "sheet_fuzzy", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1", "rules": [
        {"range": ["A1:C3"], "type": kind, "threshold": 80, "ignore_case": case, "trim_leadings": " ", "trim_trailings": "0",
         "ignore_chars": " ()", "normalization": [["Rd", "Road"]]}]}
        for kind, case in (("exact_match", False), ("fuzzy_match", True), ("includes", True), ("included_by", False))]
    cases = [(f"print{i}/{label}", (a, b), {"rules": [rule]}) for i, rule in enumerate(printed)
             for label, a, b in pairs(books, ["base", "floats", "header"])]
    cases += [(f"fuzzy{i}/{label}", (a, b), {"rules": [rule]}) for i, rule in enumerate(fuzzy)
              for label, a, b in pairs(books, ["base", "header", "unicode"])]
    run(Parity("compare_table/print-fuzzy", table.compare_table, theirs), cases)


def test_compare_csv_and_city_order(osworld_ref, tmp_path):
    theirs = osworld_ref.metrics("table")
    contents = {"a": b"x,y\n1,2\n", "crlf": b"x,y\r\n1,2\r\n", "spaces": b" x,y \n1,2\n", "upper": b"X,Y\n1,2\n",
                "latin1": b"caf\xe9,y\n", "utf8": "café,y\n".encode(), "trailing": b"x,y\n1,2\n\n"}
    paths = {}
    for name, data in contents.items():
        paths[name] = str(tmp_path / f"{name}.csv")
        Path(paths[name]).write_bytes(data)
    missing = str(tmp_path / "missing.csv")
    options = [{}, {"strict": False}, {"ignore_case": True}, {"strict": False, "ignore_case": True}]
    cases = [(f"{a}-{b}-{i}", (paths[a], paths[b]), o) for a in paths for b in paths for i, o in enumerate(options)]
    cases += [("list", (paths["a"], [missing, paths["crlf"]]), {}), ("none", (None, paths["a"]), {}),
              ("missing", (missing, paths["a"]), {})]
    run(Parity("compare_csv", table.compare_csv, theirs.compare_csv), cases)

    wb = openpyxl.Workbook()
    for row, city in enumerate(["Paris, FR", "Lyon", None, "Rome"], start=2):
        wb.active[f"C{row}"] = city
    cities = str(tmp_path / "cities.xlsx")
    wb.save(cities)
    expectations = [["Paris", "Lyon"], ["Paris", ["Nice", "Lyon"]], ["Paris", "Lyon", "X", "Rome"], ["Rome"], [1]]
    cases = [(f"{i}", (cities, {"expected": e}), {}) for i, e in enumerate(expectations)]
    run(Parity("compare_conference_city_in_order", table.compare_conference_city_in_order,
               theirs.compare_conference_city_in_order), cases)
