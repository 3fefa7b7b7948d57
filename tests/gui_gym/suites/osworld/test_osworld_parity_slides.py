"""Parity with OSWorld's ``metrics/slides.py`` (desktop-env 1.0.2) on generated
presentations (python-pptx) and the same presentations saved again by LibreOffice Impress:
slide counts, shapes and positions, texts, paragraphs, runs and their fonts, colours
(RGB and theme), underline, strike, alignment, levels, bullets, tables, pictures, groups,
notes (and a notes master without a body placeholder), backgrounds, transitions,
orientation, and Impress's registry settings."""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from lxml import etree
from tests.osworld_reference import Parity
from PIL import Image
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_THEME_COLOR
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.enum.text import PP_ALIGN
from pptx.util import Emu, Inches, Pt

from gui_gym.suites.osworld.metrics import slides

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"


def _picture(color: str) -> io.BytesIO:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 9), color).save(buffer, "PNG")
    buffer.seek(0)
    return buffer


def _deck(path: Path, **v) -> str:
    """A three-slide deck; keyword variations change one thing each."""
    prs = Presentation()
    if v.get("portrait"):
        prs.slide_width, prs.slide_height = Inches(7.5), Inches(10)
    for number in range(v.get("slides", 3)):
        slide = prs.slides.add_slide(prs.slide_layouts[1 if number == 0 else 5])
        slide.shapes.title.text = v.get("title", "Product Comparison") if number == 0 else f"Slide {number + 1}"
        if number == 0:
            body = slide.placeholders[1].text_frame
            body.text = v.get("body", "First point")
            extra = body.add_paragraph()
            run = extra.add_run()
            run.text = "Second point"
            run.font.bold = v.get("bold", None)
            run.font.italic = v.get("italic", False)
            run.font.size = Pt(v.get("size", 18))
            run.font.name = v.get("font", "Arial")
            run.font.underline = v.get("underline", None)
            if v.get("color") == "theme":
                run.font.color.theme_color = MSO_THEME_COLOR.ACCENT_1
            elif v.get("color"):
                run.font.color.rgb = RGBColor(*v["color"])
            if v.get("strike"):
                run.font._element.set("strike", "sngStrike")
            extra.level = v.get("level", 1)
            extra.alignment = v.get("align")
            if v.get("bullet"):
                pPr = extra._p.get_or_add_pPr()
                etree.SubElement(pPr, f"{A}buChar", char=v["bullet"])
            if v.get("note") is not None:
                slide.notes_slide.notes_text_frame.text = v["note"]
        if number == 1:
            box = slide.shapes.add_textbox(Inches(1), Inches(v.get("box_top", 2)), Inches(v.get("box_width", 4)), Inches(1))
            box.text_frame.text = v.get("box_text", "Elaborate on what you want to discuss.")
            slide.shapes.add_picture(_picture(v.get("picture", "red")), Inches(v.get("pic_left", 5)), Inches(2),
                                     width=Inches(v.get("pic_width", 3)))
            if v.get("group"):
                group = slide.shapes.add_group_shape()
                inner = group.shapes.add_textbox(Inches(1), Inches(5), Inches(2), Inches(1))
                inner.text_frame.text = v["group"]
                inner.text_frame.paragraphs[0].alignment = v.get("group_align")
        if number == 2:
            rows = v.get("table", [["a", "b"], ["c", "d"]])
            table = slide.shapes.add_table(len(rows), len(rows[0]), Inches(1), Inches(v.get("table_top", 2)),
                                           Inches(6), Inches(2)).table
            for i, row in enumerate(rows):
                for j, value in enumerate(row):
                    table.cell(i, j).text = value
            if v.get("table_bold"):
                table.cell(0, 0).text_frame.paragraphs[0].runs[0].font.bold = True
        if v.get("background") and number == 0:
            slide.background.fill.solid()
            slide.background.fill.fore_color.rgb = RGBColor(*v["background"])
    if v.get("stretch"):
        slide = prs.slides[0]
        slide.shapes.add_picture(_picture("blue"), Emu(v["stretch"]), 0, width=prs.slide_width, height=prs.slide_height)
    if v.get("bodyless_notes"):  # no body placeholder for a new notes slide's text: reading notes fails
        for placeholder in list(prs.notes_master.placeholders):
            if placeholder.placeholder_format.type == PP_PLACEHOLDER.BODY:
                placeholder.element.getparent().remove(placeholder.element)
    prs.save(path)
    if v.get("transition"):
        _add_transition(path, v["transition"])
    return str(path)


