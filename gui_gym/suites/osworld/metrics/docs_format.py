"""Formatting metrics of Writer documents (OSWorld's ``docs.py``): line spacing, fonts,
subscripts, italics, strike-through, page numbers, centring, page breaks, tab stops,
highlights (``.odt``, odfpy) and colours of words in tables, each after `docs`'s text
comparison where OSWorld makes one first."""

from __future__ import annotations

import re
from typing import Any

from gui_gym.suites.osworld.metrics.common import require
from gui_gym.suites.osworld.metrics.docs import W_NS, _open, compare_docx_files


def compare_line_spacing(result: Any, expected: Any) -> float:
    """Same text (`compare_docx_files`), and paragraph by paragraph the same line spacing."""
    if not result or not expected or not compare_docx_files(result, expected):
        return 0.0
    first, second = _open(result, "compare_line_spacing"), _open(expected, "compare_line_spacing")
    if first is None or second is None or len(first.paragraphs) != len(second.paragraphs):
        return 0.0
    return float(all(p.paragraph_format.line_spacing == q.paragraph_format.line_spacing
                     for p, q in zip(first.paragraphs, second.paragraphs)))


def compare_font_names(result: Any, rules: dict[str, Any]) -> float:
    if not result:
        return 0.0
    doc = _open(result, "compare_font_names")
    if doc is None:
        return 0.0
    return float(all(run.font.name == rules["font_name"] for p in doc.paragraphs for run in p.runs))


def compare_subscript_contains(result: Any, expected: Any) -> float:
    """Some run is a subscript in both documents at the same place."""
    if not result or not expected:
        return 0.0
    first, second = _open(result, "compare_subscript_contains"), _open(expected, "compare_subscript_contains")
    if first is None or second is None:
        return 0.0
    return float(any(r1.font.subscript and r2.font.subscript
                     for p1, p2 in zip(first.paragraphs, second.paragraphs) for r1, r2 in zip(p1.runs, p2.runs)))


def has_page_numbers_in_footers(result: Any) -> float:
    """Every section's footer's first paragraph holds a digit (OSWorld looks for no field)."""
    if not result:
        return 0.0
    doc = _open(result, "has_page_numbers_in_footers")
    if doc is None:
        return 0.0
    for section in doc.sections:
        footer = section.footer
        if footer is None:
            return 0.0
        text = footer.paragraphs[0].text if footer.paragraphs else ""
        if not any(ch.isdigit() for ch in text):
            return 0.0
    return 1.0


def is_first_line_centered(result: Any) -> float:
    if not result:
        return 0.0
    doc = _open(result, "is_first_line_centered")
    if doc is None:
        return 0.0
    docx = require("docx", "python-docx", "is_first_line_centered")
    return float(doc.paragraphs[0].paragraph_format.alignment == docx.enum.text.WD_PARAGRAPH_ALIGNMENT.CENTER)


def contains_page_break(result: Any, rules: Any) -> float:
    """The runs hold page breaks (exactly ``page_break_count`` of them when the rules say)."""
    if not result:
        return 0.0
    doc = _open(result, "contains_page_break")
    if doc is None:
        return 0.0
    try:
        wanted = rules["page_break_count"]
    except Exception:  # noqa: BLE001 - no count asked for
        wanted = None
    count = sum(1 for p in doc.paragraphs for run in p.runs for br in run.element.findall(f".//{{{W_NS}}}br")
                if br.attrib.get(f"{{{W_NS}}}type") == "page")
    if wanted is not None and count != wanted:
        return 0.0
    return float(count > 0)


def check_italic_font_size_14(result: Any, expected: Any) -> float:
    """Same text, and every italic run is 14 pt."""
    if not result or not expected or not compare_docx_files(result, expected):
        return 0.0
    doc = _open(result, "check_italic_font_size_14")
    if doc is None:
        return 0.0
    return float(all(run.font.size is not None and run.font.size.pt == 14
                     for p in doc.paragraphs for run in p.runs if run.italic))


