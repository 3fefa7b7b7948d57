"""Parity with OSWorld's ``metrics/docs.py`` and ``general.py::fuzzy_place_math``
(desktop-env 1.0.2) on generated ``.docx`` (python-docx) and ``.odt`` (odfpy) documents:
texts, whitespace, empty paragraphs, runs and their fonts, tables (merged cells), images,
page breaks, footers, tab stops, line spacing, highlights, colours, references, and
LibreOffice's registry file."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK, WD_TAB_ALIGNMENT
from docx.shared import Inches, Pt, RGBColor
from odf import style as odfstyle
from odf import text as odftext
from odf.opendocument import OpenDocumentText
from tests.osworld_reference import Parity
from PIL import Image

from gui_gym.suites.osworld.metrics import docs, docs_format, general


def _docx(path: Path, paragraphs: list, **features) -> str:
    doc = Document()
    for item in paragraphs:
        if isinstance(item, str):
            doc.add_paragraph(item)
            continue
        paragraph = doc.add_paragraph()
        for run_text, fmt in item:
            run = paragraph.add_run(run_text)
            run.bold, run.italic = fmt.get("bold"), fmt.get("italic")
            run.font.subscript, run.font.strike = fmt.get("sub"), fmt.get("strike")
            if "size" in fmt:
                run.font.size = Pt(fmt["size"])
            if "font" in fmt:
                run.font.name = fmt["font"]
            if "color" in fmt:
                run.font.color.rgb = RGBColor(*fmt["color"])
            if fmt.get("page_break"):
                run.add_break(WD_BREAK.PAGE)
    if features.get("center"):
        doc.paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.CENTER
    if features.get("spacing"):
        for paragraph, value in zip(doc.paragraphs, features["spacing"]):
            paragraph.paragraph_format.line_spacing = value
    if features.get("tabs"):
        for paragraph in doc.paragraphs:
            for position, alignment in features["tabs"]:
                paragraph.paragraph_format.tab_stops.add_tab_stop(Inches(position), alignment)
    if features.get("table"):
        rows = features["table"]
        table = doc.add_table(rows=len(rows), cols=len(rows[0]))
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                cell = table.cell(i, j)
                cell.paragraphs[0].add_run(value[0] if isinstance(value, tuple) else value)
                if isinstance(value, tuple):
                    cell.paragraphs[0].runs[0].font.color.rgb = RGBColor(*value[1])
        if features.get("merge"):
            table.cell(0, 0).merge(table.cell(0, 1))
    if features.get("footer") is not None:
        doc.sections[0].footer.paragraphs[0].text = features["footer"]
    if features.get("image"):
        buffer = io.BytesIO()
        Image.new("RGB", (8, 8), features["image"]).save(buffer, "PNG")
        buffer.seek(0)
        doc.add_picture(buffer)
    doc.save(path)
    return str(path)


def _odt(path: Path, paragraphs: list[tuple[str, bool]], heading: str | None = None) -> str:
    doc = OpenDocumentText()
    yellow = odfstyle.Style(name="Yellow", family="text")
    yellow.addElement(odfstyle.TextProperties(backgroundcolor="#ffff00"))
    bold = odfstyle.Style(name="Bold", family="text")
    bold.addElement(odfstyle.TextProperties(fontweight="bold"))
    doc.automaticstyles.addElement(yellow)
    doc.automaticstyles.addElement(bold)
    if heading:
        doc.text.addElement(odftext.H(outlinelevel=1, text=heading))
    for content, highlighted in paragraphs:
        paragraph = odftext.P(text=content[:3])
        paragraph.addElement(odftext.Span(stylename=yellow if highlighted else bold, text=content[3:]))
        doc.text.addElement(paragraph)
    doc.save(str(path))
    return str(path)


TEXT = ["Hello world", "Second   paragraph", "", "Third"]
DOCX = {
    "base": (TEXT, {}), "same": (TEXT, {}), "spaces": (["Hello  world", "Second paragraph", "Third"], {}),
    "case": (["hello world", "second   paragraph", "", "third"], {}), "order": (["Third", "", "Hello world", "Second   paragraph"], {}),
    "empty-lines": (["Hello world", "", "", "Second   paragraph", "", "Third"], {}), "typo": (["Helo world", "Second   paragraph", "", "Thrid"], {}),
    "empty": ([], {}),
    "runs": ([[("Hello ", {"bold": True}), ("world", {"italic": True, "size": 14})],
              [("H", {}), ("2", {"sub": True}), ("O", {})], [("gone", {"strike": True}), (" too", {"strike": True})]], {}),
    "runs2": ([[("Hello ", {"bold": True}), ("world", {"italic": True, "size": 12})],
               [("H", {}), ("2", {}), ("O", {})], [("gone", {"strike": True}), (" too", {})]], {}),
    "fonts": ([[("Hello", {"font": "Arial"}), (" world", {"font": "Arial"})]], {}),
    "fonts2": ([[("Hello", {"font": "Arial"}), (" world", {"font": "Times"})]], {}),
    "breaks": ([[("one", {"page_break": True})], [("two", {"page_break": True})], "three"], {}),
    "centered": (TEXT, {"center": True}), "spacing": (TEXT, {"spacing": [1.0, 2.0, 1.5, 1.0]}),
    "spacing2": (TEXT, {"spacing": [1.0, 2.0, 1.5, 2.0]}),
    "tabs": (["Name\tAge", "Bob Smith\t3"], {"tabs": [(2.0, WD_TAB_ALIGNMENT.LEFT), (4.0, WD_TAB_ALIGNMENT.RIGHT)]}),
    "tabs2": (["Name\tAge", "Bob\t3"], {"tabs": [(2.5, WD_TAB_ALIGNMENT.LEFT), (4.0, WD_TAB_ALIGNMENT.RIGHT)]}),
    "tabs3": (["Name\tAge", "Bob\t3"], {"tabs": [(2.0, WD_TAB_ALIGNMENT.CENTER), (4.0, WD_TAB_ALIGNMENT.RIGHT)]}),
    "tabs-far": (["Name\tAge", "Bob\t3"], {"tabs": [(6.0, WD_TAB_ALIGNMENT.LEFT), (0.1, WD_TAB_ALIGNMENT.RIGHT)]}),
    "table": (TEXT, {"table": [["a", "b"], ["c", " d "]]}), "table2": (TEXT, {"table": [["a", "b"], ["c", "x"]]}),
    "table-merged": (TEXT, {"table": [["a", "b"], ["c", "d"]], "merge": True}),
    "colors": (TEXT, {"table": [[("apple", (255, 0, 0)), ("pear", (0, 0, 255))], [("egg", (250, 5, 5)), ("fig", (0, 0, 200))]]}),
    "colors2": (TEXT, {"table": [[("apple", (0, 0, 255)), ("pear", (0, 0, 255))]]}),
    "footer": (TEXT, {"footer": "Page 1"}), "footer-text": (TEXT, {"footer": "Page"}),
    "image-red": (TEXT, {"image": "red"}), "image-blue": (TEXT, {"image": "blue"}),
    "refs": (["Intro", "References", "A. Smith. Paper one. 2020.", "", "B. Jones. Paper two. 2021."], {}),
    "refs2": (["Intro", "References", "A. Smith. Paper one. 2021.", "B. Jones. Paper 2. 2021."], {}),
    "refs-short": (["Intro", "References", "A. Smith. Paper one. 2020."], {}),
    "trains": (["08:00:00, T1, S1, 1", "08:05:00, T2, S1, 2", "08:10:00, T1, S2, 1", "header"], {}),
    "trains-gold": (["08:00:00, T1, S1, 1", "08:05:00, T2, S1, 2"], {}),
    "trains-ok": (["08:00:00, T1, S1, 1", "08:05:00, T2, S1, 2"], {}),
    "trains-extra": (["08:00:00, T1, S1, 1", "08:05:00, T2, S1, 2", "header"], {}),
    "trains-dup": (["08:00:00, T1, S1, 1", "08:10:00, T1, S2, 1", "08:05:00, T2, S1, 2"], {}),
    "math": (["Paris London  Rome"], {}), "math4": (["Paris London Rome Oslo"], {}),
}
ODT = {"odt-base": ([("Hello world", False), ("Second line", False)], None),
       "odt-same": ([("Hello world", False), ("Second line", False)], None),
       "odt-high": ([("Hello world", True), ("Second line", False)], None),
       "odt-head": ([("Hello world", False), ("Second line", False)], "Title"),
       "odt-other": ([("Hello there", False), ("Second line", False)], None)}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-docs")
    out = {name: _docx(folder / f"{name}.docx", paragraphs, **features) for name, (paragraphs, features) in DOCX.items()}
    out.update({name: _odt(folder / f"{name}.odt", paragraphs, heading) for name, (paragraphs, heading) in ODT.items()})
    (folder / "junk.docx").write_bytes(b"not a document")
    out["junk"] = str(folder / "junk.docx")
    out["missing"] = str(folder / "missing.docx")
    return out


def run(parity: Parity, cases: list) -> None:
    failures = parity.check(cases)
    assert not failures, "\n".join(failures)


TEXT_DOCS = ["base", "same", "spaces", "case", "order", "empty-lines", "typo", "empty", "junk", "missing", "odt-base", "odt-same",
             "odt-head", "odt-other"]
OPTIONS = [{}, {"ignore_blanks": False}, {"ignore_case": True}, {"ignore_order": True}, {"delete_empty_lines": True},
           {"content_only": True}, {"fuzzy_match": True}, {"ignore_blanks": False, "fuzzy_match": True},
           {"ignore_blanks": False, "ignore_case": True, "delete_empty_lines": True}]


@pytest.mark.slow
def test_text_comparisons(osworld_ref, files):
    theirs = osworld_ref.metrics("docs")
    pairs = [(a, b) for a in TEXT_DOCS for b in ("base", "odt-base", "case")]
    cases = [(f"{a}~{b}/{i}", (files[a], files[b]), o) for a, b in pairs for i, o in enumerate(OPTIONS)]
    cases += [("none", (None, files["base"]), {}), ("mixed-types", (files["base"], files["odt-base"]), {})]
    run(Parity("compare_docx_files", docs.compare_docx_files, theirs.compare_docx_files), cases)
    cases = [(f"{a}~{b}/{o}", (files[a], files[b]), {"ignore_blanks": o}) for a, b in pairs for o in (True, False)]
    run(Parity("compare_docx_files_and_ignore_new_lines", docs.compare_docx_files_and_ignore_new_lines,
               theirs.compare_docx_files_and_ignore_new_lines), cases)


@pytest.mark.slow
def test_formatting_checks(osworld_ref, files):
    theirs = osworld_ref.metrics("docs")
    names = [n for n in files if not n.startswith("odt")]
    pair_metrics = {
        "compare_docx_tables": ["table", "table2", "table-merged", "base", "colors"],
        "compare_docx_images": ["image-red", "image-blue", "base"],
        "compare_line_spacing": ["base", "spacing", "spacing2", "spaces"],
        "compare_subscript_contains": ["runs", "runs2", "base"],
        "check_italic_font_size_14": ["runs", "runs2", "base"],
        "evaluate_strike_through_last_paragraph": ["runs", "runs2", "base"],
        "check_tabstops": ["tabs", "tabs2", "tabs3", "tabs-far", "base"],
        "evaluate_colored_words_in_tables": ["colors", "colors2", "table", "base"],
        "check_highlighted_words": ["odt-base", "odt-high", "odt-same", "odt-other"],
    }
    for metric, group in pair_metrics.items():
        cases = [(f"{a}~{b}", (files[a], files[b]), {}) for a in group + ["junk"] for b in group]
        cases.append(("none", (None, files[group[0]]), {}))
        if metric == "check_tabstops":
            cases += [(f"words{n}-{i}", (files["tabs"], files["tabs"]), {"word_number_split_by_tabstop": n, "index": i})
                      for n in (1, 2) for i in (0, 1)]
        if metric == "evaluate_colored_words_in_tables":
            cases += [("threshold", (files["colors"], files["colors"]), {"threshold": 1.0})]
        ours = getattr(docs_format, metric, None) or getattr(docs, metric)
        run(Parity(metric, ours, getattr(theirs, metric)), cases)
    single = {
        "has_page_numbers_in_footers": ((), ["footer", "footer-text", "base"]),
        "is_first_line_centered": ((), ["centered", "base"]),
        "contains_page_break": (({"page_break_count": 2},), ["breaks", "base"]),
        "compare_font_names": (({"font_name": "Arial"},), ["fonts", "fonts2", "base"]),
    }
    for metric, (extra, group) in single.items():
        cases = [(n, (files[n], *extra), {}) for n in group + ["junk"]] + [("none", (None, *extra), {})]
        if metric == "contains_page_break":
            cases += [(f"{n}-any", (files[n], {}), {}) for n in group] + [("breaks-3", (files["breaks"], {"page_break_count": 3}), {})]
        run(Parity(metric, getattr(docs_format, metric), getattr(theirs, metric)), cases)
    assert names


def test_content_checks(osworld_ref, files, tmp_path):
    theirs = osworld_ref.metrics("docs")
    refs = ["refs", "refs2", "refs-short", "base"]
    cases = [(f"{a}~{b}/{i}", (files[a], files[b]), o) for a in refs for b in refs
             for i, o in enumerate([{}, {"reference_base_result": 0.9}, {"reference_indicator": "Intro"}])]
    run(Parity("compare_references", docs.compare_references, theirs.compare_references), cases)
    trains = ["trains-ok", "trains-extra", "trains-dup", "trains-gold", "base"]
    cases = [(n, (files[n], [files["trains-gold"], files["trains"]]), {}) for n in trains]
    cases += [("short", (files["trains-ok"], [files["trains-gold"]]), {}), ("none", (None, [files["trains-gold"], files["trains"]]), {})]
    run(Parity("compare_unique_train_records", docs.compare_unique_train_records, theirs.compare_unique_train_records), cases)
    answers = {"expected": ["Paris", "London", "Rome", "Berlin"]}
    cases = [(n, (files[n], answers), {}) for n in ("math", "math4", "base")] + [("none", (None, answers), {})]
    run(Parity("fuzzy_place_math", docs.fuzzy_place_math, osworld_ref.metrics("general").fuzzy_place_math), cases)

    registry = {"set": '<oor:items xmlns:oor="http://openoffice.org/2001/registry"><item oor:path="/org.openoffice.Office.Writer/DefaultFont">'
                       '<prop oor:name="Standard" oor:op="fuse"><value>Times New Roman</value></prop></item></oor:items>',
                "other": '<oor:items xmlns:oor="http://openoffice.org/2001/registry"><item oor:path="/org.openoffice.Office.Writer/DefaultFont">'
                         '<prop oor:name="Heading"><value>Times New Roman</value></prop></item></oor:items>', "bad": "<oor:items"}
    cases = []
    for name, content in registry.items():
        path = tmp_path / f"{name}.xcu"
        path.write_text(content)
        cases += [(f"{name}-{font}", (str(path), {"font_name": font}), {}) for font in ("Times New Roman", "Arial")]
    cases.append(("none", (None, {"font_name": "Arial"}), {}))
    run(Parity("find_default_font", docs.find_default_font, theirs.find_default_font), cases)
    assert general
