"""What OSWorld's spreadsheet checks read from an ``.xlsx`` file, read the way OSWorld reads
it (``metrics/utils.py``), for `table.compare_table`:

- `read_cell_value`: a cell's raw value from the sheet XML: numbers as floats (a date is its
  serial number), shared and inline strings, formula strings and errors as text, booleans
  and anything else None. The sheet file is found by the sheet's ``sheetId``, as in OSWorld.
- `cell_style`: a property of an openpyxl cell (loaded with formulas, not values): number
  format (numeric cells only), font, fill, hyperlink, merge.
- `load_charts`, `load_pivot_tables`, `load_rows_or_cols`, `load_filters`,
  `load_sparklines`, `load_styles` (cell styles, with conditional formats evaluated by the
  ``formulas`` package as OSWorld does).
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import zipfile
from typing import Any

from gui_gym.suites.osworld.metrics.common import require

logger = logging.getLogger(__name__)

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
X14_NS = "http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"
XM_NS = "http://schemas.microsoft.com/office/excel/2006/main"
NAMESPACES = {"oo": MAIN_NS, "x14": X14_NS, "xm": XM_NS}
PREFIXES = {MAIN_NS: None, X14_NS: "x14", XM_NS: "xm"}
"""Namespace -> key prefix in the dictionaries xmltodict makes (the main one has none)."""


def _etree():
    return require("lxml.etree", "lxml", "compare_table")


def _select(css: str, element: Any) -> list[Any]:
    return require("lxml.cssselect", "cssselect", "compare_table").CSSSelector(css, namespaces=NAMESPACES)(element)


def _as_dict(element: Any) -> dict[str, Any]:
    xmltodict = require("xmltodict", "xmltodict", "compare_table")
    return xmltodict.parse(_etree().tostring(element, encoding="unicode"), process_namespaces=True, namespaces=PREFIXES)


def _sheet_xml(archive: zipfile.ZipFile, sheet_name: str) -> Any:
    """The sheet's XML, from ``xl/worksheets/sheet<sheetId>.xml`` (KeyError when absent)."""
    workbook = _etree().fromstring(archive.read("xl/workbook.xml"))
    ids = {sheet.get("name"): sheet.get("sheetId") for sheet in _select("oo|sheets>oo|sheet", workbook)}
    return _etree().fromstring(archive.read(f"xl/worksheets/sheet{ids[sheet_name]}.xml"))


def _shared_strings(archive: zipfile.ZipFile) -> list[str]:
    try:
        table = _etree().fromstring(archive.read("xl/sharedStrings.xml"))
        return ["".join(t.text for t in _select("oo|t", item)) for item in _select("oo|sst>oo|si", table)]
    except Exception:  # noqa: BLE001 - OSWorld reads no shared strings then (a later lookup fails)
        return []


def read_cell_value(path: Any, sheet_name: str, coordinate: str) -> Any:
    """The cell's raw value (see the module docstring); None when the file, sheet or cell
    is missing. A shared-string index past the table raises, as in OSWorld."""
    if not os.path.exists(path):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            strings = _shared_strings(archive)
            cells = _select(f'oo|row>oo|c[r="{coordinate}"]', _sheet_xml(archive, sheet_name))
    except Exception:  # noqa: BLE001 - OSWorld returns None for any unreadable file
        return None
    if not cells:
        return None
    cell = _as_dict(cells[0])["c"]
    try:
        kind = cell.get("@t", "n")
        if kind == "n":
            return float(cell["v"])
        if kind == "s":
            return strings[int(cell["v"])]
        if kind in ("str", "e"):
            return cell["v"]
        if kind == "inlineStr":
            return cell["is"]["t"]
    except (KeyError, ValueError):
        return None
    return None


