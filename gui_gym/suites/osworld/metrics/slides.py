"""Presentation metrics (LibreOffice Impress tasks, OSWorld's ``slides.py``) on ``.pptx``
files read with python-pptx (imported when one of these metrics runs), and Impress's
registry settings.

``compare_pptx_files`` walks both presentations in OSWorld's order and scores 0 at the
first difference it is told to examine (``examine_*`` options); python-pptx's own answers
decide what "has a text", "has an RGB colour" or "has a position" means, as in OSWorld.
"""

from __future__ import annotations

import logging
import math
import xml.etree.ElementTree as ET
import zipfile
from typing import Any

from gui_gym.suites.osworld.metrics.common import require

logger = logging.getLogger(__name__)

A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
OOR_NS = "http://openoffice.org/2001/registry"
NS = {"a": A_NS, "p": P_NS}
PICTURE, TABLE, FREEFORM = 13, 19, 5
"""python-pptx's MSO_SHAPE_TYPE values OSWorld compares with."""
FILL_SOLID, FILL_BACKGROUND = 1, 5
"""python-pptx's MSO_FILL types: a solid fill, and "use the master's background"."""
EXAMINE_DEFAULTS = {
    "number_of_slides": True, "shape": True, "text": True, "indent": True, "font_name": True, "font_size": True,
    "font_bold": True, "font_italic": True, "color_rgb": True, "font_underline": True, "strike_through": True,
    "alignment": True, "title_bottom_position": False, "table_bottom_position": False, "right_position": False,
    "top_position": False, "shape_for_shift_size": False, "image_size": False, "modify_height": False,
    "bullets": True, "background_color": True, "note": True,
}
"""``examine_<name>`` options of compare_pptx_files and their defaults."""


def _presentation(path: Any, metric: str) -> Any:
    return require("pptx", "python-pptx", metric).Presentation(path)


def _text_shapes(slide: Any) -> list[Any]:
    """Shapes with a text frame, group members included, depth first."""
    found: list[Any] = []

    def visit(shape: Any) -> None:
        if hasattr(shape, "text") and hasattr(shape, "text_frame"):
            found.append(shape)
        if hasattr(shape, "shapes"):
            for inner in shape.shapes:
                visit(inner)
    for shape in slide.shapes:
        visit(shape)
    return found


def _background(slide: Any) -> Any:
    fill = slide.background.fill
    if fill.type == FILL_SOLID:
        return fill.fore_color.rgb
    if fill.type == FILL_BACKGROUND:
        master = slide.slide_layout.slide_master.background.fill
        return master.fore_color.rgb if master.type == FILL_SOLID else None
    return None


def _notes(slide: Any) -> str:
    """A slide's notes text, stripped, as OSWorld reads it (``slide.notes_slide``), without
    building a notes slide for a slide that has none (python-pptx would clone the notes
    master's placeholders into a new part, ~3 ms a slide): that one's text is empty, if
    the notes master has a body placeholder to clone; if not, OSWorld's read fails, and so
    does this one, by doing the same."""
    if slide.has_notes_slide:
        return slide.notes_slide.notes_text_frame.text.strip()
    body = require("pptx.enum.shapes", "python-pptx", "compare_pptx_files").PP_PLACEHOLDER.BODY
    master = slide.part.package.presentation_part.notes_master
    if any(placeholder.element.ph_type == body for placeholder in master.placeholders):
        return ""
    return slide.notes_slide.notes_text_frame.text.strip()


def _bullets(xml: str) -> list[tuple[Any, str, str, str]]:
    """(level, bullet character, text, bullet colour) of every non-empty paragraph of a slide."""
    found = []
    for paragraph in ET.fromstring(xml).findall(".//a:p", NS):
        properties = paragraph.find("a:pPr", NS)
        if properties is not None:
            char = properties.find("a:buChar", NS)
            color = properties.find("a:buClr/a:srgbClr", NS)
            entry = (properties.get("lvl"), char.get("char") if char is not None else "No Bullet",
                     color.get("val") if color is not None else "No Color")
        else:
            entry = ("No Level", "No Bullet", "No Color")
        text = "".join(t.text for t in paragraph.findall(".//a:t", NS))
        if text.strip():
            found.append((entry[0], entry[1], text, entry[2]))
    return found


def _bullets_match(a: list[tuple], b: list[tuple]) -> bool:
    """Same texts, bullet characters and levels (a missing level is "0"); colours ignored."""
    return len(a) == len(b) and all(
        t1 == t2 and c1 == c2 and ("0" if l1 is None else l1) == ("0" if l2 is None else l2)
        for (l1, c1, t1, _), (l2, c2, t2, _) in zip(a, b))


