"""Writer metrics on .docx files written here with python-docx (and one .odt)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pytest
from docx.enum.text import WD_BREAK, WD_PARAGRAPH_ALIGNMENT

from gui_gym.suites.osworld.metrics import docs, docs_format


def document(path: Path, paragraphs: list[str], **options) -> Path:
    d = docx.Document()
    for index, text in enumerate(paragraphs):
        paragraph = d.add_paragraph(text)
        if options.get("spacing"):
            paragraph.paragraph_format.line_spacing = options["spacing"]
        if index == 0 and options.get("center"):
            paragraph.alignment = WD_PARAGRAPH_ALIGNMENT.CENTER
        if index == len(paragraphs) - 1 and options.get("strike"):
            for run in paragraph.runs:
                run.font.strike = True
        if index == 0 and options.get("page_break"):
            paragraph.add_run().add_break(WD_BREAK.PAGE)
    d.save(path)
    return path


def test_compare_docx_files_options(tmp_path: Path):
    gold = document(tmp_path / "g.docx", ["Title", "Body  text"])
    assert docs.compare_docx_files(document(tmp_path / "a.docx", ["Title", "Body text"]), gold) == 1.0
    assert docs.compare_docx_files(tmp_path / "a.docx", gold, ignore_blanks=False) == 0.0
    other = document(tmp_path / "b.docx", ["title", "BODY  TEXT"])
    assert docs.compare_docx_files(other, gold, ignore_case=True) == 1.0
    assert docs.compare_docx_files(document(tmp_path / "c.docx", ["Body  text", "Title"]), gold,
                                   ignore_order=True, ignore_blanks=False) == 1.0
    assert 0.0 < docs.compare_docx_files(other, gold, fuzzy_match=True) < 1.0
    assert docs.compare_docx_files(None, gold) == 0.0
    assert docs.compare_docx_files(tmp_path / "a.docx", tmp_path / "g.odt") == 0.0


def test_odt_paragraphs_are_read_as_odfpy_gives_them(tmp_path: Path):
    """OSWorld's ``metrics/docs.py::compare_docx_files`` reads an .odt's ``text:p`` elements
    with odfpy, each with its direct text and direct ``text:span`` text: a heading
    (``text:h``) is no paragraph, so a document that only adds a heading compares equal."""
    from odf import text as odftext
    from odf.opendocument import OpenDocumentText

    def odt(name: str, heading: str | None = None) -> Path:
        doc = OpenDocumentText()
        if heading:
            doc.text.addElement(odftext.H(outlinelevel=1, text=heading))
        paragraph = odftext.P(text="Hello ")
        paragraph.addElement(odftext.Span(text="world"))
        doc.text.addElement(paragraph)
        doc.save(str(tmp_path / name))
        return tmp_path / name
    assert docs.compare_docx_files(odt("a.odt"), odt("b.odt", heading="Title")) == 1.0
    assert docs.compare_docx_files(odt("a.odt"), document(tmp_path / "a.docx", ["Hello world"])) == 0.0


def test_formatting_checks(tmp_path: Path):
    plain = document(tmp_path / "p.docx", ["Title", "Body"])
    assert docs_format.is_first_line_centered(document(tmp_path / "c.docx", ["Title", "Body"], center=True)) == 1.0
    assert docs_format.is_first_line_centered(plain) == 0.0
    assert docs_format.contains_page_break(document(tmp_path / "b.docx", ["Title", "Body"], page_break=True),
                                    {"page_break_count": 1}) == 1.0
    assert docs_format.contains_page_break(plain, None) == 0.0
    spaced = document(tmp_path / "s.docx", ["Title", "Body"], spacing=2.0)
    assert docs_format.compare_line_spacing(spaced, document(tmp_path / "s2.docx", ["Title", "Body"], spacing=2.0)) == 1.0
    assert docs_format.compare_line_spacing(plain, spaced) == 0.0
    struck = document(tmp_path / "x.docx", ["Title", "Body"], strike=True)
    assert docs_format.evaluate_strike_through_last_paragraph(struck, plain) == 1.0
    assert docs_format.evaluate_strike_through_last_paragraph(plain, plain) == 0.0


def test_tables_and_fonts(tmp_path: Path):
    def with_table(name: str, cells: list[list[str]]) -> Path:
        d = docx.Document()
        table = d.add_table(rows=len(cells), cols=len(cells[0]))
        for r, row in enumerate(cells):
            for c, value in enumerate(row):
                table.cell(r, c).text = value
        d.save(tmp_path / name)
        return tmp_path / name
    gold = with_table("g.docx", [["a", "b"], ["1", "2"]])
    assert docs.compare_docx_tables(with_table("r.docx", [["a ", "b"], ["1", "2"]]), gold) == 1.0
    assert docs.compare_docx_tables(with_table("w.docx", [["a", "b"], ["1", "3"]]), gold) == 0.0
    d = docx.Document()
    d.add_paragraph().add_run("x").font.name = "Liberation Serif"
    d.save(tmp_path / "f.docx")
    assert docs_format.compare_font_names(tmp_path / "f.docx", {"font_name": "Liberation Serif"}) == 1.0
    assert docs_format.compare_font_names(tmp_path / "f.docx", {"font_name": "Arial"}) == 0.0


@pytest.mark.parametrize("words, score", [(["Paris", "Rome", "Oslo"], 1.0), (["Paris", "Rome"], 0.0)])
def test_fuzzy_place_math(tmp_path: Path, words: list[str], score: float):
    path = document(tmp_path / "w.docx", [" ".join(words)])
    assert docs.fuzzy_place_math(path, {"expected": ["Paris", "Rome", "Oslo"]}) == score


def test_page_numbers_are_digits_in_the_first_footer_paragraph(tmp_path: Path):
    """OSWorld's ``has_page_numbers_in_footers`` looks for a digit in the text of each
    section's first footer paragraph: a PAGE field whose cached text is not there fails."""
    d = docx.Document()
    d.add_paragraph("Body")
    d.sections[0].footer.paragraphs[0].text = "Page 1"
    d.save(tmp_path / "n.docx")
    assert docs_format.has_page_numbers_in_footers(tmp_path / "n.docx") == 1.0
    d.sections[0].footer.paragraphs[0].text = "Page"
    d.save(tmp_path / "t.docx")
    assert docs_format.has_page_numbers_in_footers(tmp_path / "t.docx") == 0.0


def test_unique_train_records_count_lines(tmp_path: Path):
    """libreoffice_writer/6f81754e: OSWorld's ``compare_unique_train_records`` also requires
    as many lines as the gold file, so a kept header line scores 0."""
    gold = document(tmp_path / "g.docx", ["08:00:00, T1, S1, 1", "08:05:00, T2, S1, 2"])
    initial = document(tmp_path / "i.docx", ["header", "08:00:00, T1, S1, 1", "08:05:00, T2, S1, 2", "08:10:00, T1, S2, 1"])
    kept = document(tmp_path / "k.docx", ["header", "08:00:00, T1, S1, 1", "08:05:00, T2, S1, 2"])
    assert docs.compare_unique_train_records(gold, [gold, initial]) == 1.0
    assert docs.compare_unique_train_records(kept, [gold, initial]) == 0.0
