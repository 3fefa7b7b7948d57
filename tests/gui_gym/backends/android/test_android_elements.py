"""UI elements from uiautomator dumps, with AndroidWorld's fields and indexing."""

from __future__ import annotations

import pytest

from gui_gym.backends.android.elements import (BoundingBox, UIElement, element_at, elements_text,
                                               parse_uiautomator_xml)
from gui_gym.errors import ActionExecutionError

DUMP = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">
 <node index="0" text="" resource-id="com.android.settings:id/list" class="androidx.recyclerview.widget.RecyclerView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="[0,200][1080,2200]">
  <node index="0" text="" resource-id="" class="android.widget.LinearLayout" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,200][1080,400]">
   <node index="0" text="Wi-Fi &amp; &quot;more&quot;" resource-id="android:id/title" class="android.widget.TextView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[48,240][800,300]" />
   <node index="1" text="" resource-id="android:id/switch_widget" class="android.widget.Switch" package="com.android.settings" content-desc="" checkable="true" checked="true" clickable="false" enabled="false" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[900,260][1020,340]" />
  </node>
  <node index="1" text="" resource-id="" class="android.widget.ImageButton" package="com.android.settings" content-desc="Navigate up" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][0,0]" />
  <node index="2" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings" content-desc="Search settings" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,420][1080,520]">
   <node index="0" text="" hint="Search" resource-id="com.android.settings:id/search" class="android.widget.EditText" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[20,430][1060,510]" />
  </node>
 </node>
</node></hierarchy>"""


def test_the_list_keeps_leaves_and_described_or_scrolling_containers():
    elements = parse_uiautomator_xml(DUMP)
    assert [e.class_name.rsplit(".", 1)[-1] for e in elements] == [
        "RecyclerView", "TextView", "Switch", "FrameLayout", "EditText"]  # zero-area button dropped


def test_fields_are_androidworlds():
    recycler, title, switch, search, edit = parse_uiautomator_xml(DUMP)
    assert title.text == 'Wi-Fi & "more"' and title.resource_id == "android:id/title"
    assert title.bbox_pixels == BoundingBox(x_min=48, x_max=800, y_min=240, y_max=300)
    assert (switch.is_checkable, switch.is_checked, switch.is_enabled, switch.is_clickable) == (True, True, False, False)
    assert recycler.is_scrollable and not recycler.is_editable
    assert search.content_description == "Search settings"
    assert (edit.is_editable, edit.hint_text, edit.is_focused, edit.is_long_clickable) == (True, "Search", True, True)
    assert edit.package_name == "com.android.settings" and edit.is_visible


def test_dict_round_trip():
    for element in parse_uiautomator_xml(DUMP):
        assert UIElement.from_dict(element.to_dict()) == element
    with pytest.raises(ValueError, match=r"unknown UI element field\(s\) \['bounds'\]"):
        UIElement.from_dict({"bounds": [0, 0, 1, 1]})


def test_text_lines_index_the_elements():
    lines = elements_text(parse_uiautomator_xml(DUMP)).splitlines()
    assert lines[1] == '[1] TextView "Wi-Fi & \\"more\\"" id=title bounds=[48,240,800,300]'
    assert lines[2] == '[2] Switch "" id=switch_widget checked disabled bounds=[900,260,1020,340]'
    assert lines[4] == ('[4] EditText "" hint="Search" id=search clickable long_clickable editable focused '
                        'bounds=[20,430,1060,510]')


def test_element_at():
    elements = parse_uiautomator_xml(DUMP)
    assert element_at(elements, 1).bbox_pixels.center == (424.0, 270.0)
    with pytest.raises(ActionExecutionError, match="element index 5 does not exist; the screen has 5 indexed elements"):
        element_at(elements, 5)


@pytest.mark.parametrize("text, message", [
    ("not xml", "expected uiautomator XML"),
    ("<html/>", "expected a uiautomator <hierarchy> root, received <html>"),
])
def test_bad_dumps(text, message):
    with pytest.raises(ValueError, match=message):
        parse_uiautomator_xml(text)


def test_box_contains_edges():
    box = BoundingBox(x_min=10, x_max=20, y_min=10, y_max=20)
    assert box.contains(10, 20) and not box.contains(21, 15)
