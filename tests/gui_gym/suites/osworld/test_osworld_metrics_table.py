"""compare_table and compare_csv on workbooks written here with openpyxl: the score-changing
points where OSWorld's ``metrics/table.py`` (desktop-env 1.0.2) reads a workbook in its own
way. The bulk comparison with OSWorld's code is in test_osworld_parity_table.py."""

from __future__ import annotations

import datetime
from pathlib import Path

import openpyxl
import pytest
from openpyxl.worksheet.datavalidation import DataValidation

from gui_gym.suites.osworld.metrics.table import compare_csv, compare_table, supports_compare_table


def book(path: Path, rows: list[list], title: str = "Sheet1", **extra) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = title
    for row in rows:
        ws.append(row)
    if extra.get("freeze"):
        ws.freeze_panes = extra["freeze"]
    if extra.get("validation"):
        dv = DataValidation(type="list", formula1=extra["validation"])
        dv.add("D2:D20")
        ws.add_data_validation(dv)
    if extra.get("link"):
        ws["A2"].hyperlink = extra["link"]
    wb.save(path)
    return path


DATA = [["Item", "Amount"], ["Pens", 12], ["Ink", 45.00001]]
SHEET_DATA = {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}


def check_cell(path: Path, coordinate: str, **props) -> float:
    return compare_table(path, rules=[{"type": "check_cell", "sheet_idx": 0, "coordinate": coordinate, "props": props}])


