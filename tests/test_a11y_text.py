"""The a11y tree's text form: what the browser backend writes is what the element agents read
back (a round trip through escapes, values and flags), and lines of other writers are read
past what they add."""

from __future__ import annotations

from gui_gym.a11y_text import Element, format_elements, parse_elements, quote, unquote

ELEMENTS = [
    {"index": 0, "role": "link", "name": "LocalShop"},
    {"index": 1, "role": "searchbox", "name": "Search products", "value": "", "focused": True},
    {"index": 2, "role": "checkbox", "name": "Kodo", "value": "1", "checked": True, "disabled": False},
    {"index": 3, "role": "textbox", "name": 'Name "A" \\ B', "value": 'Ann "checked" disabled'},
    {"index": 4, "role": "button", "name": "", "disabled": True, "expanded": True, "selected": True},
]


def test_what_the_backend_writes_parses_back_exactly():
    text = format_elements(ELEMENTS)
    assert text.splitlines()[2] == '[2] checkbox "Kodo" value="1" checked'
    assert text.splitlines()[3] == '[3] textbox "Name \\"A\\" \\\\ B" value="Ann \\"checked\\" disabled"'
    assert parse_elements(text) == [
        Element(0, "link", "LocalShop"), Element(1, "searchbox", "Search products", "", ("focused",)),
        Element(2, "checkbox", "Kodo", "1", ("checked",)), Element(3, "textbox", 'Name "A" \\ B', 'Ann "checked" disabled'),
        Element(4, "button", "", "", ("disabled", "expanded", "selected"))]
    assert format_elements([]) == "" and parse_elements("") == []


def test_other_lines_and_other_fields_are_read_past():
    text = '\n'.join(["a heading that is not an element", '[7] EditText "Search" desc="query" hint="Type here" focused',
                      '  [8] combobox "Role" value="Viewer"  '])
    assert parse_elements(text) == [Element(7, "EditText", "Search", "", ("focused",)),
                                    Element(8, "combobox", "Role", "Viewer")]
    assert unquote(quote('a "b" \\ c')) == 'a "b" \\ c'
