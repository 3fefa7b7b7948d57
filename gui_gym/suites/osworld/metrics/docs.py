"""Word-processor metrics (LibreOffice Writer tasks) on ``.docx`` files, read with
python-docx (imported when one of these metrics runs); ``compare_docx_files`` also reads
``.odt`` paragraphs with the standard library."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zipfile
from typing import Any

from gui_gym.suites.osworld.metrics.common import fuzzy_ratio, missing, require

ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _document(path: Any, metric: str):
    docx = require("docx", "python-docx", metric)
    return docx.Document(str(path))


def _paragraphs(path: Any, metric: str) -> list[str] | None:
    """Paragraph texts of a .docx or .odt file; None when it cannot be read."""
    name = str(path).lower()
    try:
        if name.endswith(".docx"):
            return [p.text for p in _document(path, metric).paragraphs]
        if name.endswith(".odt"):
            with zipfile.ZipFile(path) as archive:
                root = ET.fromstring(archive.read("content.xml"))
            return ["".join(p.itertext()) for p in root.iter()
                    if p.tag in (f"{{{ODF_TEXT}}}p", f"{{{ODF_TEXT}}}h")]
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    return None


def compare_docx_files(result: Any, expected: Any, **options: Any) -> float:
    """Paragraph texts of two documents. Default ``ignore_blanks``: the whole texts with
    whitespace runs squashed must be equal; otherwise paragraph by paragraph. Options
    ``ignore_case``, ``ignore_order``, ``delete_empty_lines``, ``fuzzy_match`` (a ratio),
    ``content_only`` (a ratio of the squashed texts)."""
    if missing(result, expected):
        return 0.0
    if str(result).lower().rsplit(".", 1)[-1] != str(expected).lower().rsplit(".", 1)[-1]:
        return 0.0
    a, b = _paragraphs(result, "compare_docx_files"), _paragraphs(expected, "compare_docx_files")
    if a is None or b is None:
        return 0.0
    if options.get("ignore_order", False):
        a, b = sorted(a), sorted(b)
    if options.get("delete_empty_lines", False):
        a, b = [p for p in a if p.strip()], [p for p in b if p.strip()]
    ignore_case = options.get("ignore_case", False)

    def squash(paragraphs: list[str]) -> str:
        text = re.sub(r"\s+", " ", "\n".join(paragraphs)).strip()
        return text.lower() if ignore_case else text
    if options.get("content_only", False):
        return fuzzy_ratio(squash(a), squash(b))
    if options.get("ignore_blanks", True):
        if options.get("fuzzy_match", False):
            return fuzzy_ratio(squash(a), squash(b))
        return float(squash(a) == squash(b))
    if len(a) != len(b):
        return 0.0
    if ignore_case:
        a, b = [p.lower() for p in a], [p.lower() for p in b]
    if options.get("fuzzy_match", False):
        return sum(fuzzy_ratio(x, y) for x, y in zip(a, b)) / len(a) if a else 1.0
    return float(a == b)


def compare_docx_files_and_ignore_new_lines(result: Any, expected: Any, **options: Any) -> float:
    """Texts equal once empty paragraphs are dropped (and whitespace squashed with
    ``ignore_blanks``)."""
    if missing(result, expected):
        return 0.0
    a, b = _paragraphs(result, "compare_docx_files_and_ignore_new_lines"), \
        _paragraphs(expected, "compare_docx_files_and_ignore_new_lines")
    if a is None or b is None:
        return 0.0
    a, b = [p for p in a if p.strip()], [p for p in b if p.strip()]
    if options.get("ignore_blanks", True):
        return float(re.sub(r"\s+", " ", " ".join(a)).strip() == re.sub(r"\s+", " ", " ".join(b)).strip())
    return float(a == b)


def compare_docx_tables(result: Any, expected: Any) -> float:
    """Same number of tables, same shapes, same stripped cell texts."""
    if missing(result, expected):
        return 0.0
    t1, t2 = _document(result, "compare_docx_tables").tables, _document(expected, "compare_docx_tables").tables
    if len(t1) != len(t2):
        return 0.0
    for a, b in zip(t1, t2):
        rows_a = [[c.text.strip() for c in row.cells] for row in a.rows]
        rows_b = [[c.text.strip() for c in row.cells] for row in b.rows]
        if rows_a != rows_b:
            return 0.0
    return 1.0


def compare_docx_images(result: Any, expected: Any) -> float:
    """The documents embed the same images (same pixels), in the same order."""
    if missing(result, expected):
        return 0.0
    import io

    from PIL import Image

    def images(path: Any) -> list[bytes]:
        doc = _document(path, "compare_docx_images")
        blobs = [rel.target_part.blob for rel in doc.part.rels.values() if "image" in rel.reltype]
        return [Image.open(io.BytesIO(blob)).tobytes() for blob in blobs]
    return float(images(result) == images(expected))


def compare_line_spacing(result: Any, expected: Any) -> float:
    """Same text, and every paragraph has the expected line spacing."""
    if not compare_docx_files(result, expected):
        return 0.0
    a, b = _document(result, "compare_line_spacing"), _document(expected, "compare_line_spacing")
    if len(a.paragraphs) != len(b.paragraphs):
        return 0.0
    return float(all(p.paragraph_format.line_spacing == q.paragraph_format.line_spacing
                     for p, q in zip(a.paragraphs, b.paragraphs)))


def compare_font_names(result: Any, rules: dict[str, Any]) -> float:
    if missing(result):
        return 0.0
    doc = _document(result, "compare_font_names")
    return float(all(run.font.name == rules["font_name"] for p in doc.paragraphs for run in p.runs))


def compare_subscript_contains(result: Any, expected: Any) -> float:
    """Some run is a subscript in both documents at the same place."""
    if missing(result, expected):
        return 0.0
    a, b = _document(result, "compare_subscript_contains"), _document(expected, "compare_subscript_contains")
    return float(any(r1.font.subscript and r2.font.subscript
                     for p1, p2 in zip(a.paragraphs, b.paragraphs) for r1, r2 in zip(p1.runs, p2.runs)))


def has_page_numbers_in_footers(result: Any) -> float:
    """Every section's footer starts with a paragraph holding a digit (or a page field)."""
    if missing(result):
        return 0.0
    doc = _document(result, "has_page_numbers_in_footers")
    for section in doc.sections:
        footer = section.footer
        first = footer.paragraphs[0] if footer.paragraphs else None
        if first is None:
            return 0.0
        xml = first._p.xml
        if not any(ch.isdigit() for ch in first.text) and "PAGE" not in xml:
            return 0.0
    return 1.0