def test_sheet_data_compares_sheets_as_pandas_reads_them(tmp_path: Path):
    """``compare_table`` ``sheet_data`` is ``pd.read_excel(...).round(4).equals(...)``: values
    within the precision agree, texts "12" and "45.00001" in a numeric column read as numbers,
    a trailing empty row is dropped, a header difference counts, and so do column types:
    12.0 and 45 read as integers, so they differ from 12 and 45.00001 (a float column)."""
    gold = book(tmp_path / "gold.xlsx", [["Item", "Amount"], ["Pens", 12], ["Ink", 45.00002]])
    assert compare_table(book(tmp_path / "r.xlsx", DATA), gold, **SHEET_DATA) == 1.0
    assert compare_table(book(tmp_path / "t.xlsx", [["Item", "Amount"], ["Pens", "12"], ["Ink", "45.00001"]]), gold,
                         **SHEET_DATA) == 1.0
    assert compare_table(book(tmp_path / "x.xlsx", DATA + [[None, None]]), gold, **SHEET_DATA) == 1.0
    assert compare_table(book(tmp_path / "w.xlsx", DATA + [[None, 1]]), gold, **SHEET_DATA) == 0.0
    assert compare_table(book(tmp_path / "h.xlsx", [["item", "Amount"], *DATA[1:]]), gold, **SHEET_DATA) == 0.0
    assert compare_table(book(tmp_path / "i.xlsx", [["Item", "Amount"], ["Pens", 12.0], ["Ink", 45]]), gold,
                         **SHEET_DATA) == 0.0
    precise = {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0", "precision": 5}]}
    assert compare_table(tmp_path / "r.xlsx", gold, **precise) == 0.0


def test_unreadable_or_missing_result_scores_zero(tmp_path: Path):
    gold = book(tmp_path / "gold.xlsx", DATA)
    (tmp_path / "junk.xlsx").write_bytes(b"not a zip")
    assert compare_table(tmp_path / "junk.xlsx", gold, **SHEET_DATA) == 0.0
    assert compare_table(None, gold, **SHEET_DATA) == 0.0
    assert compare_table(tmp_path / "absent.xlsx", gold, **SHEET_DATA) == 0.0
    (tmp_path / "t.csv").write_text("Item,Amount\nPens,12\n")
    assert compare_table(tmp_path / "t.csv", gold, **SHEET_DATA) == 0.0  # OSWorld opens no CSV as a workbook


def test_sheet_names_and_name_references(tmp_path: Path):
    result = book(tmp_path / "r.xlsx", DATA, title="Budget")
    assert compare_table(result, book(tmp_path / "g.xlsx", DATA, title="Budget"), rules=[{"type": "sheet_name"}]) == 1.0
    assert compare_table(result, book(tmp_path / "h.xlsx", DATA), rules=[{"type": "sheet_name"}]) == 0.0
    by_name = {"rules": [{"type": "sheet_data", "sheet_idx0": "RNBudget", "sheet_idx1": "ENSheet1"}]}
    assert compare_table(result, tmp_path / "h.xlsx", **by_name) == 1.0
    missing = {"rules": [{"type": "sheet_data", "sheet_idx0": "RNNope", "sheet_idx1": "EI0"}]}
    assert compare_table(result, tmp_path / "h.xlsx", **missing) == 0.0


def test_check_cell_reads_raw_values(tmp_path: Path):
    """OSWorld's ``metrics/utils.py::read_cell_value`` reads the sheet XML: a number is a float,
    a date is its serial number (2024-01-05 is 45296), a boolean is None; an ``approx`` rule
    against a text reference raises, and the cell check scores 0."""
    path = book(tmp_path / "c.xlsx", [["Item", "When", "Flag"], ["Pens", datetime.datetime(2024, 1, 5), True]])
    assert check_cell(path, "B2", value={"method": "eq", "ref": 45296.0}) == 1.0
    assert check_cell(path, "B2", value={"method": "eq", "ref": "2024-01-05"}) == 0.0
    assert check_cell(path, "C2", value={"method": "eq", "ref": None}) == 1.0
    assert check_cell(path, "C2", value={"method": "eq", "ref": True}) == 0.0
    assert check_cell(path, "A1", value={"method": "eq", "ref": "Item"}) == 1.0
    assert check_cell(book(tmp_path / "n.xlsx", [[12]]), "A1", value={"method": "approx:0.1", "ref": "12"}) == 0.0


def test_check_cell_styles_as_osworld_reads_them(tmp_path: Path):
    """``_read_cell_style``: a formula cell (openpyxl loads formulas, not values) has no number
    format; a hyperlink is openpyxl's Hyperlink object, which equals no URL string."""
    path = book(tmp_path / "s.xlsx", [["Sum", "=1+1"], ["Site", 3]], link="https://example.com/")
    assert check_cell(path, "B1", number_format={"method": "eq", "ref": "General"}) == 0.0
    assert check_cell(path, "B2", number_format={"method": "eq", "ref": "General"}) == 1.0
    assert check_cell(path, "A2", hyperlink={"method": "eq", "ref": "https://example.com/"}) == 0.0
    assert check_cell(path, "A1", hyperlink={"method": "eq", "ref": ""}) == 1.0


def test_list_validation_with_quotes(tmp_path: Path):
    """libreoffice_calc/ecb0df7a: LibreOffice stores the list as ``"Pass,Fail,Held"`` and
    OSWorld's ``str_set_eq`` strips those quotes: a correct file scores 1."""
    path = book(tmp_path / "v.xlsx", DATA, validation='"Pass,Fail,Held"')
    rule = {"type": "data_validation", "sheet_idx": 0, "dv_props": [{
        "type": {"method": "eq", "ref": "list"}, "formula1": {"method": "str_set_eq", "ref": ["Pass", "Held", "Fail"]},
        "sqref": {"method": "spreadsheet_range", "ref": [["D2:D20"], ["D2:D29"]]}}]}
    assert compare_table(path, rules=[rule]) == 1.0


def test_freeze_compares_the_top_left_cell(tmp_path: Path):
    """``freeze`` compares openpyxl's ``freeze_panes`` (the pane's top-left cell)."""
    rule = {"rules": [{"type": "freeze", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}
    gold = book(tmp_path / "g.xlsx", DATA, freeze="B2")
    assert compare_table(book(tmp_path / "r.xlsx", DATA, freeze="B2"), gold, **rule) == 1.0
    assert compare_table(book(tmp_path / "w.xlsx", DATA, freeze="A2"), gold, **rule) == 0.0


def test_rule_types_are_osworld_s():
    assert supports_compare_table({"rules": [{"type": "style"}, {"type": "sparkline"}, {"type": "check_cell"}]})
    assert not supports_compare_table({"rules": [{"type": "nope"}]})


def test_compare_csv(tmp_path: Path):
    """OSWorld's ``compare_csv`` reads lines with ``_safe_read_file`` (text mode: CRLF = LF)."""
    (tmp_path / "a.csv").write_bytes(b"x,y\r\n1,2\r\n")
    (tmp_path / "b.csv").write_text("x,y\n1,2\n")
    (tmp_path / "c.csv").write_text(" X,Y \n1,2\n")
    assert compare_csv(tmp_path / "a.csv", str(tmp_path / "b.csv")) == 1.0
    assert compare_csv(tmp_path / "c.csv", str(tmp_path / "b.csv")) == 0.0
    assert compare_csv(tmp_path / "c.csv", str(tmp_path / "b.csv"), strict=False, ignore_case=True) == 1.0
    assert compare_csv(tmp_path / "a.csv", [str(tmp_path / "missing.csv"), str(tmp_path / "b.csv")]) == 1.0
    assert compare_csv(None, str(tmp_path / "b.csv")) == 0.0


@pytest.mark.parametrize("rows", [[["a"]], []])
def test_empty_sheets_compare_equal(tmp_path: Path, rows):
    assert compare_table(book(tmp_path / "r.xlsx", rows), book(tmp_path / "g.xlsx", rows), **SHEET_DATA) == 1.0


def test_charts_are_keyed_by_values_and_categories(tmp_path: Path):
    """OSWorld's ``metrics/utils.py::load_charts`` keys a chart by its series' value and
    category formulas and reads the title's first run: the same values over other
    categories make another chart."""
    from openpyxl.chart import BarChart, Reference

    def with_chart(name: str, categories_col: int, title: str) -> Path:
        wb = openpyxl.Workbook()
        ws = wb.active
        for row in (["Item", "Amount", "Other"], ["Pens", 12, "a"], ["Ink", 45, "b"]):
            ws.append(row)
        chart = BarChart()
        chart.title = title
        chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=3), titles_from_data=True)
        chart.set_categories(Reference(ws, min_col=categories_col, min_row=2, max_row=3))
        ws.add_chart(chart, "E5")
        wb.save(tmp_path / name)
        return tmp_path / name
    rule = {"rules": [{"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["type", "title"]}]}
    gold = with_chart("g.xlsx", 1, "Sales")
    assert compare_table(with_chart("r.xlsx", 1, "Sales"), gold, **rule) == 1.0
    assert compare_table(with_chart("c.xlsx", 3, "Sales"), gold, **rule) == 0.0
    assert compare_table(with_chart("t.xlsx", 1, "Other"), gold, **rule) == 0.0


def test_filters_compare_the_sort_state(tmp_path: Path):
    """``load_filters`` compares the auto-filter's columns and its sort state."""
    def filtered(name: str, sort: bool) -> Path:
        wb = openpyxl.Workbook()
        ws = wb.active
        for row in DATA:
            ws.append(row)
        ws.auto_filter.ref = "A1:B3"
        if sort:
            ws.auto_filter.add_sort_condition("B2:B3", descending=True)
        wb.save(tmp_path / name)
        return tmp_path / name
    rule = {"rules": [{"type": "filter", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}
    assert compare_table(filtered("a.xlsx", False), filtered("b.xlsx", False), **rule) == 1.0
    assert compare_table(filtered("c.xlsx", True), filtered("d.xlsx", False), **rule) == 0.0
