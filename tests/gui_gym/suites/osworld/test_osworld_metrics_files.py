"""File metrics without PyMuPDF (pypdf reads the PDFs), and the safety of the desktop
checks that OSWorld evaluates as code. Parity with OSWorld's code (which reads PDFs with
PyMuPDF) is in test_osworld_parity_files.py."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from gui_gym.suites.osworld.metrics import desktop, files


def text_pdf(path: Path, words: str) -> str:
    """A one-page PDF with `words` in Helvetica, written by hand."""
    stream = f"BT /F1 12 Tf 72 720 Td ({words}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = io.BytesIO(), []
    out.write(b"%PDF-1.4\n")
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    path.write_bytes(out.getvalue())
    return str(path)


@pytest.fixture
def without_pymupdf(monkeypatch):
    monkeypatch.setattr(files, "pymupdf_available", lambda: False)


def test_compare_pdfs_with_pypdf(tmp_path: Path, without_pymupdf):
    """Identical PDFs score 1 whichever library reads them; different texts score their
    fuzzy ratio (pypdf's text can be spaced differently from PyMuPDF's: docs/osworld.md)."""
    a = text_pdf(tmp_path / "a.pdf", "Revenue grew by twelve percent")
    b = text_pdf(tmp_path / "b.pdf", "Revenue grew by twelve percent")
    c = text_pdf(tmp_path / "c.pdf", "Costs fell")
    assert files.compare_pdfs(a, b) == 1.0
    assert 0.0 < files.compare_pdfs(a, c) < 0.5
    assert files.compare_pdfs([a, str(tmp_path / "missing.pdf")], [b, c]) == 0.5
    assert files.check_pdf_pages(a, {"relation": "eq", "ref_value": 1}) == 1.0


def test_compare_pdf_images_with_pypdf(tmp_path: Path, without_pymupdf):
    for name, color in (("r1", "red"), ("r2", "red"), ("b", "blue")):
        Image.new("RGB", (32, 32), color).save(tmp_path / f"{name}.pdf", "PDF")
    assert files.compare_pdf_images(str(tmp_path / "r1.pdf"), str(tmp_path / "r2.pdf")) == 1.0
    text = text_pdf(tmp_path / "t.pdf", "no images")
    assert files.compare_pdf_images(text, text) == 1.0
    assert files.compare_pdf_images(text, str(tmp_path / "b.pdf")) == 0.0


def test_gnome_favourites_are_read_never_run():
    """OSWorld ``eval``s the desktop's gsettings output on its host; gui-gym reads it as a
    literal, so output the agent crafted cannot run code here."""
    assert desktop.check_gnome_favorite_apps("['a.desktop', 'b.desktop']", {"expected": ["b.desktop", "a.desktop"]}) == 1.0
    with pytest.raises(ValueError):
        desktop.check_gnome_favorite_apps("__import__('os').system('true')", {"expected": []})