def evaluate_strike_through_last_paragraph(result: Any, expected: Any) -> float:
    """Same text, and every run of the last paragraph is struck through."""
    if not result or not expected or not compare_docx_files(result, expected):
        return 0.0
    doc = _open(result, "evaluate_strike_through_last_paragraph")
    if doc is None:
        return 0.0
    return float(all(run.font.strike for run in doc.paragraphs[-1].runs))


def check_tabstops(result: Any, expected: Any, **options: Any) -> float:
    """Tab stops of the non-empty paragraphs agree in number and alignment; the score is
    1 minus the mean (over paragraphs) distance between positions relative to the text
    width, so it can drop below 0 as in OSWorld. ``word_number_split_by_tabstop`` requires
    that many words before tab number ``index``."""
    if not result or not expected:
        return 0.0
    first, second = _open(result, "check_tabstops"), _open(expected, "check_tabstops")
    if first is None or second is None:
        return 0.0
    a = [p for p in first.paragraphs if p.text.strip()]
    b = [p for p in second.paragraphs if p.text.strip()]
    if len(a) != len(b):
        return 0.0
    words = options.get("word_number_split_by_tabstop")
    if words is not None:
        index = options.get("index", 0)
        for paragraph in a:
            part = paragraph.text.split("\t")[index]
            if len([w for w in re.split(r"\s", part) if w.strip()]) != words:
                return 0.0
    align = require("docx", "python-docx", "check_tabstops").enum.text.WD_TAB_ALIGNMENT
    section = second.sections[0]
    width = section.page_width - section.left_margin - section.right_margin

    def stops(paragraph: Any) -> list[Any]:
        return [t for t in paragraph.paragraph_format.tab_stops
                if not (t.alignment == align.CLEAR or (t.alignment == align.LEFT and t.position == 0))]
    penalty = 0.0
    for p, q in zip(a, b):
        s1, s2 = stops(p), stops(q)
        if len(s1) != len(s2):
            return 0.0
        distance = 0.0
        for x, y in zip(s1, s2):
            if x.alignment != y.alignment:
                return 0.0
            distance += abs(x.position - y.position)
        penalty += distance / width
    return 1 - penalty / len(a)


def check_highlighted_words(result: Any, expected: Any) -> float:
    """Two ``.odt`` files with the same text where no span of the result keeps a yellow
    (``#ffff00``) background in its automatic style: 1 means the highlights were removed."""
    if not result or not expected or not compare_docx_files(result, expected):
        return 0.0
    opendocument = require("odf.opendocument", "odfpy", "check_highlighted_words")
    from odf.text import Span

    doc = opendocument.load(result)
    for span in doc.getElementsByType(Span):
        style = span.getAttribute("stylename")
        if not style:
            continue
        for automatic in doc.automaticstyles.childNodes:
            if automatic.getAttribute("name") == style and any(
                    prop.getAttribute("backgroundcolor") == "#ffff00" for prop in automatic.childNodes):
                return 0.0
    return 1.0


def evaluate_colored_words_in_tables(result: Any, expected: Any, **options: Any) -> float:
    """Same text, and in the result's tables every word starting with a vowel is red and
    every other word blue: CIEDE2000 distance to pure red/blue at most ``threshold`` (3.5)."""
    from gui_gym.suites.osworld.metrics.colors import ciede2000

    if not result or not expected or not compare_docx_files(result, expected):
        return 0.0
    doc = _open(result, "evaluate_colored_words_in_tables")
    if doc is None:
        return 0.0
    threshold = options.get("threshold", 3.5)
    for table in doc.tables:
        for row in table.rows:
            for cell in row.cells:
                for paragraph in cell.paragraphs:
                    for run in paragraph.runs:
                        if not run.text:
                            continue
                        target = (255, 0, 0) if run.text[0].lower() in "aeiou" else (0, 0, 255)
                        if ciede2000(run.font.color.rgb, target) > threshold:
                            return 0.0
    return 1.0


