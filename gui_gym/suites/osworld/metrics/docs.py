"""Word-processor metrics (LibreOffice Writer tasks, OSWorld's ``docs.py``) on ``.docx``
files read with python-docx and ``.odt`` files read with odfpy, both imported when one of
these metrics runs. Each reads the documents as OSWorld's does: paragraph texts as the
library gives them (for ``.odt``, the text of each ``text:p`` and of its direct
``text:span`` children), runs as python-docx lists them.
"""

from __future__ import annotations

import io
import logging
import re
import xml.etree.ElementTree as ET
from typing import Any

from gui_gym.errors import GUIGymError
from gui_gym.suites.osworld.metrics.common import fuzzy_ratio, require

logger = logging.getLogger(__name__)

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
OOR_NS = "http://openoffice.org/2001/registry"


def _docx(path: Any, metric: str):
    return require("docx", "python-docx", metric).Document(path)


def _open(path: Any, metric: str) -> Any:
    """The python-docx document, or None when it cannot be read (OSWorld scores that 0)."""
    try:
        return _docx(path, metric)
    except Exception as exc:  # noqa: BLE001 - an unreadable document scores 0 in OSWorld
        logger.info("%s: cannot read %s: %s", metric, path, exc)
        return None


def _odt_paragraphs(path: Any) -> list[str]:
    opendocument = require("odf.opendocument", "odfpy", "compare_docx_files")
    from odf.text import P

    texts = []
    for paragraph in opendocument.load(path).getElementsByType(P):
        parts = []
        for node in paragraph.childNodes:
            if node.nodeType == node.TEXT_NODE:
                parts.append(node.data)
            elif node.nodeType == node.ELEMENT_NODE and node.tagName == "text:span":
                parts.extend(child.data for child in node.childNodes if child.nodeType == child.TEXT_NODE)
        texts.append("".join(parts))
    return texts


def _squash(paragraphs: list[str]) -> str:
    return re.sub(r"\s+", " ", "\n".join(paragraphs)).strip()


def compare_docx_files(result: Any, expected: Any, **options: Any) -> float:
    """Paragraph texts of two ``.docx`` (or two ``.odt``) documents. ``ignore_blanks``
    (default): the whole texts with whitespace runs squashed must be equal (``fuzzy_match``:
    their ratio); otherwise paragraph by paragraph (``fuzzy_match``: the mean ratio).
    ``content_only``: the ratio of the squashed texts. ``ignore_case``, ``ignore_order``,
    ``delete_empty_lines``. Other file types score 0."""
    if not result or not expected:
        return 0.0
    ignore_case = options.get("ignore_case", False)
    first, second = str(result), str(expected)
    try:
        if first.endswith(".docx") and second.endswith(".docx"):
            a = [p.text for p in _docx(first, "compare_docx_files").paragraphs]
            b = [p.text for p in _docx(second, "compare_docx_files").paragraphs]
        elif first.endswith(".odt") and second.endswith(".odt"):
            a, b = _odt_paragraphs(first), _odt_paragraphs(second)
        else:
            return 0.0
    except Exception as exc:  # noqa: BLE001 - an unreadable document scores 0 in OSWorld
        logger.info("compare_docx_files: %s", exc)
        return 0.0
    if options.get("ignore_order", False):
        a, b = sorted(a), sorted(b)
    if options.get("delete_empty_lines", False):
        a, b = [p for p in a if p.strip()], [p for p in b if p.strip()]
    if options.get("content_only", False) or options.get("ignore_blanks", True):
        text1, text2 = _squash(a), _squash(b)
        if ignore_case:
            text1, text2 = text1.lower(), text2.lower()
        if options.get("content_only", False) or options.get("fuzzy_match", False):
            return fuzzy_ratio(text1, text2)
        return float(text1 == text2)
    if len(a) != len(b):
        return 0.0
    if ignore_case:
        a, b = [p.lower() for p in a], [p.lower() for p in b]
    if options.get("fuzzy_match", False):
        if not a:
            return 1.0
        return sum(fuzzy_ratio(x, y) for x, y in zip(a, b)) / len(a)
    return float(a == b)


def compare_docx_files_and_ignore_new_lines(result: Any, expected: Any, **options: Any) -> float:
    """Two ``.docx`` texts equal once empty paragraphs are dropped (whitespace runs squashed
    with ``ignore_blanks``, the default)."""
    if not result or not expected:
        return 0.0
    if not (str(result).endswith(".docx") and str(expected).endswith(".docx")):
        return 0.0
    first, second = _open(result, "compare_docx_files_and_ignore_new_lines"), \
        _open(expected, "compare_docx_files_and_ignore_new_lines")
    if first is None or second is None:
        return 0.0
    a = [p.text for p in first.paragraphs if p.text != ""]
    b = [p.text for p in second.paragraphs if p.text != ""]
    if options.get("ignore_blanks", True):
        return float(_squash(a) == _squash(b))
    return float(a == b)


def compare_docx_tables(result: Any, expected: Any) -> float:
    """Same number of tables, same shapes, same stripped cell texts (by grid position)."""
    if not result or not expected:
        return 0.0
    first, second = _open(result, "compare_docx_tables"), _open(expected, "compare_docx_tables")
    if first is None or second is None:
        return 0.0
    if len(first.tables) != len(second.tables):
        return 0.0
    for a, b in zip(first.tables, second.tables):
        if len(a.rows) != len(b.rows) or len(a.columns) != len(b.columns):
            return 0.0
        for i in range(len(a.rows)):
            for j in range(len(a.columns)):
                if a.cell(i, j).text.strip() != b.cell(i, j).text.strip():
                    return 0.0
    return 1.0


