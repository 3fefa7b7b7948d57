"""Spreadsheet metrics: OSWorld's ``compare_table`` and its rule types, ``compare_csv``.

``compare_table(result, expected, rules=[...])`` applies its rules in order and scores 1 only
if all hold. Sheets are named as in OSWorld: ``0``/``"RI0"`` (result, by index), ``"RNName"``
(result, by name), ``"EI0"``/``"ENName"`` (expected). Values are the ones the spreadsheet
saved (formulas' cached results), numbers rounded to ``precision`` (default 4) and compared
as numbers (1 == 1.0), trailing empty rows and columns ignored: what OSWorld compares through
pandas. Workbooks are read with openpyxl (imported here, when a table metric runs); a
``.csv`` result is one sheet named after the file.
"""

from __future__ import annotations

import csv
import datetime
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gui_gym.suites.osworld.metrics.common import (
    fuzzy_ratio,
    match_value,
    missing,
    read_text,
    require,
)

SUPPORTED_RULES = frozenset({"sheet_name", "sheet_data", "sheet_print", "sheet_fuzzy", "check_cell", "freeze",
                             "zoom", "data_validation", "row_props", "col_props", "filter", "chart",
                             "pivot_table"})
"""compare_table rule types this module implements (OSWorld's ``style`` with conditional
formats and ``sparkline`` are not)."""


class Book:
    """One workbook: sheet names in order, openpyxl sheets (values as saved), the file path."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.suffix.lower() == ".csv":
            self.names = [self.path.stem]
            self.rows = {self.path.stem: [[_csv_value(v) for v in row]
                                          for row in csv.reader(read_text(self.path).splitlines())]}
            self.workbook = None
            return
        openpyxl = require("openpyxl", "openpyxl", "compare_table")
        self.workbook = openpyxl.load_workbook(self.path, data_only=True)
        self.names = list(self.workbook.sheetnames)
        self.rows = {}

    def sheet(self, name: str):
        if self.workbook is None or name not in self.names:
            return None
        return self.workbook[name]

    def grid(self, name: str) -> list[list[Any]] | None:
        if name not in self.names:
            return None
        if name not in self.rows:
            self.rows[name] = [list(row) for row in self.workbook[name].iter_rows(values_only=True)]
        return self.rows[name]

    def value(self, name: str, coordinate: str) -> Any:
        """A cell's saved value, numbers as floats (OSWorld reads them so)."""
        sheet = self.sheet(name)
        if sheet is not None:
            value = sheet[coordinate].value
        else:
            from openpyxl.utils.cell import coordinate_to_tuple

            row, col = coordinate_to_tuple(coordinate)
            grid = self.grid(name) or []
            value = grid[row - 1][col - 1] if row <= len(grid) and col <= len(grid[row - 1]) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return value


def _csv_value(text: str) -> Any:
    if text == "":
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and "." not in text else number


def _normal(value: Any, precision: int) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return round(float(value), precision) + 0.0
    if isinstance(value, datetime.datetime) and value.time() == datetime.time(0):
        return value
    if isinstance(value, str) and value == "":
        return None
    return value


def _trimmed(grid: list[list[Any]], precision: int) -> list[tuple[Any, ...]]:
    rows = [[_normal(v, precision) for v in row] for row in grid]
    width = max((i + 1 for row in rows for i, v in enumerate(row) if v is not None), default=0)
    rows = [tuple(row[:width]) + (None,) * (width - len(row[:width])) for row in rows]
    while rows and all(v is None for v in rows[-1]):
        rows.pop()
    return rows


def _sheet_ref(index: int | str, result: Book, expected: Book | None) -> tuple[Book | None, str]:
    """OSWorld's sheet reference -> (book, sheet name)."""
    if isinstance(index, int):
        return result, result.names[index] if index < len(result.names) else ""
    prefix, rest = index[:2], index[2:]
    book = {"RI": result, "RN": result, "EI": expected, "EN": expected}.get(prefix, False)
    if book is False:
        raise ValueError(f"compare_table: unrecognised sheet index {index!r}")
    if book is None:
        return None, ""
    if prefix.endswith("I"):
        position = int(rest)
        return book, book.names[position] if position < len(book.names) else ""
    return book, rest


