"""Metrics on whole files (OSWorld's PDF, archive and e-book checks): PDF text similarity,
page counts and embedded images, zip files, archives of documents, EPUB books.

PDF text and images: OSWorld reads them with PyMuPDF (``fitz``), which is AGPL-licensed and
not a dependency of gui-gym. When it is installed it is used, exactly as OSWorld does;
otherwise pypdf reads the PDFs, a documented difference: identical PDFs score the same, but
pypdf can order or space a page's text differently, which moves partial fuzzy scores (see
docs/osworld.md).
"""

from __future__ import annotations

import difflib
import importlib.util
import io
import logging
import os
import shutil
import zipfile
from pathlib import Path
from typing import Any

from gui_gym.suites.osworld.metrics.common import fuzzy_ratio, require

logger = logging.getLogger(__name__)

HASH_THRESHOLD = 5
PDF_MEMBER_SIMILARITY = 0.95


def pymupdf_available() -> bool:
    return importlib.util.find_spec("fitz") is not None


def pdf_text(source: str | Path | bytes) -> str:
    """The text of every page, concatenated and stripped (PyMuPDF when installed, else pypdf)."""
    if pymupdf_available():
        import fitz

        with (fitz.open(stream=source) if isinstance(source, bytes) else fitz.open(source)) as pdf:
            return "".join(page.get_text() for page in pdf).strip()
    pypdf = require("pypdf", "pypdf", "compare_pdfs")
    reader = pypdf.PdfReader(io.BytesIO(source) if isinstance(source, bytes) else str(source))
    return "".join(page.extract_text() or "" for page in reader.pages).strip()


def pdf_images(path: str | Path) -> list[Any]:
    """The images embedded in each page, as PIL images (undecodable ones skipped)."""
    from PIL import Image

    found = []
    if pymupdf_available():
        import fitz

        with fitz.open(path) as pdf:
            for page in pdf:
                for entry in page.get_images(full=True):
                    data = pdf.extract_image(entry[0])["image"]
                    try:
                        found.append(Image.open(io.BytesIO(data)))
                    except Exception as exc:  # noqa: BLE001 - OSWorld skips an undecodable image
                        logger.info("pdf image not decodable: %s", exc)
        return found
    pypdf = require("pypdf", "pypdf", "compare_pdf_images")
    for page in pypdf.PdfReader(str(path)).pages:
        for image in page.images:
            try:
                found.append(Image.open(io.BytesIO(image.data)))
            except Exception as exc:  # noqa: BLE001 - as OSWorld
                logger.info("pdf image not decodable: %s", exc)
    return found


def compare_pdfs(result: Any, expected: Any) -> float:
    """Mean fuzzy ratio of the texts of result/expected PDF pairs (one pair, or parallel
    lists); a pair that cannot be read adds 0."""
    if not isinstance(expected, list):
        result, expected = [result], [expected]
    total = 0.0
    for a, b in zip(result, expected):
        try:
            total += fuzzy_ratio(pdf_text(a), pdf_text(b))
        except Exception as exc:  # noqa: BLE001 - OSWorld counts an unreadable pair as 0
            logger.info("compare_pdfs: %s", exc)
    return total / len(expected)


def compare_pdf_images(result: Any, expected: Any, **options: Any) -> float:
    """The PDFs embed as many images; the share of image pairs whose perceptual hashes
    differ by at most 5 bits (no images in either: 1)."""
    from gui_gym.suites.osworld.metrics.similarity import hash_distance, phash

    if not result or not expected or not all(os.path.exists(p) for p in (result, expected)):
        return 0.0
    try:
        first, second = pdf_images(result), pdf_images(expected)
    except Exception as exc:  # noqa: BLE001 - OSWorld scores unreadable PDFs 0
        logger.info("compare_pdf_images: %s", exc)
        return 0.0
    if len(first) != len(second):
        return 0.0
    if not first:
        return 1.0
    close = sum(hash_distance(phash(a), phash(b)) <= HASH_THRESHOLD for a, b in zip(first, second))
    return close / len(first)


def check_pdf_pages(result: Any, rules: dict[str, Any]) -> float:
    """The page count compared with ``ref_value`` by ``relation`` (an operator name)."""
    import operator

    if result is None:
        return 0.0
    pages = len(require("pypdf", "pypdf", "check_pdf_pages").PdfReader(result).pages)
    return float(getattr(operator, rules["relation"])(pages, rules["ref_value"]))