def compare_docx_images(result: Any, expected: Any) -> float:
    """The documents embed as many images, pairwise with the same decoded pixels."""
    if not result or not expected:
        return 0.0
    first, second = _open(result, "compare_docx_images"), _open(expected, "compare_docx_images")
    if first is None or second is None:
        return 0.0
    from PIL import Image

    def images(doc: Any) -> list[bytes]:
        return [rel.target_part.blob for rel in doc.part.rels.values() if "image" in rel.reltype]
    a, b = images(first), images(second)
    if len(a) != len(b):
        return 0.0
    return float(all(Image.open(io.BytesIO(x)).tobytes() == Image.open(io.BytesIO(y)).tobytes() for x, y in zip(a, b)))


def fuzzy_place_math(result: Any, rules: dict[str, Any]) -> float:
    """The document holds exactly three words, each scored by its best fuzzy match among the
    expected answers; the mean."""
    if result is None:
        return 0.0
    words = [w for p in _docx(result, "fuzzy_place_math").paragraphs for w in p.text.split()]
    scores = [max([0.0, *(fuzzy_ratio(word, answer) for answer in rules["expected"])]) for word in words]
    return sum(scores) / 3 if len(scores) == 3 else 0.0


def _train_records(path: Any) -> tuple[list[str], list[str]] | None:
    doc = _open(path, "compare_unique_train_records")
    if doc is None:
        return None
    lines = [p.text.strip() for p in doc.paragraphs if p.text.strip()]
    return lines, [line.split(",")[1].strip() for line in lines if len(line.split(",")) == 4]


def compare_unique_train_records(result: Any, expected: Any, **options: Any) -> float:
    """``expected`` = [gold, initial]: the result keeps only lines of the initial file, its
    train ids are unique and the gold's, and it has as many lines as the gold
    (libreoffice_writer/6f81754e)."""
    if not result or not isinstance(expected, list) or len(expected) < 2 or not expected[0] or not expected[1]:
        return 0.0
    processed, gold, initial = _train_records(result), _train_records(expected[0]), _train_records(expected[1])
    if processed is None or gold is None or initial is None:
        return 0.0
    lines, ids = processed
    return float(set(lines) <= set(initial[0]) and len(ids) == len(set(ids)) and set(ids) == set(gold[1])
                 and len(lines) == len(gold[0]))


def compare_references(result: Any, expected: Any, **options: Any) -> float:
    """The paragraphs after the last ``reference_indicator`` paragraph (default "References"):
    the same number of non-empty ones, scored by the mean fuzzy ratio rescaled above
    ``reference_base_result`` (default 0.5; at or below it plus 0.01 scores 0). Neither
    document having the section scores 1, one having it 0."""
    if not result or not expected:
        return 0.0
    if not (str(result).endswith(".docx") and str(expected).endswith(".docx")):
        return 0.0
    first, second = _open(result, "compare_references"), _open(expected, "compare_references")
    if first is None or second is None:
        return 0.0
    indicator = options.get("reference_indicator", "References")
    base = options.get("reference_base_result", 0.5)
    a, b = [p.text for p in first.paragraphs], [p.text for p in second.paragraphs]
    ia = a.index(indicator) if indicator in a else -1
    ib = b.index(indicator) if indicator in b else -1
    if ia == -1 and ib == -1:
        return 1.0
    if ia == -1 or ib == -1:
        return 0.0
    refs_a, refs_b = [p for p in a[ia + 1:] if p.strip()], [p for p in b[ib + 1:] if p.strip()]
    if len(refs_a) != len(refs_b):
        return 0.0
    mean = sum(fuzzy_ratio(x, y) for x, y in zip(refs_a, refs_b)) / len(refs_a)
    return (mean - base) / (1 - base) if mean >= base + 0.01 else 0.0


def find_default_font(result: Any, rules: dict[str, Any]) -> float:
    """LibreOffice's registry (``registrymodifications.xcu``) sets Writer's default font
    (``DefaultFont``/``Standard``) to ``rules["font_name"]``."""
    if not result:
        return 0.0
    found = None
    try:
        root = ET.parse(result).getroot()
        for item in root.findall('.//item[@oor:path="/org.openoffice.Office.Writer/DefaultFont"]', {"oor": OOR_NS}):
            for prop in item.findall('.//prop[@oor:name="Standard"]', {"oor": OOR_NS}):
                for value in prop.findall("value", {"oor": OOR_NS}):
                    found = value.text
    except Exception as exc:  # noqa: BLE001 - OSWorld compares None then
        logger.info("find_default_font: %s", exc)
    return float(found == rules["font_name"])


def compare_image_text(result: Any, rule: dict[str, Any]) -> float:
    """The image's OCR text contains ``rule["text"]`` (see `ocr.image_text`); an image that
    cannot be read scores 0."""
    from gui_gym.suites.osworld.metrics.ocr import image_text

    if not result:
        return 0.0
    try:
        text = image_text(result)
    except GUIGymError:
        raise
    except Exception as exc:  # noqa: BLE001 - OSWorld scores an image OCR fails on 0
        logger.info("compare_image_text: %s", exc)
        return 0.0
    if rule["type"] != "text":
        raise ValueError(f"compare_image_text: unsupported rule type {rule['type']!r}")
    return float(rule["text"] in text)
