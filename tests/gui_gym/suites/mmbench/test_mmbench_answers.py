"""Official MMBench-GUI reading rules, pinned on hand-computed tables: option letters, points,
normalized-vs-pixel boxes, hits on the edge."""

from __future__ import annotations

import pytest

from gui_gym.errors import ActionParseError, TaskConfigError
from gui_gym.suites.mmbench.answers import (
    box_centre, find_point, json_output, normalize_box, parse_option_letter, point_in_box, to_pixels, xywh_to_xyxy)


@pytest.mark.parametrize("text, letter", [
    ("B", "B"),
    ("b", "B"),                                    # case-insensitive, as officially
    ("The answer is C.", "C"),                     # "C." not glued to a word
    ("Option d is right", "D"),
    ("Answer: E", "E"),
    ("Answer：f", "F"),                            # full-width colon
    ("I choose 'A'", "A"),                         # a quoted letter
    ("A. Pressed\nB. Settings", "A"),              # the first pattern's first match wins
    ("Let me think.\nC", "C"),                     # a letter opening a line
    ("It is clearly the heading, so c", "C"),      # a lone letter at the end
    ("Definitely C", "D"),                         # the official line-start rule reads the D of "Definitely"
    ("I am not sure", None),
    ("so it is a cat", None),                      # a lone letter followed by a word is not an answer
    ("a cat sat", "A"),                            # ... unless it opens the line (official rule 4)
    ("no idea", None),
    ("G", None),
    ("", None),
    (None, None),
])
def test_option_letter_follows_the_official_patterns(text, letter):
    assert parse_option_letter(text) == letter


@pytest.mark.parametrize("text, point", [
    ("(12, 34)", (12.0, 34.0)),
    ("[0.25,0.5]", (0.25, 0.5)),
    ("x=120 y: 45", (120.0, 45.0)),
    ("click at 300 400", (300.0, 400.0)),
    ("1. go to (5,6)", (5.0, 6.0)),                # "1." is no pair: the separator must be , ; or space
    ("{-3; 4}", (-3.0, 4.0)),
    (".5 .25", (0.5, 0.25)),
    ("[10, 20, 30, 40]", (10.0, 20.0)),            # a box reads as its first corner, as officially
    ("42", None),
    ("no numbers", None),
])
def test_first_number_pair_is_the_point(text, point):
    assert find_point(text) == point


@pytest.mark.parametrize("x, y, mode, pixels", [
    (0.5, 0.25, "auto", (960.0, 270.0)),           # both <= 1: normalized
    (1, 1, "auto", (1920.0, 1080.0)),              # (1, 1) is the bottom-right corner, normalized
    (1.0, 2, "auto", (1.0, 2.0)),                  # one value > 1: pixels
    (500, 250, "auto", (500.0, 250.0)),
    (500, 250, "relative1000", (960.0, 270.0)),
    (0.5, 0.5, "absolute", (0.5, 0.5)),
    (0.5, 0.5, "normalized", (960.0, 540.0)),
    (966, 546, "smart_resize", (960.0, 540.0)),    # 1920x1080 is seen as 1932x1092
])
def test_points_map_to_pixels(x, y, mode, pixels):
    assert to_pixels(x, y, (1920, 1080), mode) == pytest.approx(pixels)


def test_unknown_coordinate_mode_is_refused():
    with pytest.raises(ActionParseError, match=r"unknown coordinate mode 'pixels'; expected one of "):
        to_pixels(1, 2, (10, 10), "pixels")


@pytest.mark.parametrize("bbox, size, expected", [
    ([0.1, 0.2, 0.3, 0.4], (1000, 500), (0.1, 0.2, 0.3, 0.4)),
    ([100, 100, 300, 200], (1000, 500), (0.1, 0.2, 0.3, 0.4)),
    ([0, 0, 1, 1], (1000, 500), (0.0, 0.0, 1.0, 1.0)),              # all in [0, 1]: normalized
    ([-1, -1, 500, 250], (1000, 500), (0.0, 0.0, 0.5, 0.5)),        # -1 stands for 0
    ([-1, 0.2, 0.3, 0.4], (1000, 500), (0.0, 0.0004, 0.0003, 0.0008)),  # a raw -1 makes it pixels, officially
])
def test_boxes_are_normalized_by_the_official_rule(bbox, size, expected):
    assert normalize_box(bbox, size) == pytest.approx(expected)


