"""Spreadsheet metrics (OSWorld's ``table.py``): ``compare_table`` and its rule types,
``compare_csv``, ``compare_conference_city_in_order``.

``compare_table(result, expected, rules=[...])`` applies its rules in order and scores 1 only
if all hold. Sheets are named as in OSWorld: ``0``/``"RI0"`` (result, by index), ``"RNName"``
(result, by name), ``"EI0"``/``"ENName"`` (expected). Each rule reads the workbook the way
OSWorld's does, so that the same file scores the same:

- ``sheet_data`` compares the sheets as pandas reads them (``pd.read_excel``: the first row
  as the header, values as saved, numbers rounded to ``precision``, ``DataFrame.equals``,
  where a text "3" in a numeric column reads as the number 3);
- ``check_cell`` reads a cell's raw value from the sheet XML (a date is its serial number,
  a boolean None) and its style from openpyxl with formulas kept (a formula cell has no
  number format);
- ``sheet_print`` compares the ``<file>-<sheet>.csv`` files LibreOffice printed next to the
  workbooks; ``sheet_fuzzy`` compares cells' raw values as text;
- ``chart``, ``pivot_table``, ``filter`` (with the sort state), ``freeze`` (the pane's
  top-left cell), ``zoom``, ``data_validation``, ``row_props``/``col_props``, ``style``
  (conditional formats included) and ``sparkline`` read openpyxl's objects
  (`spreadsheet.py`).

openpyxl and pandas are imported when a table metric runs.
"""

from __future__ import annotations

import os
from typing import Any

from gui_gym.suites.osworld.metrics import spreadsheet
from gui_gym.suites.osworld.metrics.common import match_value, read_lines_any_encoding, require

RULE_TYPES = frozenset({"sheet_name", "sheet_data", "sheet_print", "sheet_fuzzy", "sparkline", "chart", "style",
                        "freeze", "zoom", "data_validation", "row_props", "col_props", "filter", "pivot_table",
                        "check_cell"})
"""The compare_table rule types OSWorld defines, all implemented here."""


class _Books:
    """The result and expected workbooks three ways, as OSWorld opens them: the file path,
    openpyxl with formulas kept, and pandas' ExcelFile (whose sheet names, worksheets only,
    resolve sheet indices)."""

    def __init__(self, result: Any):
        self.paths: dict[str, Any] = {"R": result, "E": None}
        self.xl: dict[str, Any] = {"R": self._openpyxl().load_workbook(filename=result), "E": None}
        self.pd: dict[str, Any] = {"R": self._pandas().ExcelFile(result), "E": None}
        self.names: dict[str, Any] = {"R": self.pd["R"].sheet_names, "E": None}

    def add_expected(self, expected: Any) -> None:
        self.paths["E"] = expected
        self.xl["E"] = self._openpyxl().load_workbook(filename=expected)
        self.pd["E"] = self._pandas().ExcelFile(expected)
        self.names["E"] = self.pd["E"].sheet_names

    @staticmethod
    def _openpyxl():
        return require("openpyxl", "openpyxl", "compare_table")

    @staticmethod
    def _pandas():
        return require("pandas", "pandas", "compare_table")

    def locate(self, index: int | str, kind: str) -> tuple[Any, str]:
        """(book of `kind`: "path", "xl" or "pd"; sheet name) for an OSWorld sheet index."""
        if isinstance(index, int):
            side, by_index, position = "R", True, index
        elif index[:2] in ("RI", "RN", "EI", "EN"):
            side, by_index, position = index[0], index[1] == "I", index[2:]
        else:
            raise ValueError(f"compare_table: unrecognised sheet index {index!r}")
        books = {"path": self.paths, "xl": self.xl, "pd": self.pd}[kind]
        if not by_index:
            return books[side], position
        try:
            name = self.names[side][int(position)]
        except Exception:  # noqa: BLE001 - OSWorld reads an unknown sheet as ""
            name = ""
        return books[side], name


def _load_sheet(book: Any, name: str) -> Any:
    """OSWorld's ``_load_sheet``: printed lines (a path), a DataFrame, or a worksheet; None
    when it cannot be read."""
    pandas = require("pandas", "pandas", "compare_table")
    from openpyxl import Workbook

    try:
        if isinstance(book, pandas.ExcelFile):  # before the paths: an ExcelFile is os.PathLike
            return pandas.read_excel(book, name)
        if isinstance(book, Workbook):
            return book[name]
        if isinstance(book, (str, os.PathLike)):
            printed = f"{os.path.splitext(book)[0]}-{name}.csv"
            lines = [line.strip() for line in reversed(read_lines_any_encoding(printed))]
            while lines and not lines[0]:
                lines.pop(0)
            return lines
    except Exception:  # noqa: BLE001 - an unreadable sheet scores 0 in OSWorld
        return None
    raise ValueError(f"compare_table: sheet {name!r} of a workbook that is not there ({book!r})")