def _print_lines(book: Book, name: str) -> list[str] | None:
    """The sheet as LibreOffice printed it to ``<file>-<sheet>.csv`` next to the workbook."""
    path = book.path.with_name(f"{book.path.stem}-{name}.csv")
    if not path.exists():
        return None
    lines = [line.strip() for line in read_text(path).splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _fuzzy_cells(a: tuple[Book, str], b: tuple[Book, str], rules: list[dict[str, Any]]) -> bool:
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.cell_range import MultiCellRange

    for rule in rules:
        for cell_range in MultiCellRange(rule["range"]):
            for row, col in cell_range.cells:
                coordinate = f"{get_column_letter(col)}{row}"
                v1, v2 = str(a[0].value(a[1], coordinate)), str(b[0].value(b[1], coordinate))
                for old, new in rule.get("normalization", []):
                    v1, v2 = v1.replace(old, new), v2.replace(old, new)
                if "trim_leadings" in rule:
                    v1, v2 = v1.lstrip(rule["trim_leadings"]), v2.lstrip(rule["trim_leadings"])
                if "trim_trailings" in rule:
                    v1, v2 = v1.rstrip(rule["trim_trailings"]), v2.rstrip(rule["trim_trailings"])
                if "ignore_chars" in rule:
                    drop = set(rule["ignore_chars"])
                    v1, v2 = "".join(c for c in v1 if c not in drop), "".join(c for c in v2 if c not in drop)
                if rule.get("ignore_case", False):
                    v1, v2 = v1.lower(), v2.lower()
                if not _fuzzy_holds(rule, v1, v2):
                    return False
    return True


def _fuzzy_holds(rule: dict[str, Any], v1: str, v2: str) -> bool:
    kind = rule["type"]
    if kind == "includes":
        return v2 in v1
    if kind == "included_by":
        return v1 in v2
    if kind == "exact_match":
        return v1 == v2
    if kind == "fuzzy_match":
        return fuzzy_ratio(v1, v2) * 100 >= rule.get("threshold", 85.0)
    raise ValueError(f"compare_table: unknown sheet_fuzzy type {kind!r}")


def _cell_prop(book: Book, name: str, coordinate: str, prop: str) -> Any:
    if prop == "value":
        return book.value(name, coordinate)
    sheet = book.sheet(name)
    if sheet is None:
        return None
    cell = sheet[coordinate]
    if prop == "merge":
        return any(coordinate in rng for rng in sheet.merged_cells.ranges) and \
            not any(rng.start_cell.coordinate == coordinate for rng in sheet.merged_cells.ranges)
    empty = cell.value is None
    readers: dict[str, Callable[[], Any]] = {
        "number_format": lambda: cell.number_format if cell.data_type == "n" else None,
        "font_name": lambda: cell.font.name, "font_family": lambda: cell.font.family,
        "font_color": lambda: cell.font.color.rgb if cell.font.color is not None else None,
        "font_bold": lambda: cell.font.bold, "font_italic": lambda: cell.font.italic,
        "font_underline": lambda: cell.font.underline, "font_size": lambda: cell.font.size,
        "hyperlink": lambda: cell.hyperlink.target if cell.hyperlink else "",
    }
    if prop in ("fill_type", "bgcolor", "fgcolor"):
        return cell.fill.tagname if prop == "fill_type" else cell.fill.fgColor.rgb
    if prop not in readers:
        raise ValueError(f"compare_table: unsupported cell property {prop!r}")
    return None if empty else readers[prop]()


def _charts(book: Book, name: str, props: list[str]) -> dict[str, dict[str, Any]]:
    sheet = book.sheet(name)
    charts: dict[str, dict[str, Any]] = {}
    for chart in getattr(sheet, "_charts", []) if sheet is not None else []:
        key = ",".join(str(s.val.numRef.f) if s.val is not None and s.val.numRef is not None else "" for s in chart.series)
        info: dict[str, Any] = {}
        for prop in props:
            if prop == "type":
                info[prop] = chart.tagname
            elif prop == "title":
                info[prop] = _title_text(chart.title)
            elif prop == "direction":
                info[prop] = getattr(chart, "barDir", None)
            elif prop == "legend":
                info[prop] = chart.legend.position if chart.legend is not None else None
            elif prop in ("xtitle", "ytitle"):
                axis = chart.x_axis if prop == "xtitle" else chart.y_axis
                info[prop] = _title_text(axis.title)
            else:
                raise ValueError(f"compare_table: unsupported chart property {prop!r}")
        charts[key] = info
    return charts


def _title_text(title: Any) -> str | None:
    if title is None or title.tx is None or title.tx.rich is None:
        return None
    return "".join(run.t for para in title.tx.rich.p for run in (para.r or []))


def _pivots(book: Book, name: str, props: list[str]) -> dict[str, dict[str, Any]]:
    sheet = book.sheet(name)
    pivots: dict[str, dict[str, Any]] = {}
    for pivot in getattr(sheet, "_pivots", []) if sheet is not None else []:
        fields = [f.name for f in pivot.cache.cacheFields]
        info = {
            "row_fields": [fields[f.x] if 0 <= f.x < len(fields) else f.x for f in pivot.rowFields],
            "col_fields": [fields[f.x] if 0 <= f.x < len(fields) else f.x for f in pivot.colFields],
            "data_fields": sorted((fields[f.fld], f.subtotal) for f in pivot.dataFields),
            "filter": sorted(fields[f.fld] for f in pivot.pageFields),
            "location": pivot.location.ref,
        }
        pivots[pivot.location.ref] = {p: info[p] for p in props}
    return pivots


def _dimensions(book: Book, name: str, kind: str, props: list[str]) -> dict[Any, dict[str, Any]]:
    sheet = book.sheet(name)
    holder = getattr(sheet, f"{kind}_dimensions", {}) if sheet is not None else {}
    return {key: {p: getattr(dims, p) for p in props} for key, dims in holder.items()}


def _freeze(book: Book, name: str) -> tuple[Any, ...]:
    sheet = book.sheet(name)
    pane = sheet.sheet_view.pane if sheet is not None else None
    if pane is None:
        return ("none",)
    return ((pane.state or "").lower(), int(pane.xSplit or 0), int(pane.ySplit or 0))


def _autofilter(book: Book, name: str) -> dict[str, Any]:
    sheet = book.sheet(name)
    if sheet is None:
        return {}
    auto = sheet.auto_filter
    columns = []
    for column in auto.filterColumn:
        entry = {"col_id": column.colId}
        if column.filters is not None:
            entry["filters"] = sorted(column.filters.filter)
        if column.customFilters is not None:
            entry["custom"] = sorted((f.operator or "", str(f.val)) for f in column.customFilters.customFilter)
        columns.append(entry)
    return {"ref": auto.ref, "columns": sorted(columns, key=lambda c: c["col_id"])}


def _rule_holds(rule: dict[str, Any], result: Book, expected: Book | None) -> bool:
    kind = rule["type"]
    if kind == "sheet_name":
        return expected is not None and result.names == expected.names
    if kind in ("check_cell", "zoom", "data_validation"):
        book, name = _sheet_ref(rule["sheet_idx"], result, expected)
        if book is None or name not in book.names:
            return False
        if kind == "check_cell":
            return all(match_value(_cell_prop(book, name, rule["coordinate"], prop), prop_rule)
                       for prop, prop_rule in rule["props"].items())
        sheet = book.sheet(name)
        if kind == "zoom":
            return match_value(sheet.sheet_view.zoomScale or 100.0, rule)
        validations = sheet.data_validations.dataValidation
        return len(validations) >= len(rule["dv_props"]) and all(
            any(all(match_value(getattr(dv, attr), attr_rule) for attr, attr_rule in props.items())
                for props in rule["dv_props"]) for dv in validations)
    a = _sheet_ref(rule["sheet_idx0"], result, expected)
    b = _sheet_ref(rule["sheet_idx1"], result, expected)
    if a[0] is None or b[0] is None or a[1] not in a[0].names:
        return False
    if kind == "sheet_data":
        precision = int(rule.get("precision", 4))
        grid_b = b[0].grid(b[1])
        return grid_b is not None and _trimmed(a[0].grid(a[1]), precision) == _trimmed(grid_b, precision)
    if kind == "sheet_print":
        lines_a, lines_b = _print_lines(*a), _print_lines(*b)
        if lines_a is None or lines_b is None:
            return False
        if rule.get("ignore_case", False):
            lines_a, lines_b = [s.lower() for s in lines_a], [s.lower() for s in lines_b]
        return lines_a == lines_b
    if kind == "sheet_fuzzy":
        return _fuzzy_cells(a, b, rule["rules"])
    loaders: dict[str, Callable[[Book, str], Any]] = {
        "freeze": _freeze, "filter": _autofilter,
        "chart": lambda bk, n: _charts(bk, n, rule.get("chart_props", [])),
        "pivot_table": lambda bk, n: _pivots(bk, n, rule.get("pivot_props", [])),
        "row_props": lambda bk, n: _dimensions(bk, n, "row", rule.get("props", [])),
        "col_props": lambda bk, n: _dimensions(bk, n, "column", rule.get("props", [])),
    }
    if kind not in loaders:
        raise NotImplementedError(f"compare_table: rule type {kind!r} is not implemented "
                                  f"(implemented: {sorted(SUPPORTED_RULES)})")
    return loaders[kind](*a) == loaders[kind](*b)


def compare_table(result: Any, expected: Any = None, **options: Any) -> float:
    """1 when every rule in ``options["rules"]`` holds between the result and expected books."""
    if missing(result):
        return 0.0
    invalid = require("openpyxl.utils.exceptions", "openpyxl", "compare_table").InvalidFileException
    try:
        result_book = Book(result)
    except (OSError, zipfile.BadZipFile, invalid, KeyError):
        return 0.0  # not a workbook (an unsaved or corrupted file): OSWorld scores 0
    expected_book = Book(expected) if expected is not None and not missing(expected) else None
    return float(all(_rule_holds(rule, result_book, expected_book) for rule in options["rules"]))


def supports_compare_table(options: dict[str, Any]) -> bool:
    return all(isinstance(r, dict) and r.get("type") in SUPPORTED_RULES for r in options.get("rules", []))


def compare_csv(result: Any, expected: Any, **options: Any) -> float:
    """The CSV files' lines are equal (``strict=False``: stripped; ``ignore_case``); a list
    of expected files scores 1 when any matches."""
    if missing(result):
        return 0.0
    candidates = expected if isinstance(expected, list) else [expected]

    def lines(path: Any) -> list[str]:
        out = read_text(path).splitlines()
        if not options.get("strict", True):
            out = [s.strip() for s in out]
        return [s.lower() for s in out] if options.get("ignore_case", False) else out
    actual = lines(result)
    return float(any(not missing(c) and lines(c) == actual for c in candidates))