@pytest.mark.parametrize("bbox, message", [
    ([0, 0, 2000, 100], r"b: box \[0, 0, 2000, 100\] lies outside the 1000x500 image"),
    ([300, 100, 100, 200], r"b: expected x1 <= x2 and y1 <= y2, received \[300, 100, 100, 200\]"),
    ([1, 2, 3], r"b: expected 4 finite numbers \[x1, y1, x2, y2\], received \[1, 2, 3\]"),
    (["1", 2, 3, 4], r"b: expected 4 finite numbers"),
    ("0,0,1,1", r"b: expected 4 finite numbers"),
])
def test_bad_boxes_are_refused(bbox, message):
    with pytest.raises(TaskConfigError, match=message):
        normalize_box(bbox, (1000, 500), where="b")


# Screen 1000x500, box (0.1, 0.2, 0.3, 0.4) = pixels x 100..300, y 100..200.
# Screen 2560x1440, the official example box (0.3875, 0.1361, 0.3945, 0.1507)
# = pixels x 992..1009.92, y 195.984..217.008.
@pytest.mark.parametrize("point, box, size, hit", [
    ((100, 100), (0.1, 0.2, 0.3, 0.4), (1000, 500), True),          # top-left corner
    ((300, 200), (0.1, 0.2, 0.3, 0.4), (1000, 500), True),          # bottom-right corner
    ((200, 150), (0.1, 0.2, 0.3, 0.4), (1000, 500), True),
    ((99.9, 150), (0.1, 0.2, 0.3, 0.4), (1000, 500), False),
    ((300.001, 150), (0.1, 0.2, 0.3, 0.4), (1000, 500), False),
    ((200, 99), (0.1, 0.2, 0.3, 0.4), (1000, 500), False),
    ((992, 196), (0.3875, 0.1361, 0.3945, 0.1507), (2560, 1440), True),      # on the left edge
    ((991, 196), (0.3875, 0.1361, 0.3945, 0.1507), (2560, 1440), False),
    ((1009.92, 217.008), (0.3875, 0.1361, 0.3945, 0.1507), (2560, 1440), True),  # bottom-right corner
    ((1010, 217), (0.3875, 0.1361, 0.3945, 0.1507), (2560, 1440), False),
])
def test_hits_include_the_edges(point, box, size, hit):
    assert point_in_box(point, box, size) is hit


def test_a_normalized_edge_point_survives_the_trip_through_pixels():
    size = (2560, 1440)
    box = (0.3875, 0.1361, 0.3945, 0.1507)
    for x, y in ((0.3875, 0.1361), (0.3945, 0.1507), (0.3875, 0.1507)):
        assert point_in_box(to_pixels(x, y, size), box, size)
    assert box_centre(box, size) == pytest.approx((1000.96, 206.496))


def test_xywh_becomes_corners():
    assert xywh_to_xyxy([10, 20, 30, 40]) == [10, 20, 40, 60]
    with pytest.raises(TaskConfigError, match=r"expected \[x, y, w, h\], received \[1, 2\]"):
        xywh_to_xyxy([1, 2])


@pytest.mark.parametrize("value, decoded", [
    ({"kind": "click", "x": 1, "y": 2}, {"kind": "click", "x": 1, "y": 2}),
    ('{"kind": "answer", "text": "B"}', {"kind": "answer", "text": "B"}),
    ('[{"kind": "wait"}]', [{"kind": "wait"}]),
    ("[B]", None),
    ("[120, 45]", None),
    ("{broken", None),
    ("B", None),
])
def test_json_output_is_only_a_json_action(value, decoded):
    assert json_output(value) == decoded