def _fuzzy_cells(books: _Books, rule: dict[str, Any]) -> bool:
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.cell_range import MultiCellRange

    a, b = books.locate(rule["sheet_idx0"], "path"), books.locate(rule["sheet_idx1"], "path")
    holds = True
    for check in rule["rules"]:
        for cell_range in MultiCellRange(check["range"]):
            for row, col in cell_range.cells:
                coordinate = f"{get_column_letter(col)}{row}"
                v1, v2 = str(spreadsheet.read_cell_value(*a, coordinate)), str(spreadsheet.read_cell_value(*b, coordinate))
                for old, new in check.get("normalization", []):
                    v1, v2 = v1.replace(old, new), v2.replace(old, new)
                if "trim_leadings" in check:
                    v1, v2 = v1.lstrip(check["trim_leadings"]), v2.lstrip(check["trim_leadings"])
                if "trim_trailings" in check:
                    v1, v2 = v1.rstrip(check["trim_trailings"]), v2.rstrip(check["trim_trailings"])
                if "ignore_chars" in check:
                    drop = set(check["ignore_chars"])
                    v1, v2 = "".join(c for c in v1 if c not in drop), "".join(c for c in v2 if c not in drop)
                if check.get("ignore_case", False):
                    v1, v2 = v1.lower(), v2.lower()
                kind = check["type"]
                if kind == "includes":
                    ok = v2 in v1
                elif kind == "included_by":
                    ok = v1 in v2
                elif kind == "fuzzy_match":
                    ok = require("rapidfuzz.fuzz", "rapidfuzz", "compare_table").ratio(v1, v2) >= check.get("threshold", 85.0)
                elif kind == "exact_match":
                    ok = v1 == v2
                holds = holds and ok
    return holds


def _check_cell(books: _Books, rule: dict[str, Any]) -> bool | None:
    """None when the sheet cannot be read (compare_table then scores 0)."""
    sheet = _load_sheet(*books.locate(rule["sheet_idx"], "xl"))
    if sheet is None:
        return None
    cell = sheet[rule["coordinate"]]
    holds = True
    for prop, prop_rule in rule["props"].items():
        try:
            if prop == "value":
                value = spreadsheet.read_cell_value(*books.locate(rule["sheet_idx"], "path"), rule["coordinate"])
            else:
                value = spreadsheet.cell_style(prop, cell)
        except Exception:  # noqa: BLE001 - OSWorld reads None for a property it cannot read
            value = None
        holds = holds and match_value(value, prop_rule)
    return holds


def _data_validation(sheet: Any, rule: dict[str, Any]) -> bool:
    validations = sheet.data_validations.dataValidation
    holds = len(validations) >= len(rule["dv_props"])
    for validation in validations:
        matched = any(all(match_value(getattr(validation, attr), attr_rule) for attr, attr_rule in props.items())
                      for props in rule["dv_props"])
        holds = holds and matched
        if not holds:
            break
    return holds


def _same(books: _Books, rule: dict[str, Any], load: Any, kind: str = "xl") -> bool:
    """The rule's two sheets give equal `load(book, sheet)` results."""
    return load(*books.locate(rule["sheet_idx0"], kind)) == load(*books.locate(rule["sheet_idx1"], kind))


