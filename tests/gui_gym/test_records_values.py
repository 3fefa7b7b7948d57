"""`json_safe`: any value as JSON, within bounds (depth, self-reference, size), never raising."""

from __future__ import annotations

import json

import pytest

from gui_gym.records import json_safe
from gui_gym.records.values import MAX_DEPTH


def nested(depth: int) -> dict:
    value: dict = {}
    inner = value
    for _ in range(depth):
        inner["a"] = inner = {}
    return value


def test_nesting_past_the_bound_is_a_marker_at_the_bound():
    safe = json_safe(nested(5_000))
    text = json.dumps(safe)
    assert text.count('{"a": ') == MAX_DEPTH and f"<cut: nested deeper than {MAX_DEPTH} levels>" in text
    assert json_safe(nested(MAX_DEPTH - 1)) == nested(MAX_DEPTH - 1)


def test_a_container_inside_itself_is_a_marker_and_siblings_stay():
    loop: dict = {"name": "x"}
    loop["self"] = loop
    same = [1, 2]
    assert json_safe({"loop": loop, "twice": [same, same]}) == {
        "loop": {"name": "x", "self": "<cut: a container inside itself>"}, "twice": [[1, 2], [1, 2]]}


def test_max_chars_bounds_shared_parts_long_strings_and_long_lists():
    shared: list = ["leaf"]
    for _ in range(64):
        shared = [shared, shared]  # 2**64 leaves written out
    for value in (shared, "x" * 10_000_000, list(range(10_000_000)), {str(i): i for i in range(1_000_000)}):
        text = json.dumps(json_safe(value, max_chars=10_000))
        assert len(text) < 10_000 + 40 * MAX_DEPTH and "<cut" in text  # a marker at most per open level


def test_what_json_or_str_cannot_write_becomes_text():
    class Unshowable:
        def __str__(self):
            raise RuntimeError("no")

    safe = json_safe({Unshowable(): Unshowable(), 1: 10 ** 5_000, "nan": float("inf")})
    assert safe == {"<a Unshowable that cannot be shown>": "<a Unshowable that cannot be shown>",
                    "1": "<an integer of 16610 bits>", "nan": "inf"}
    json.dumps(safe)


@pytest.mark.parametrize("value", [None, True, 3, 0.5, "text", [1, [2]], {"k": {"v": [None]}}])
def test_plain_json_values_pass_unchanged(value):
    assert json_safe(value) == value and json_safe(value, max_chars=1_000) == value