def _add_transition(path: Path, kind: str) -> None:
    import zipfile

    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    xml = parts["ppt/slides/slide1.xml"].decode()
    xml = xml.replace("</p:sld>", f'<p:transition><p:{kind}/></p:transition></p:sld>')
    parts["ppt/slides/slide1.xml"] = xml.encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


DECKS = {
    "base": {}, "same": {}, "two-slides": {"slides": 2}, "title": {"title": "Other title"}, "body": {"body": "First  point"},
    "bold": {"bold": True}, "bold-false": {"bold": False}, "italic": {"italic": True}, "size": {"size": 20},
    "font": {"font": "Times New Roman"}, "color": {"color": (255, 0, 0)}, "color2": {"color": (0, 0, 255)},
    "theme": {"color": "theme"}, "underline": {"underline": True}, "strike": {"strike": True}, "level": {"level": 2},
    "center": {"align": PP_ALIGN.CENTER}, "left": {"align": PP_ALIGN.LEFT}, "bullet": {"bullet": "•"},
    "bullet2": {"bullet": "-"}, "note": {"note": "Say hello"}, "note2": {"note": "Say bye"},
    "bodyless-notes": {"bodyless_notes": True},
    "moved": {"box_top": 2.005}, "moved-far": {"box_top": 3}, "wider": {"box_width": 5}, "box-text": {"box_text": "Other"},
    "picture": {"picture": "green"}, "pic-left": {"pic_left": 6}, "pic-wide": {"pic_width": 3.5},
    "group": {"group": "In a group"}, "group-center": {"group": "In a group", "group_align": PP_ALIGN.CENTER},
    "table": {"table": [["a", "b"], ["c", "x"]]}, "table-shape": {"table": [["a", "b", "c"], ["d", "e", "f"]]},
    "table-bold": {"table_bold": True}, "table-low": {"table_top": 4}, "background": {"background": (10, 200, 10)},
    "background2": {"background": (200, 10, 10)}, "portrait": {"portrait": True},
    "stretch": {"stretch": 0}, "stretch-off": {"stretch": 2000000},
    "transition": {"transition": "fade"},
}


def _libreoffice_resave(files: list[Path], out: Path) -> list[Path]:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.fail("LibreOffice (soffice) is needed to write real presentations; scripts/setup.sh installs it")
    out.mkdir()
    with tempfile.TemporaryDirectory(prefix="lo-profile-") as profile:
        subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to",
                        "pptx:Impress MS PowerPoint 2007 XML", "--outdir", str(out), *map(str, files)],
                       check=True, capture_output=True, timeout=600)
    return [out / f.name for f in files]


@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-slides")
    written = {name: Path(_deck(folder / f"{name}.pptx", **variation)) for name, variation in DECKS.items()}
    lo_names = ["base", "bold", "color", "theme", "center", "note", "moved-far", "table", "group", "background", "bullet"]
    resaved = _libreoffice_resave([written[n] for n in lo_names], folder / "lo")
    out = {name: str(path) for name, path in written.items()}
    out.update({f"lo-{name}": str(path) for name, path in zip(lo_names, resaved)})
    return out


def run(parity: Parity, cases: list) -> None:
    failures = parity.check(cases)
    assert not failures, "\n".join(failures)