def _rule_holds(books: _Books, rule: dict[str, Any]) -> bool | None:
    """Whether the rule holds; None when OSWorld stops and scores 0 (a sheet it cannot read)."""
    kind = rule["type"]
    if kind == "sheet_name":
        return books.names["R"] == books.names["E"]
    if kind == "sheet_data":
        first = _load_sheet(*books.locate(rule["sheet_idx0"], "pd"))
        if first is None:
            return None
        second = _load_sheet(*books.locate(rule["sheet_idx1"], "pd"))
        precision = rule.get("precision", 4)
        return bool(first.round(precision).equals(second.round(precision)))
    if kind == "sheet_print":
        first = _load_sheet(*books.locate(rule["sheet_idx0"], "path"))
        if first is None:
            return None
        second = _load_sheet(*books.locate(rule["sheet_idx1"], "path"))
        if rule.get("ignore_case", False):
            first, second = [s.lower() for s in first], [s.lower() for s in second]
        return first == second
    if kind == "sheet_fuzzy":
        return _fuzzy_cells(books, rule)
    if kind == "sparkline":
        return _same(books, rule, spreadsheet.load_sparklines, "path")
    if kind == "chart":
        return _same(books, rule, lambda b, n: spreadsheet.load_charts(b, n, **rule))
    if kind == "style":
        def styles(index: Any) -> Any:
            return spreadsheet.load_styles(*books.locate(index, "xl"), books.locate(index, "path")[0], **rule)
        return styles(rule["sheet_idx0"]) == styles(rule["sheet_idx1"])
    if kind == "freeze":
        first = _load_sheet(*books.locate(rule["sheet_idx0"], "xl"))
        if first is None:
            return None
        return first.freeze_panes == _load_sheet(*books.locate(rule["sheet_idx1"], "xl")).freeze_panes
    if kind in ("zoom", "data_validation"):
        sheet = _load_sheet(*books.locate(rule["sheet_idx"], "xl"))
        if sheet is None:
            return None
        if kind == "zoom":
            return match_value(sheet.sheet_view.zoomScale or 100.0, rule)
        return _data_validation(sheet, rule)
    if kind in ("row_props", "col_props"):
        obj = "row" if kind == "row_props" else "column"
        return _same(books, rule, lambda b, n: spreadsheet.load_rows_or_cols(b, n, obj=obj, **rule))
    if kind == "filter":
        return _same(books, rule, lambda b, n: spreadsheet.load_filters(b, n, **rule))
    if kind == "pivot_table":
        return _same(books, rule, lambda b, n: spreadsheet.load_pivot_tables(b, n, **rule))
    if kind == "check_cell":
        try:
            return _check_cell(books, rule)
        except Exception:  # noqa: BLE001 - OSWorld scores a cell check that fails 0
            return None
    raise NotImplementedError(f"compare_table: unimplemented sheet check {kind!r}")


def compare_table(result: Any, expected: Any = None, **options: Any) -> float:
    """1 when every rule in ``options["rules"]`` holds between the result and expected books
    (see the module docstring); a result that is not a readable workbook scores 0."""
    if result is None or not os.path.exists(result):
        return 0.0
    try:
        books = _Books(result)
    except Exception:  # noqa: BLE001 - not a workbook (unsaved, corrupted): OSWorld scores 0
        return 0.0
    if expected is not None:
        books.add_expected(expected)
    for rule in options["rules"]:
        holds = _rule_holds(books, rule)
        if not holds:
            return 0.0
    return 1.0


def compare_csv(result: Any, expected: Any, **options: Any) -> float:
    """The CSV files' lines are equal (``strict=False``: stripped; ``ignore_case``); a list
    of expected files scores 1 when any matches (missing ones are skipped)."""
    if result is None:
        return 0.0
    try:
        actual = read_lines_any_encoding(result)
    except OSError:
        return 0.0

    def normal(lines: list[str]) -> list[str]:
        if not options.get("strict", True):
            lines = [s.strip() for s in lines]
        return [s.lower() for s in lines] if options.get("ignore_case", False) else lines
    for candidate in [expected] if isinstance(expected, str) else expected:
        try:
            gold = read_lines_any_encoding(candidate)
        except OSError:
            continue
        if normal(actual) == normal(gold):
            return 1.0
    return 0.0


def compare_conference_city_in_order(result: Any, expected: dict[str, Any]) -> float:
    """Cells C2:C22 of the active sheet hold the expected cities in order (a string: contained
    in the cell; a list: one of them is); any error scores 0."""
    openpyxl = require("openpyxl", "openpyxl", "compare_conference_city_in_order")
    cities = expected["expected"]
    sheet = openpyxl.load_workbook(result).active
    actual = [cell.value for row in sheet["C2:C22"] for cell in row]
    try:
        for index, cell in enumerate(actual):
            wanted = cities[index]
            if isinstance(wanted, str):
                if wanted not in cell:
                    return 0.0
            elif isinstance(wanted, list):
                if not any(option in cell for option in wanted):
                    return 0.0
            else:
                raise TypeError("Expected city should be a string or a list of strings")
    except Exception:  # noqa: BLE001 - OSWorld scores 0 on any error here
        return 0.0
    return 1.0


def supports_compare_table(options: dict[str, Any]) -> bool:
    """Every rule of these compare_table options is a rule type OSWorld defines."""
    return all(isinstance(r, dict) and r.get("type") in RULE_TYPES for r in options.get("rules", []))