def cell_style(prop: str, cell: Any, differential: Any = None) -> Any:
    """A style property of a cell, or of a conditional format's differential style (OSWorld's
    ``_read_cell_style``); font properties of an empty cell are None."""
    source = differential or cell
    empty = cell.value is None
    if prop == "number_format":
        if empty or cell.data_type != "n":
            return None
        return cell.number_format if differential is None else differential.numFmt.formatCode
    fonts = {"font_name": "name", "font_family": "family", "font_bold": "bold", "font_italic": "italic",
             "font_underline": "underline", "font_size": "size"}
    if prop in fonts:
        return None if empty else getattr(source.font, fonts[prop])
    if prop == "font_color":
        return None if empty else source.font.color.rgb
    if prop == "fill_type":
        try:
            return source.fill.tagname
        except Exception:  # noqa: BLE001 - OSWorld reads None
            return None
    if prop in ("bgcolor", "fgcolor"):
        try:
            return differential.fill.bgColor.rgb if differential is not None else cell.fill.fgColor.rgb
        except Exception:  # noqa: BLE001 - OSWorld reads None
            return None
    if prop == "hyperlink":
        return None if empty else (cell.hyperlink or "")
    if prop == "merge":
        from openpyxl.cell.cell import MergedCell

        return isinstance(cell, MergedCell)
    raise NotImplementedError(f"compare_table: unsupported cell style {prop!r}")


def _source_formula(source: Any) -> str:
    """The formula a chart series' values or categories come from (numbers, else strings)."""
    for kind in ("numRef", "strRef"):
        ref = getattr(source, kind, None)
        if ref is not None and hasattr(ref, "f"):
            return f"{ref.f}"
    return ""


def _title(title: Any) -> Any:
    try:
        return title.tx.rich.p[0].r[0].t
    except Exception:  # noqa: BLE001 - OSWorld reads None for a missing title
        return None


def load_charts(workbook: Any, sheet_name: str, **options: Any) -> dict[str, dict[str, Any]]:
    """Charts keyed by their series' ``values,categories`` formulas (joined by ``;``), with the
    properties in ``chart_props``: title (its first run), legend, anchor, width, height, type,
    direction (bar charts only), x/y/ztitle."""
    try:
        sheet = workbook[sheet_name]
    except KeyError:
        return {}
    props = set(options.get("chart_props", ()))
    charts: dict[str, dict[str, Any]] = {}
    for chart in sheet._charts:
        key = ";".join(f"{_source_formula(s.val)},{_source_formula(s.cat)}" for s in chart.series)
        info: dict[str, Any] = {}
        readers = {
            "title": lambda: _title(chart.title),
            "legend": lambda: chart.legend.position if chart.legend is not None else None,
            "anchor": lambda: [chart.anchor.editAs, chart.anchor._from.col, chart.anchor.to.row,
                               chart.anchor.to.col, chart.anchor.to.row],
            "width": lambda: chart.width, "height": lambda: chart.height, "type": lambda: chart.tagname,
            "direction": lambda: chart.barDir, "xtitle": lambda: _title(chart.x_axis.title),
            "ytitle": lambda: _title(chart.y_axis.title), "ztitle": lambda: _title(chart.z_axis.title),
        }
        for prop in readers:
            if prop in props:
                info[prop] = readers[prop]()
        charts[key] = info
    return charts