class _PptxComparison:
    """One compare_pptx_files call: the options and the checks, in OSWorld's order."""

    def __init__(self, options: dict[str, Any]):
        self.tolerance = options.get("approximately_tolerance", 0.005)
        self.examine = {name: options.get(f"examine_{name}", default) for name, default in EXAMINE_DEFAULTS.items()}
        self.left_align = require("pptx.enum.text", "python-pptx", "compare_pptx_files").PP_ALIGN.LEFT

    def close(self, a: Any, b: Any) -> bool:
        if a == b or (a == 0 and b == 0):
            return True
        if a == 0 or b == 0:
            return False
        return abs(a - b) / max(abs(a), abs(b)) <= self.tolerance

    def same_box(self, s1: Any, s2: Any) -> bool:
        return (self.close(s1.left, s2.left) and self.close(s1.top, s2.top) and self.close(s1.width, s2.width)
                and self.close(s1.height, s2.height))

    def alignment(self, paragraph: Any) -> Any:
        return self.left_align if paragraph.alignment is None else paragraph.alignment

    def positions_hold(self, slide_number: int, s1: Any, s2: Any) -> bool:
        """The special position checks some tasks ask for (``examine_*_position``,
        ``shape_for_shift_size``, ``shape``, ``image_size``, ``modify_height``)."""
        ex = self.examine
        has_text = hasattr(s1, "text") and hasattr(s2, "text")
        if ex["title_bottom_position"]:
            if has_text and s1.text == s2.text:
                if s1.text == "Product Comparison" and (s1.top <= s2.top or s1.top < 3600000):
                    return False
            elif not self.same_box(s1, s2):
                return False
        if ex["table_bottom_position"]:
            if slide_number == 3 and s1.shape_type == TABLE and s2.shape_type == TABLE:
                if s1.top <= s2.top or s1.top < 3600000:
                    return False
            elif not self.same_box(s1, s2):
                return False
        if ex["right_position"] and slide_number == 2 and not hasattr(s1, "text") and not hasattr(s2, "text"):
            if s1.left <= s2.left or s1.left < 4320000:
                return False
        if ex["top_position"] and slide_number == 2 and s1.shape_type == PICTURE and s2.shape_type == PICTURE:
            if s1.top >= s2.top or s1.top > 1980000:
                return False
        if ex["shape_for_shift_size"] and not self.same_box(s1, s2):
            if not (has_text and s1.text == s2.text and s1.text == "Elaborate on what you want to discuss."):
                return False
        if not self.same_box(s1, s2) and ex["shape"]:
            return False
        if ex["image_size"]:
            if s1.shape_type == PICTURE and s2.shape_type == PICTURE:
                if not self.close(s1.width, s2.width) or not self.close(s1.height, s2.height):
                    return False
            elif not self.same_box(s1, s2):
                return False
        if ex["modify_height"]:
            if not hasattr(s1, "text") and not hasattr(s2, "text") or s1.shape_type == FREEFORM and s2.shape_type == FREEFORM:
                if not self.close(s1.height, s2.height):
                    return False
            elif not self.same_box(s1, s2):
                return False
        return True

    def table_runs_hold(self, t1: Any, t2: Any) -> bool:
        if len(t1.rows) != len(t2.rows) or len(t1.columns) != len(t2.columns):
            return False
        for i in range(len(t1.rows)):
            for j in range(len(t1.columns)):
                p1s, p2s = t1.cell(i, j).text_frame.paragraphs, t2.cell(i, j).text_frame.paragraphs
                if len(p1s) != len(p2s):
                    return False
                for p1, p2 in zip(p1s, p2s):
                    if len(p1.runs) != len(p2.runs):
                        return False
                    for r1, r2 in zip(p1.runs, p2.runs):
                        if not self.run_fonts_hold(r1, r2, in_table=True):
                            return False
        return True

    def run_fonts_hold(self, r1: Any, r2: Any, in_table: bool = False) -> bool:
        """Run properties; in a table OSWorld always compares bold, italic and underline
        (with no option) and only colour can be switched off."""
        ex = self.examine
        f1, f2 = r1.font, r2.font
        if not in_table:
            if f1.name != f2.name and ex["font_name"]:
                return False
            if f1.size != f2.size and ex["font_size"]:
                return False
        else:
            if hasattr(f1.color, "rgb") and hasattr(f2.color, "rgb") and f1.color.rgb != f2.color.rgb \
                    and ex["color_rgb"]:
                return False
        for name in ("bold", "italic"):
            v1, v2 = getattr(f1, name), getattr(f2, name)
            unset = (v1 is None or v1 is False) and (v2 is None or v2 is False)  # None and False both mean "not"
            if v1 != v2 and (in_table or ex[f"font_{name}"]) and not unset:
                return False
        if not in_table and hasattr(f1.color, "rgb") and hasattr(f2.color, "rgb") and f1.color.rgb != f2.color.rgb \
                and ex["color_rgb"]:
            return False
        if f1.underline != f2.underline and (in_table or ex["font_underline"]):
            if f1.underline is not None and f2.underline is not None:
                return False
            if (f1.underline is None and f2.underline is True) or (f1.underline is True and f2.underline is None):
                return False
        if in_table:
            return True
        if f1._element.attrib.get("strike", "noStrike") != f2._element.attrib.get("strike", "noStrike") \
                and ex["strike_through"]:
            return False
        if ex["bullets"]:
            try:
                if not _bullets_match(_bullets(r1.part.blob.decode("utf-8")), _bullets(r2.part.blob.decode("utf-8"))):
                    return False
            except Exception:  # noqa: BLE001 - OSWorld skips the bullet check when it cannot read them
                pass
        return True

    def text_holds(self, s1: Any, s2: Any) -> bool:
        ex = self.examine
        if s1.text.strip() != s2.text.strip() and ex["text"]:
            return False
        if len(s1.text_frame.paragraphs) != len(s2.text_frame.paragraphs):
            return False
        for p1, p2 in zip(s1.text_frame.paragraphs, s2.text_frame.paragraphs):
            if ex["alignment"] and self.alignment(p1) != self.alignment(p2):
                return False
            if p1.text != p2.text and ex["text"]:
                return False
            if p1.level != p2.level and ex["indent"]:
                return False
            if len(p1.runs) != len(p2.runs):
                return False
            if not all(self.run_fonts_hold(r1, r2) for r1, r2 in zip(p1.runs, p2.runs)):
                return False
        return True

    def slides_hold(self, number: int, slide1: Any, slide2: Any) -> bool:
        ex = self.examine
        if _background(slide1) != _background(slide2) and ex["background_color"]:
            return False
        if _notes(slide1) != _notes(slide2) and ex["note"]:
            return False
        texts1, texts2 = _text_shapes(slide1), _text_shapes(slide2)
        if len(slide1.shapes) != len(slide2.shapes):
            return False
        for s1, s2 in zip(slide1.shapes, slide2.shapes):
            if not self.positions_hold(number, s1, s2):
                return False
            if s1.shape_type == TABLE and not self.table_runs_hold(s1.table, s2.table):
                return False
            if hasattr(s1, "text") and hasattr(s2, "text") and not self.text_holds(s1, s2):
                return False
        if ex["alignment"] and len(texts1) == len(texts2):
            for t1, t2 in zip(texts1, texts2):
                if t1.text.strip() != t2.text.strip() and ex["text"]:
                    return False
                if len(t1.text_frame.paragraphs) != len(t2.text_frame.paragraphs):
                    return False
                if any(self.alignment(p1) != self.alignment(p2)
                       for p1, p2 in zip(t1.text_frame.paragraphs, t2.text_frame.paragraphs)):
                    return False
        elif len(texts1) != len(texts2):
            return False
        return True


