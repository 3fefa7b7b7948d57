"""Flattening OSWorld's accessibility XML into the lines agents read."""

from __future__ import annotations

from gui_gym.backends.desktop.a11y import HEADER, linearize

XML = """<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state"
 xmlns:cp="https://accessibility.ubuntu.example.org/ns/component" name="main">
 <application name="mousepad">
  <frame name="todo.txt - Mousepad" st:showing="true" st:visible="true" cp:screencoord="(10, 20)" cp:size="(640, 480)">
   <push-button name="Save" st:showing="true" st:visible="true" cp:screencoord="(30, 40)" cp:size="(24, 24)"/>
   <push-button name="Hidden" st:visible="true" cp:screencoord="(30, 40)" cp:size="(24, 24)"/>
   <text name="" st:showing="true" st:visible="true" cp:screencoord="(10, 80)" cp:size="(600, 300)">buy   milk
call bob</text>
   <label name="" st:showing="true" st:visible="true" cp:screencoord="(0, 0)" cp:size="(0, 0)">zero size</label>
  </frame>
 </application>
</desktop-frame>"""


def test_only_visible_named_elements_become_lines():
    lines = linearize(XML).splitlines()
    assert lines[0] == HEADER
    assert lines[1:] == ["frame\ttodo.txt - Mousepad\t\t(10, 20)\t(640, 480)",
                         "push-button\tSave\t\t(30, 40)\t(24, 24)",
                         "text\t\tbuy milk call bob\t(10, 80)\t(600, 300)"]


def test_line_limit():
    assert len(linearize(XML, max_lines=1).splitlines()) == 2
