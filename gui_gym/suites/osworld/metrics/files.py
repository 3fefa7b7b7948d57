"""Metrics on whole files: PDFs (text similarity) and zip archives (same members, same
bytes; PDFs inside by text). pypdf is imported when a PDF metric runs."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from gui_gym.suites.osworld.metrics.common import fuzzy_ratio, missing, require


def _pdf_text(source: Any) -> str:
    pypdf = require("pypdf", "pypdf", "compare_pdfs")
    reader = pypdf.PdfReader(io.BytesIO(source) if isinstance(source, bytes) else str(source))
    return "".join(page.extract_text() or "" for page in reader.pages).strip()


def compare_pdfs(result: Any, expected: Any) -> float:
    """Mean text similarity of result/expected PDF pairs (one pair, or parallel lists)."""
    results = result if isinstance(result, list) else [result]
    expecteds = expected if isinstance(expected, list) else [expected]
    if not expecteds:
        return 0.0
    total = 0.0
    for a, b in zip(results, expecteds):
        if not missing(a, b):
            total += fuzzy_ratio(_pdf_text(a), _pdf_text(b))
    return total / len(expecteds)


def compare_zip_files(result: Any, expected: Any, **options: Any) -> float:
    """Same member names and contents (PDF members: text similarity >= 0.95)."""
    if missing(result, expected):
        return 0.0
    with zipfile.ZipFile(result) as a, zipfile.ZipFile(expected) as b:
        if set(a.namelist()) != set(b.namelist()):
            return 0.0
        for name in a.namelist():
            x, y = a.read(name), b.read(name)
            if name.lower().endswith(".pdf"):
                if fuzzy_ratio(_pdf_text(x), _pdf_text(y)) < 0.95:
                    return 0.0
            elif x != y:
                return 0.0
    return 1.0