def compare_pptx_files(result: Any, expected: Any, **options: Any) -> float:
    """1 when the presentations agree on everything the ``examine_*`` options ask for
    (see `EXAMINE_DEFAULTS`), with sizes compared within ``approximately_tolerance``."""
    first, second = _presentation(result, "compare_pptx_files"), _presentation(expected, "compare_pptx_files")
    comparison = _PptxComparison(options)
    if len(first.slides) != len(second.slides) and comparison.examine["number_of_slides"]:
        return 0.0
    for number, (slide1, slide2) in enumerate(zip(first.slides, second.slides), start=1):
        if not comparison.slides_hold(number, slide1, slide2):
            return 0.0
    return 1.0


def _registry_items(path: Any) -> ET.Element:
    return ET.parse(path).getroot()


def check_presenter_console_disable(result: Any) -> float:
    """Impress's registry turns the presenter screen off (``EnablePresenterScreen`` false)."""
    try:
        items = _registry_items(result).findall(
            ".//item[@oor:path='/org.openoffice.Office.Impress/Misc/Start']/prop[@oor:name='EnablePresenterScreen']",
            {"oor": OOR_NS})
        for item in items:
            return float(item.find("value").text.lower() == "false")
        return 0.0
    except Exception as exc:  # noqa: BLE001 - OSWorld scores an unreadable registry 0
        logger.info("check_presenter_console_disable: %s", exc)
        return 0.0