OPTION_SETS = [{}, {"examine_shape": False}, {"examine_text": False, "examine_shape": False},
               {"examine_font_name": False, "examine_font_size": False, "examine_color_rgb": False},
               {"examine_alignment": False}, {"examine_number_of_slides": False}, {"examine_note": False},
               {"examine_bullets": False, "examine_indent": False}, {"examine_background_color": False},
               {"examine_shape": False, "examine_shape_for_shift_size": True},
               {"examine_shape": False, "examine_image_size": True}, {"examine_shape": False, "examine_modify_height": True},
               {"examine_shape": False, "examine_title_bottom_position": True},
               {"examine_shape": False, "examine_table_bottom_position": True},
               {"examine_shape": False, "examine_right_position": True}, {"examine_shape": False, "examine_top_position": True},
               {"approximately_tolerance": 0.1}, {"examine_font_bold": False, "examine_font_italic": False,
                                                  "examine_font_underline": False, "examine_strike_through": False}]


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_compare_pptx_files(osworld_ref, decks):
    theirs = osworld_ref.metrics("slides").compare_pptx_files
    variants = [n for n in decks if n != "base"]
    every_option = ("same", "moved", "moved-far", "wider", "pic-left", "table-low", "title", "two-slides", "note",
                    "bold", "color", "center", "lo-base")
    cases = [(f"{n}~base/{i}", (decks[n], decks["base"]), o) for n in variants for i, o in enumerate(OPTION_SETS)
             if i < 2 or n in every_option]
    cases += [(f"lo-{n}~{n}", (decks[f"lo-{n}"], decks[n]), {}) for n in ("base", "bold", "color", "theme", "table", "group")]
    cases += [("lo-base~lo-bold", (decks["lo-base"], decks["lo-bold"]), {}),
              ("lo-center~lo-base", (decks["lo-center"], decks["lo-base"]), {"examine_shape": False}),
              ("lo-bullet~lo-base", (decks["lo-bullet"], decks["lo-base"]), {"examine_shape": False})]
    run(Parity("compare_pptx_files", slides.compare_pptx_files, theirs), cases)


@pytest.mark.slow
def test_impress_checks(osworld_ref, decks, tmp_path):
    theirs = osworld_ref.metrics("slides")
    names = ["base", "portrait", "background", "background2", "lo-background", "transition", "stretch", "stretch-off", "lo-base"]
    cases = {
        "check_slide_orientation_Portrait": [(n, (decks[n],), {}) for n in names],
        "check_transition": [(f"{n}-{t}-{i}", (decks[n], {"slide_idx": i, "transition_type": t}), {})
                             for n in ("base", "transition") for t in ("fade", "dissolve") for i in (0, 5)],
        "check_image_stretch_and_center": [(f"{n}~{o}", (decks[n], decks[o]), {})
                                           for n in ("stretch", "stretch-off", "base") for o in ("stretch", "base")],
        "evaluate_presentation_fill_to_rgb_distance": [
            (f"{n}-{i}", (decks[n], rule), {}) for n in names
            for i, rule in enumerate([{"rgb": [10, 200, 10]}, {"rgb": [0, 0, 0], "original_rgb": [200, 10, 10]}])],
        "check_page_number_colors": [(f"{n}-{c}", (decks[n], {"color": c}), {})
                                     for n in ("base", "lo-base", "lo-color") for c in ("red", "blue", "black", "green", "other")],
    }
    for metric, metric_cases in cases.items():
        run(Parity(metric, getattr(slides, metric), getattr(theirs, metric)), metric_cases)
    registry = {
        "off": ('<oor:items xmlns:oor="http://openoffice.org/2001/registry"><item oor:path="/org.openoffice.Office.Impress/Misc/Start">'
                '<prop oor:name="EnablePresenterScreen" oor:op="fuse"><value>false</value></prop></item>'
                '<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSaveTimeIntervall" oor:op="fuse">'
                '<value>3</value></prop></item></oor:items>'),
        "on": ('<oor:items xmlns:oor="http://openoffice.org/2001/registry"><item oor:path="/org.openoffice.Office.Impress/Misc/Start">'
               '<prop oor:name="EnablePresenterScreen" oor:op="fuse"><value>true</value></prop></item></oor:items>'),
        "bad": "<oor:items", "empty": '<oor:items xmlns:oor="http://openoffice.org/2001/registry"/>'}
    paths = {}
    for name, content in registry.items():
        paths[name] = str(tmp_path / f"{name}.xcu")
        Path(paths[name]).write_text(content)
    run(Parity("check_presenter_console_disable", slides.check_presenter_console_disable,
               theirs.check_presenter_console_disable), [(n, (p,), {}) for n, p in paths.items()])
    run(Parity("check_auto_saving_time", slides.check_auto_saving_time, theirs.check_auto_saving_time),
        [(f"{n}-{m}", (p, {"minutes": m}), {}) for n, p in paths.items() for m in (3, 10)])
    trees = {"open": '<desktop-frame><document-frame name="Slides View"/></desktop-frame>',
             "closed": '<desktop-frame><document-frame name="Outline"/></desktop-frame>'}
    run(Parity("check_left_panel", slides.check_left_panel, theirs.check_left_panel),
        [(n, (t,), {}) for n, t in trees.items()])