def load_pivot_tables(workbook: Any, sheet_name: str, **options: Any) -> dict[str, dict[str, Any]]:
    """Pivot tables keyed by their source (type, range trimmed to the fields that have items,
    sheet), with the properties in ``pivot_props`` (fields as indices into the source)."""
    from openpyxl.utils import coordinate_to_tuple

    try:
        sheet = workbook[sheet_name]
    except KeyError:
        return {}
    props = set(options.get("pivot_props", ()))
    pivots: dict[str, dict[str, Any]] = {}
    for pivot in sheet._pivots:
        raw = [[(item.h, item.x) for item in f.items if item.x is not None] for f in pivot.pivotFields]
        trimmed = list(itertools.dropwhile(lambda r: len(r) == 0, raw))
        left = len(raw) - len(trimmed)
        selection = list(itertools.dropwhile(lambda r: len(r) == 0, reversed(trimmed)))[::-1]
        right = len(trimmed) - len(selection)
        cache = pivot.cache.cacheSource
        first, last = cache.worksheetSource.ref.split(":")
        top_left, bottom_right = coordinate_to_tuple(first), coordinate_to_tuple(last)
        source = (f"{cache.type};{(top_left[0], top_left[1] + left)}:{(bottom_right[0], bottom_right[1] - right)};"
                  f"{cache.worksheetSource.sheet}")
        info: dict[str, Any] = {}
        simple = {"name": "name", "show_total": "visualTotals", "show_empty_row": "showEmptyRow",
                  "show_empty_col": "showEmptyCol", "show_headers": "showHeaders", "location": "location"}
        for prop, attribute in simple.items():
            if prop in props:
                info[prop] = getattr(pivot, attribute)
        if "filter" in props or "selection" in props:
            info["selection"] = selection if "ordered" in props else [set(r) for r in selection]
        if "filter" in props:
            info["filter_fields"] = {f.fld for f in pivot.pageFields}
        if "col_fields" in props:
            info["col_fields"] = [f.x - left for f in pivot.colFields]
        if "row_fields" in props:
            info["row_fields"] = [f.x - left for f in pivot.rowFields]
        if "data_fields" in props:
            named = "data_fields_name" in props
            info["data_fields"] = [f"{f.fld - left:d};{f.name if named else ''};{f.subtotal};{f.showDataAs}"
                                   for f in pivot.dataFields]
        pivots[source] = info
    return pivots


def load_rows_or_cols(workbook: Any, sheet_name: str, **options: Any) -> dict[Any, dict[str, Any]]:
    """Row (``obj="row"``) or column dimensions, each with the properties in ``props``."""
    try:
        sheet = workbook[sheet_name]
    except KeyError:
        return {}
    props = set(options.get("props", ()))
    holder = getattr(sheet, f"{options['obj']}_dimensions")
    return {key: {prop: getattr(dims, prop) for prop in props} for key, dims in holder.items()}


def load_filters(workbook: Any, sheet_name: str, **options: Any) -> dict[str, Any]:
    """The sheet's auto-filter: its range, its filter columns and its sort state."""
    try:
        sheet = workbook[sheet_name]
    except KeyError:
        return {}
    auto = sheet.auto_filter
    columns = []
    for column in auto.filterColumn:
        entry: dict[str, Any] = {"col_id": column.colId, "hidden_button": column.hiddenButton,
                                 "show_button": column.showButton}
        if column.filters is not None:
            entry["filters_blank"] = column.filters.blank
            entry["filters"] = set(column.filters.filter)
        if column.customFilters is not None:
            entry["custom_filters_op"] = column.customFilters._and
            entry["custom_filters"] = {(f.operator, f.val) for f in column.customFilters.customFilter}
        columns.append(entry)
    found: dict[str, Any] = {"ref": auto.ref, "filter_column": sorted(columns, key=lambda c: c["col_id"])}
    sort = auto.sortState
    if sort is not None:
        found["sort_state"] = {
            "sort": sort.columnSort, "case": sort.caseSensitive, "method": sort.sortMethod, "ref": sort.ref,
            "condition": [{"descending": c.descending, "key": c.sortBy, "ref": c.ref, "custom_list": c.customList,
                           "dxf_id": c.dxfId, "icon": c.iconSet, "iconid": c.iconId} for c in sort.sortCondition]}
    return found


def load_sparklines(path: Any, sheet_name: str) -> dict[str, str]:
    """Sparklines: their cell (``xm:sqref``) -> their data range (``xm:f``)."""
    try:
        with zipfile.ZipFile(path) as archive:
            sheet = _sheet_xml(archive, sheet_name)
    except zipfile.BadZipFile:
        return {}
    found = {}
    for element in _select("x14|sparkline", sheet):
        sparkline = _as_dict(element)["x14:sparkline"]
        found[sparkline["xm:sqref"]] = sparkline["xm:f"]
    return found