def check_auto_saving_time(result: Any, rules: dict[str, Any]) -> float | None:
    """The registry's ``AutoSaveTimeIntervall`` equals ``rules["minutes"]``. An unreadable
    file gives no score (OSWorld returns None there; the evaluator scores that 0)."""
    minutes = rules["minutes"]
    try:
        root = _registry_items(result)
    except (ET.ParseError, FileNotFoundError) as exc:
        logger.info("check_auto_saving_time: %s", exc)
        return None
    interval = None
    for item in root.findall(".//item"):
        if item.get(f"{{{OOR_NS}}}path") == "/org.openoffice.Office.Common/Save/Document":
            for prop in item.findall(".//prop"):
                if prop.get(f"{{{OOR_NS}}}name") == "AutoSaveTimeIntervall":
                    interval = prop.find(".//value").text
                    break
    return 0.0 if interval is None else float(int(interval) == minutes)


def check_image_stretch_and_center(result: Any, original: Any) -> float:
    """The first picture of the original's first slide fills the result's slide (within
    half an inch) and is centred."""
    inches = require("pptx.util", "python-pptx", "check_image_stretch_and_center").Inches
    source, modified = _presentation(original, "check_image_stretch_and_center"), \
        _presentation(result, "check_image_stretch_and_center")
    originals = [s for s in source.slides[0].shapes if s.shape_type == PICTURE]
    pictures = [s for s in modified.slides[0].shapes if s.shape_type == PICTURE]
    if not originals:
        return 0.0
    found = None
    for picture in pictures:
        if originals[0].image.blob == picture.image.blob:
            found = picture
    if found is None:
        return 0.0
    width, height, half = source.slide_width, source.slide_height, inches(0.5)
    return float(not (abs(found.width - width) > half or abs(found.height - height) > half
                      or abs(found.left - (width - found.width) / 2) > half
                      or abs(found.top - (height - found.height) / 2) > half))


def check_slide_orientation_Portrait(result: Any) -> float:  # noqa: N802 - OSWorld's name
    presentation = _presentation(result, "check_slide_orientation_Portrait")
    return float(presentation.slide_width < presentation.slide_height)


def evaluate_presentation_fill_to_rgb_distance(result: Any, rules: dict[str, Any]) -> float:
    """1 minus the mean (over slides) distance of the background colour to ``rgb``, relative
    to the distance from black to white; a slide whose colour is still ``original_rgb``, or
    has no solid background, counts as distance 1."""
    target, original = rules["rgb"], rules.get("original_rgb")

    def color(fill: Any) -> Any:
        try:
            return fill.fore_color.rgb if hasattr(fill.fore_color, "rgb") else None
        except Exception:  # noqa: BLE001 - OSWorld reads None
            return None

    def distance(slide: Any) -> float:
        fill = slide.background.fill
        if fill.type == FILL_BACKGROUND:
            fill = slide.slide_layout.slide_master.background.fill
        elif fill.type != FILL_SOLID:
            return 1.0
        if fill.type != FILL_SOLID:
            return 1.0
        rgb = color(fill)
        if rgb is None:
            return 1.0
        if original is not None and tuple(rgb) == tuple(original):
            return 1.0
        return math.sqrt(sum((x - y) ** 2 for x, y in zip(rgb, target))) / math.sqrt(3 * 255 ** 2)
    slides = _presentation(result, "evaluate_presentation_fill_to_rgb_distance").slides
    return 1 - sum(distance(slide) for slide in slides) / len(slides)


def check_left_panel(result: Any) -> float:
    """The accessibility tree shows Impress's slide pane (a "Slides View" document frame)."""
    root = ET.fromstring(result)
    return float(any(frame.attrib.get("name") == "Slides View" for frame in root.iter("document-frame")))


def check_transition(result: Any, rules: dict[str, Any]) -> float:
    """Slide ``slide_idx`` (from 0) has a transition of type ``transition_type``."""
    name = f"ppt/slides/slide{rules['slide_idx'] + 1}.xml"
    with zipfile.ZipFile(result) as archive:
        if name not in archive.namelist():
            return 0.0
        transition = ET.fromstring(archive.read(name)).find(".//p:transition", NS)
    if transition is None:
        return 0.0
    return float(transition.find(f".//p:{rules['transition_type']}", NS) is not None)


def check_page_number_colors(result: Any, rules: dict[str, Any]) -> float:
    """The second-to-last solid colour of the first slide master has ``rules["color"]``
    (red, blue, green or black by a 50 margin). The colour's hex is read with OSWorld's
    offsets (it skips the first character, as for "#RRGGBB")."""
    with zipfile.ZipFile(result) as archive:
        root = ET.fromstring(archive.read("ppt/slideMasters/slideMaster1.xml"))
    value = root.findall(".//a:solidFill//a:srgbClr", NS)[-2].get("val")
    if value is None:
        return 0.0
    r, g, b = int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)
    tests = {"red": r > g + 50 and r > b + 50, "blue": b > g + 50 and b > r + 50,
             "green": g > r + 50 and g > b + 50, "black": r < 50 and g < 50 and b < 50}
    return 0.0 if rules["color"] in tests and not tests[rules["color"]] else 1.0