def compare_zip_files(result: Any, expected: Any, **options: Any) -> float:
    """Same member names and bytes; PDF members by text (difflib ratio at least 0.95)."""
    if not result:
        return 0.0
    with zipfile.ZipFile(result) as a, zipfile.ZipFile(expected) as b:
        names = set(a.namelist())
        if names != set(b.namelist()):
            return 0.0
        for name in names:
            x, y = a.read(name), b.read(name)
            if name.lower().endswith(".pdf"):
                if difflib.SequenceMatcher(None, _pypdf_text(x), _pypdf_text(y)).ratio() < PDF_MEMBER_SIMILARITY:
                    return 0.0
            elif x != y:
                return 0.0
    return 1.0


def _pypdf_text(data: bytes) -> str:
    """A PDF's text as OSWorld's compare_zip_files reads it (PyPDF2, pypdf's predecessor)."""
    reader = require("pypdf", "pypdf", "compare_zip_files").PdfReader(io.BytesIO(data))
    return "".join(page.extract_text() for page in reader.pages)


def _compare_function(kind: str) -> Any:
    from gui_gym.suites.osworld.metrics import audio, docs, images, media, slides, table, text

    functions = {"text": text.compare_text_file, "pdf": compare_pdfs, "docx": docs.compare_docx_files,
                 "ppt": slides.compare_pptx_files, "image": images.compare_images, "csv": table.compare_csv,
                 "table": table.compare_table, "audio": audio.compare_audios, "video": media.compare_videos}
    if kind not in functions:
        raise ValueError(f"[ERROR]: not support file type: {kind}")
    return functions[kind]


def compare_archive(result: Any, expected: Any, **options: Any) -> float:
    """Both archives unpacked (next to them, as ``<name>_pred`` / ``<name>_gold``); the files
    of ``file_path`` inside must have the same names, and score the mean of the
    ``file_type`` comparison (text, pdf, docx, ppt, image, csv, table, audio, video) of
    each pair, with the remaining options passed on."""
    options = dict(options)
    inner = options.pop("file_path", "")
    if not result:
        return 0.0
    pred = os.path.splitext(result)[0] + "_pred"
    gold = os.path.splitext(expected)[0] + "_gold"
    if os.path.exists(pred):
        shutil.rmtree(pred, ignore_errors=True)
    os.makedirs(pred)
    shutil.unpack_archive(result, pred)
    if not os.path.exists(gold):
        os.makedirs(gold)
        shutil.unpack_archive(expected, gold)
    pred_files = sorted(os.listdir(os.path.join(pred, inner)))
    gold_files = sorted(os.listdir(os.path.join(gold, inner)))
    if pred_files != gold_files:
        return 0.0
    compare = _compare_function(options.pop("file_type", "text"))
    score = 0.0
    for a, b in zip(pred_files, gold_files):
        score += compare(os.path.join(pred, inner, a), os.path.join(gold, inner, b), **options)
    return score / len(pred_files)


def _epub_texts(path: Any) -> list[tuple[str, list[str]]]:
    """(name, lines) of the parts OSWorld compares: ``toc.ncx`` without its navPoint lines,
    ``content.opf`` without its identifiers, every ``.html`` page re-serialised by lxml;
    sorted by name. A page in a sub-folder makes OSWorld's evaluation fail (it writes the
    page to a folder it never creates), and so it does here."""
    lxml_html = require("lxml.html", "lxml", "compare_epub")
    parts: list[tuple[str, list[str]]] = []
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            for name, dropped in (("toc.ncx", "navPoint"), ("content.opf", "dc:identifier")):
                if name in names:
                    lines = archive.read(name).decode().splitlines()
                    parts.append((name, [line for line in lines if dropped not in line]))
            for name in names:
                if name.endswith(".html"):
                    if "/" in name:
                        raise FileNotFoundError(f"OSWorld cannot write the e-book page {name}")
                    page = archive.read(name).decode()
                    tree = lxml_html.fromstring("".join(c for c in page if c not in "\n\r").encode())
                    parts.append((name, lxml_html.tostring(tree, pretty_print=True, encoding="unicode").splitlines()))
    except zipfile.BadZipFile:
        return []
    return sorted(parts)


def compare_epub(result: Any, expected: Any) -> float:
    """Mean (over the result's parts) line similarity of the books' parts, paired in order."""
    if result is None:
        return 0.0
    first, second = _epub_texts(result), _epub_texts(expected)
    total = sum(difflib.SequenceMatcher(a=a, b=b).ratio() for (_, a), (_, b) in zip(first, second))
    return total / len(first) if first else total
