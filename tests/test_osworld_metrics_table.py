"""compare_table rule types and compare_csv on workbooks written here with openpyxl."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from openpyxl.styles import Font

from gui_gym.suites.osworld.metrics.table import compare_csv, compare_table, supports_compare_table


def book(path: Path, rows: list[list], title: str = "Sheet1", bold: tuple[str, ...] = (), **extra) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = title
    for row in rows:
        ws.append(row)
    for cell in bold:
        ws[cell].font = Font(bold=True)
    if extra.get("freeze"):
        ws.freeze_panes = extra["freeze"]
    if extra.get("merge"):
        ws.merge_cells(extra["merge"])
    wb.save(path)
    return path


DATA = [["Item", "Amount"], ["Pens", 12], ["Ink", 45.00001]]
SHEET_DATA = {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}


def test_sheet_data_compares_saved_values_rounded(tmp_path: Path):
    gold = book(tmp_path / "gold.xlsx", [["Item", "Amount"], ["Pens", 12.0], ["Ink", 45]])
    assert compare_table(book(tmp_path / "r.xlsx", DATA), gold, **SHEET_DATA) == 1.0
    assert compare_table(book(tmp_path / "w.xlsx", DATA + [[None, 1]]), gold, **SHEET_DATA) == 0.0
    assert compare_table(book(tmp_path / "x.xlsx", DATA + [[None, None]]), gold, **SHEET_DATA) == 1.0
    precise = {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0", "precision": 6}]}
    assert compare_table(tmp_path / "r.xlsx", gold, **precise) == 0.0


def test_unreadable_or_missing_result_scores_zero(tmp_path: Path):
    gold = book(tmp_path / "gold.xlsx", DATA)
    (tmp_path / "junk.xlsx").write_bytes(b"not a zip")
    assert compare_table(tmp_path / "junk.xlsx", gold, **SHEET_DATA) == 0.0
    assert compare_table(None, gold, **SHEET_DATA) == 0.0
    assert compare_table(tmp_path / "absent.xlsx", gold, **SHEET_DATA) == 0.0


def test_sheet_names_and_name_references(tmp_path: Path):
    result = book(tmp_path / "r.xlsx", DATA, title="Budget")
    assert compare_table(result, book(tmp_path / "g.xlsx", DATA, title="Budget"), rules=[{"type": "sheet_name"}]) == 1.0
    assert compare_table(result, book(tmp_path / "h.xlsx", DATA), rules=[{"type": "sheet_name"}]) == 0.0
    by_name = {"rules": [{"type": "sheet_data", "sheet_idx0": "RNBudget", "sheet_idx1": "ENSheet1"}]}
    assert compare_table(result, tmp_path / "h.xlsx", **by_name) == 1.0
    missing = {"rules": [{"type": "sheet_data", "sheet_idx0": "RNNope", "sheet_idx1": "EI0"}]}
    assert compare_table(result, tmp_path / "h.xlsx", **missing) == 0.0


def test_check_cell_values_and_styles(tmp_path: Path):
    result = book(tmp_path / "r.xlsx", [["A", "B"], [1, 2]], bold=("A1",), merge="A3:B3")
    rule = {"type": "check_cell", "sheet_idx": 0, "coordinate": "A1",
            "props": {"font_bold": {"method": "eq", "ref": True}, "value": {"method": "eq", "ref": "A"}}}
    assert compare_table(result, rules=[rule]) == 1.0
    rule_b = {**rule, "coordinate": "B1", "props": {"font_bold": {"method": "eq", "ref": True}}}
    assert compare_table(result, rules=[rule_b]) == 0.0
    number = {"type": "check_cell", "sheet_idx": 0, "coordinate": "B2", "props": {"value": {"method": "approx:0.1", "ref": 2.05}}}
    merged = {"type": "check_cell", "sheet_idx": 0, "coordinate": "B3", "props": {"merge": {"method": "eq", "ref": True}}}
    assert compare_table(result, rules=[number, merged]) == 1.0


def test_sheet_fuzzy_and_freeze(tmp_path: Path):
    result = book(tmp_path / "r.xlsx", [["Main Rd.", "x"]], freeze="B2")
    gold = book(tmp_path / "g.xlsx", [["main road", "x"]], freeze="B2")
    fuzzy = {"type": "sheet_fuzzy", "sheet_idx0": 0, "sheet_idx1": "EI0",
             "rules": [{"range": ["A1:A1"], "type": "exact_match", "normalization": [["Rd", "Road"]],
                        "ignore_case": True, "trim_trailings": "."}]}
    assert compare_table(result, gold, rules=[fuzzy]) == 1.0
    freeze = {"type": "freeze", "sheet_idx0": 0, "sheet_idx1": "EI0"}
    assert compare_table(result, gold, rules=[freeze]) == 1.0
    assert compare_table(result, book(tmp_path / "n.xlsx", [["x"]]), rules=[freeze]) == 0.0


def test_sheet_print_reads_exported_csv_next_to_the_books(tmp_path: Path):
    result, gold = book(tmp_path / "r.xlsx", DATA), book(tmp_path / "g.xlsx", DATA)
    (tmp_path / "r-Sheet1.csv").write_text("Item,Amount\nPens,12\n\n")
    (tmp_path / "g-Sheet1.csv").write_text("Item,Amount\nPens,12\n")
    rule = {"type": "sheet_print", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}
    assert compare_table(result, gold, rules=[rule]) == 1.0
    (tmp_path / "g-Sheet1.csv").write_text("Item,Amount\nPens,13\n")
    assert compare_table(result, gold, rules=[rule]) == 0.0


def test_csv_books_and_supported_rules(tmp_path: Path):
    (tmp_path / "r.csv").write_text("Item,Amount\nPens,12\n")
    assert compare_table(tmp_path / "r.csv", book(tmp_path / "g.xlsx", [["Item", "Amount"], ["Pens", 12]]),
                         **SHEET_DATA) == 1.0
    assert supports_compare_table({"rules": [{"type": "chart"}, {"type": "check_cell"}]})
    assert not supports_compare_table({"rules": [{"type": "style"}]})
    with pytest.raises(ValueError, match="unrecognised sheet index 'XX0'"):
        compare_table(tmp_path / "r.csv", rules=[{"type": "sheet_data", "sheet_idx0": "XX0", "sheet_idx1": 0}])


def test_compare_csv(tmp_path: Path):
    (tmp_path / "r.csv").write_text("a,b\n1, 2 \n")
    (tmp_path / "g.csv").write_text("a,b\n1, 2\n")
    assert compare_csv(tmp_path / "r.csv", tmp_path / "g.csv") == 0.0
    assert compare_csv(tmp_path / "r.csv", tmp_path / "g.csv", strict=False) == 1.0
    assert compare_csv(tmp_path / "r.csv", [tmp_path / "none.csv", tmp_path / "r.csv"]) == 1.0