ABSOLUTE_RANGE = re.compile(r"\$(?P<col1>[A-Z]{1,3})\$(?P<row1>\d+)(?::\$(?P<col2>[A-Z]{1,3})\$(?P<row2>\d+))?")
TEXT_RULES = frozenset({"expression", "containsText", "notContainsText", "endsWith", "beginsWith",
                        "containsErrors", "notContainsErrors"})
EMPTY_RUN_LIMIT = 50
"""OSWorld stops testing a conditional-format range after this many empty cells in a row."""


def _cell_is(operator: str, value: Any, refs: list[Any]) -> bool:
    """OSWorld's ``_process_xlsx_cf_operator`` (a type mismatch or a missing reference is False)."""
    try:
        tests = {"lessThanOrEqual": lambda: value <= refs[0], "lessThan": lambda: value < refs[0],
                 "equal": lambda: value == refs[0], "greaterThanOrEqual": lambda: value >= refs[0],
                 "notEqual": lambda: value != refs[0], "greaterThan": lambda: value > refs[0],
                 "between": lambda: min(refs) <= value <= max(refs),
                 "notBetween": lambda: value < min(refs) or value > max(refs)}
        return tests[operator]()
    except (TypeError, IndexError):
        return False


def load_styles(workbook: Any, sheet_name: str, path: Any, **options: Any) -> dict[str, list[Any]]:
    """Every cell's ``props`` styles; cells a conditional format makes active take the format's
    differential style. Conditional formulas are compiled by ``formulas`` and called with the
    tested cell's value first, then the values of the formula's absolute (``$A$1``) ranges, as
    in OSWorld's ``load_xlsx_styles``."""
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.cell_range import CellRange

    try:
        sheet = workbook[sheet_name]
    except KeyError:
        return {}
    props = options.get("props", [])
    styles = {c.coordinate: [cell_style(p, c) for p in props] for column in sheet.iter_cols() for c in column}
    parser = None
    is_active = None
    for conditional in sheet.conditional_formatting:
        for rule in conditional.rules:
            compiled, arguments = [], []
            if rule.formula:
                parser = parser or require("formulas", "formulas", "compare_table (conditional formats)").Parser()
            parsed = True
            for formula in rule.formula:
                try:
                    compiled.append(parser.ast("=" + formula)[1].compile())
                except Exception:  # noqa: BLE001 - OSWorld skips a rule whose formula it cannot parse
                    logger.info("conditional format formula %r not understood; rule skipped", formula)
                    parsed = False
                    break
                values = []
                for col1, row1, col2, row2 in ABSOLUTE_RANGE.findall(formula):
                    if not col2 and not row2:
                        values.append(read_cell_value(path, sheet_name, f"{col1}{row1}"))
                    else:
                        values.append([read_cell_value(path, sheet_name, f"{get_column_letter(c)}{r}")
                                       for r, c in CellRange(f"{col1}{row1}:{col2}{row2}").cells])
                arguments.append(values)
            if not parsed:
                continue
            if rule.type in TEXT_RULES:
                is_active = (lambda f, a: lambda v: f(v, *a))(compiled[0], arguments[0])
            elif rule.type == "cellIs":
                try:
                    references = [f() for f in compiled]
                except Exception:  # noqa: BLE001 - OSWorld skips the rule
                    continue
                is_active = (lambda op, refs: lambda v: _cell_is(op, v, refs))(rule.operator, references)
            active = []
            empty_run = 0
            for cell_range in conditional.cells:
                for row, col in cell_range.cells:
                    value = read_cell_value(path, sheet_name, f"{get_column_letter(col)}{row}")
                    if value is None:
                        empty_run += 1
                        if empty_run > EMPTY_RUN_LIMIT:
                            break
                        continue
                    try:
                        holds = is_active(value)
                    except Exception:  # noqa: BLE001 - OSWorld counts a failing formula as inactive
                        holds = False
                    if holds:
                        active.append(sheet.cell(row=row, column=col))
            for cell in active:
                styles[cell.coordinate] = [cell_style(p, cell, rule.dxf) for p in props]
    return styles