def is_first_line_centered(result: Any) -> float:
    if missing(result):
        return 0.0
    docx = require("docx", "python-docx", "is_first_line_centered")
    paragraphs = _document(result, "is_first_line_centered").paragraphs
    return float(bool(paragraphs) and paragraphs[0].paragraph_format.alignment
                 == docx.enum.text.WD_PARAGRAPH_ALIGNMENT.CENTER)


def contains_page_break(result: Any, rules: dict[str, Any] | None = None) -> float:
    """The document has page breaks (exactly ``page_break_count`` when given)."""
    if missing(result):
        return 0.0
    doc = _document(result, "contains_page_break")
    count = sum(1 for p in doc.paragraphs for br in p._p.iter(f"{{{W_NS}}}br")
                if br.get(f"{{{W_NS}}}type") == "page")
    wanted = (rules or {}).get("page_break_count")
    return float(count > 0 and (wanted is None or count == wanted))


def check_italic_font_size_14(result: Any, expected: Any) -> float:
    """Same text, and every italic run is 14 pt."""
    if not compare_docx_files(result, expected):
        return 0.0
    doc = _document(result, "check_italic_font_size_14")
    return float(all(run.font.size is not None and run.font.size.pt == 14
                     for p in doc.paragraphs for run in p.runs if run.italic))


def evaluate_strike_through_last_paragraph(result: Any, expected: Any) -> float:
    """Same text, and every run of the last paragraph is struck through."""
    if not compare_docx_files(result, expected):
        return 0.0
    paragraphs = _document(result, "evaluate_strike_through_last_paragraph").paragraphs
    return float(bool(paragraphs) and all(run.font.strike for run in paragraphs[-1].runs))


def check_tabstops(result: Any, expected: Any, **options: Any) -> float:
    """Tab stops of the non-empty paragraphs agree in alignment; the score drops with the
    distance between positions (relative to the text width). ``word_number_split_by_tabstop``
    requires that many words before tab number ``index``."""
    if missing(result, expected):
        return 0.0
    docx = require("docx", "python-docx", "check_tabstops")
    a = [p for p in _document(result, "check_tabstops").paragraphs if p.text.strip()]
    doc_b = _document(expected, "check_tabstops")
    b = [p for p in doc_b.paragraphs if p.text.strip()]
    if len(a) != len(b) or not a:
        return 0.0
    words = options.get("word_number_split_by_tabstop")
    if words is not None:
        index = options.get("index", 0)
        for paragraph in a:
            parts = paragraph.text.split("\t")
            if index >= len(parts) or len([w for w in re.split(r"\s", parts[index]) if w.strip()]) != words:
                return 0.0
    section = doc_b.sections[0]
    width = section.page_width - section.left_margin - section.right_margin
    align = docx.enum.text.WD_TAB_ALIGNMENT

    def stops(paragraph: Any) -> list[Any]:
        return [t for t in paragraph.paragraph_format.tab_stops
                if not (t.alignment == align.CLEAR or (t.alignment == align.LEFT and t.position == 0))]
    penalty = 0.0
    for p, q in zip(a, b):
        s1, s2 = stops(p), stops(q)
        if len(s1) != len(s2) or any(x.alignment != y.alignment for x, y in zip(s1, s2)):
            return 0.0
        penalty += sum(abs(x.position - y.position) for x, y in zip(s1, s2)) / width
    return max(0.0, 1.0 - penalty / len(a))


def fuzzy_place_math(result: Any, rules: dict[str, Any]) -> float:
    """The document holds exactly three words, each scored by its best fuzzy match among the
    expected answers; the mean."""
    if missing(result):
        return 0.0
    words = [w for p in _document(result, "fuzzy_place_math").paragraphs for w in p.text.split()]
    if len(words) != 3:
        return 0.0
    return sum(max(fuzzy_ratio(w, answer) for answer in rules["expected"]) for w in words) / 3


def compare_unique_train_records(result: Any, expected: Any, **options: Any) -> float:
    """The result keeps only lines of the initial file, with unique train ids equal to the
    gold file's (``expected`` = [gold, initial])."""
    if missing(result) or not isinstance(expected, list) or len(expected) < 2 or missing(*expected[:2]):
        return 0.0

    def records(path: Any) -> tuple[list[str], list[str]]:
        lines = [p.text.strip() for p in _document(path, "compare_unique_train_records").paragraphs if p.text.strip()]
        return lines, [line.split(",")[1].strip() for line in lines if len(line.split(",")) == 4]
    lines, ids = records(result)
    _, gold_ids = records(expected[0])
    initial, _ = records(expected[1])
    return float(set(lines) <= set(initial) and len(ids) == len(set(ids)) and set(ids) == set(gold_ids))
