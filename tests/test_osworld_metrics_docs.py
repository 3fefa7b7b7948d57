"""Writer metrics on .docx files written here with python-docx (and one .odt)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pytest
from docx.enum.text import WD_BREAK, WD_PARAGRAPH_ALIGNMENT

from gui_gym.suites.osworld.metrics import docs


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


def test_odt_paragraphs_are_read(tmp_path: Path):
    content = ('<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
               '<text:p>Hello <text:span>world</text:span></text:p></office:text></office:body></office:document-content>')

    def odt(name: str) -> Path:
        with zipfile.ZipFile(tmp_path / name, "w") as z:
            z.writestr("content.xml", content)
        return tmp_path / name
    assert docs.compare_docx_files(odt("a.odt"), odt("b.odt")) == 1.0


def test_formatting_checks(tmp_path: Path):
    plain = document(tmp_path / "p.docx", ["Title", "Body"])
    assert docs.is_first_line_centered(document(tmp_path / "c.docx", ["Title", "Body"], center=True)) == 1.0
    assert docs.is_first_line_centered(plain) == 0.0
    assert docs.contains_page_break(document(tmp_path / "b.docx", ["Title", "Body"], page_break=True),
                                    {"page_break_count": 1}) == 1.0
    assert docs.contains_page_break(plain) == 0.0
    spaced = document(tmp_path / "s.docx", ["Title", "Body"], spacing=2.0)
    assert docs.compare_line_spacing(spaced, document(tmp_path / "s2.docx", ["Title", "Body"], spacing=2.0)) == 1.0
    assert docs.compare_line_spacing(plain, spaced) == 0.0
    struck = document(tmp_path / "x.docx", ["Title", "Body"], strike=True)
    assert docs.evaluate_strike_through_last_paragraph(struck, plain) == 1.0
    assert docs.evaluate_strike_through_last_paragraph(plain, plain) == 0.0


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
    assert docs.compare_font_names(tmp_path / "f.docx", {"font_name": "Liberation Serif"}) == 1.0
    assert docs.compare_font_names(tmp_path / "f.docx", {"font_name": "Arial"}) == 0.0


@pytest.mark.parametrize("words, score", [(["Paris", "Rome", "Oslo"], 1.0), (["Paris", "Rome"], 0.0)])
def test_fuzzy_place_math(tmp_path: Path, words: list[str], score: float):
    path = document(tmp_path / "w.docx", [" ".join(words)])
    assert docs.fuzzy_place_math(path, {"expected": ["Paris", "Rome", "Oslo"]}) == score
