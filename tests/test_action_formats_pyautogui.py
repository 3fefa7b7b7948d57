"""pyautogui code read through the allow-list (never executed) and written back."""

from __future__ import annotations

import pytest

from gui_gym.action_formats import format_action, parse_action, pyautogui_code
from gui_gym.actions import Action
from gui_gym.errors import ActionParseError


@pytest.mark.parametrize("code, expected", [
    ("pyautogui.click(100, 200)", [Action.click(100, 200)]),
    ("pyautogui.click(x=100, y=200, button='left')", [Action.click(100, 200)]),
    ("pyautogui.click((100, 200))", [Action.click(100, 200)]),
    ("pyautogui.click(100, 200, clicks=2)", [Action.double_click(100, 200)]),
    ("pyautogui.click(100, 200, clicks=3, interval=0.1)", [Action("triple_click", x=100, y=200)]),
    ("pyautogui.click(100, 200, button='right')", [Action.right_click(100, 200)]),
    ("pyautogui.click(100, 200, button='middle')", [Action("click", x=100, y=200, button="middle")]),
    ("pyautogui.click(960.5, 540.25, duration=0.2)", [Action.click(960.5, 540.25)]),
    ("pyautogui.doubleClick(1, 2)", [Action.double_click(1, 2)]),
    ("pyautogui.tripleClick(1, 2)", [Action("triple_click", x=1, y=2)]),
    ("pyautogui.rightClick(1, 2)", [Action.right_click(1, 2)]),
    ("pyautogui.middleClick(1, 2)", [Action("click", x=1, y=2, button="middle")]),
    ("pyautogui.moveTo(5, 6)", [Action.move(5, 6)]),
    ("pyautogui.moveTo(5, 6)\npyautogui.click()", [Action.move(5, 6), Action.click(5, 6)]),
    ("pyautogui.moveTo(5, 6)\npyautogui.moveRel(10, -2)", [Action.move(5, 6), Action.move(15, 4)]),
    ("pyautogui.moveTo(5, 6)\npyautogui.dragTo(50, 60, duration=1.0)", [Action.drag(5, 6, 50, 60)]),
    ("pyautogui.moveTo(5, 6)\n\npyautogui.dragTo(50, 60, button='left')", [Action.drag(5, 6, 50, 60)]),
    ("pyautogui.click(5, 6)\npyautogui.dragTo(50, 60)", [Action.click(5, 6), Action.drag(5, 6, 50, 60)]),
    ("pyautogui.moveTo(5, 6)\npyautogui.dragRel(10, 10)", [Action.drag(5, 6, 15, 16)]),
    ("pyautogui.moveTo(5, 6)\npyautogui.drag(10, 10)", [Action.drag(5, 6, 15, 16)]),
    ("pyautogui.dragTo(50, 60)", [Action("mouse_down"), Action.move(50, 60), Action("mouse_up")]),
    ("pyautogui.moveTo(5, 6)\npyautogui.dragTo(50, 60, button='right')",
     [Action.move(5, 6), Action("mouse_down", button="right"), Action.move(50, 60), Action("mouse_up", button="right")]),
    ("pyautogui.mouseDown()\npyautogui.dragTo(9, 9, mouseDownUp=False)\npyautogui.mouseUp()",
     [Action("mouse_down"), Action.move(9, 9), Action("mouse_up")]),
    ("pyautogui.click()", [Action("mouse_down"), Action("mouse_up")]),
    ("pyautogui.rightClick()", [Action("mouse_down", button="right"), Action("mouse_up", button="right")]),
    ("pyautogui.mouseDown(1, 2, button='right')", [Action("mouse_down", x=1, y=2, button="right")]),
    ("pyautogui.mouseUp(button='primary')", [Action("mouse_up")]),
    ("pyautogui.scroll(5)", [Action.scroll("up", 5)]),
    ("pyautogui.scroll(-3, x=10, y=20)", [Action.scroll("down", 3, x=10, y=20)]),
    ("pyautogui.vscroll(-1)", [Action.scroll("down", 1)]),
    ("pyautogui.hscroll(4)", [Action.scroll("right", 4)]),
    ("pyautogui.hscroll(-4, 1, 2)", [Action.scroll("left", 4, x=1, y=2)]),
    ("pyautogui.write('hello world')", [Action.type("hello world")]),
    ("pyautogui.typewrite('line\\n', interval=0.05)", [Action.type("line\n")]),
    ("pyautogui.typewrite(['a', 'enter'])", [Action.key("a"), Action.key("enter")]),
    ("pyautogui.write(\"it's <b>&|</b> \\\"q\\\"\")", [Action.type("it's <b>&|</b> \"q\"")]),
    ("pyautogui.press('enter')", [Action.key("enter")]),
    ("pyautogui.press('\\n')", [Action.key("enter")]),
    ("pyautogui.press(['tab', 'tab'])", [Action.key("tab"), Action.key("tab")]),
    ("pyautogui.press('down', presses=3)", [Action.key("down")] * 3),
    ("pyautogui.hotkey('ctrl', 'c')", [Action.hotkey("ctrl", "c")]),
    ("pyautogui.hotkey('command', 'shift', 'z', interval=0.1)", [Action.hotkey("meta", "shift", "z")]),
    ("pyautogui.hotkey('enter')", [Action.key("enter")]),
    ("pyautogui.keyDown('shift')\npyautogui.keyUp('shift')",
     [Action("key_down", keys=("shift",)), Action("key_up", keys=("shift",))]),
    ("import time\ntime.sleep(2)", [Action.wait(2)]),
    ("pyautogui.sleep(0.5)", [Action.wait(0.5)]),
    ("WAIT", [Action("wait")]),
    ("  DONE\n", [Action.done()]),
    ("FAIL", [Action.fail()]),
    ("pyautogui.click(1, 2)\nDONE", [Action.click(1, 2), Action.done()]),
    ("import pyautogui\nimport time\n'''\nObservation:\n\nThought: click it\n'''\npyautogui.click(3, 4, button='left')",
     [Action.click(3, 4)]),
    ("```python\npyautogui.click(1, 2)\n```", [Action.click(1, 2)]),
    ("```\nimport pyautogui; pyautogui.click(1, 2); pyautogui.write('x')\n```", [Action.click(1, 2), Action.type("x")]),
    ("pyautogui.click(1, 2)  # the OK button", [Action.click(1, 2)]),
])
def test_parse_many(code, expected):
    assert pyautogui_code.parse_many(code) == expected


def test_parse_requires_exactly_one():
    assert pyautogui_code.parse("pyautogui.moveTo(1, 2)\npyautogui.dragTo(3, 4)") == Action.drag(1, 2, 3, 4)
    with pytest.raises(ActionParseError, match=r"expected code for exactly one action, received 2 actions"):
        pyautogui_code.parse("pyautogui.click(1, 2)\npyautogui.click(3, 4)")


@pytest.mark.parametrize("action, code", [
    (Action.click(100.4, 199.6), "pyautogui.click(100, 200)"),
    (Action("click", x=1, y=2, button="middle"), "pyautogui.click(1, 2, button='middle')"),
    (Action.drag(1, 2, 3, 4), "pyautogui.moveTo(1, 2)\npyautogui.dragTo(3, 4, button='left')"),
    (Action.scroll("down", 3, x=5, y=6), "pyautogui.scroll(-3, x=5, y=6)"),
    (Action.scroll("left", 2), "pyautogui.hscroll(-2)"),
    (Action.type("it's\n"), "pyautogui.write(\"it's\\n\")"),
    (Action.hotkey("meta", "l"), "pyautogui.hotkey('win', 'l')"),
    (Action.key(" "), "pyautogui.press(' ')"),
    (Action("mouse_down", button="right"), "pyautogui.mouseDown(button='right')"),
    (Action("wait"), "WAIT"),
    (Action.wait(1.5), "time.sleep(1.5)"),
    (Action.done("ignored"), "DONE"),
    (Action.fail(), "FAIL"),
])
def test_format(action, code):
    assert pyautogui_code.format(action) == code
    assert format_action(action, "pyautogui") == code


EXPRESSIBLE = [
    Action.click(10, 20), Action("click", x=10, y=20, button="middle"), Action.double_click(1, 2),
    Action("triple_click", x=1, y=2), Action.right_click(1, 2), Action.move(3, 4),
    Action("mouse_down"), Action("mouse_down", x=1, y=2, button="right"), Action("mouse_up", button="middle"),
    Action.drag(1, 2, 300, 400), Action.scroll("up", 2), Action.scroll("down", 7, x=10, y=10),
    Action.scroll("left", 1), Action.scroll("right", 3, x=4, y=4), Action.type("a'b\"c\\d\n<e>|&é"),
    Action.key("enter"), Action.key(" "), Action.hotkey("ctrl", "alt", "delete"), Action.hotkey("meta", "d"),
    Action("key_down", keys=("shift",)), Action("key_up", keys=("shift",)), Action("wait"), Action.wait(3),
    Action.done(), Action.fail(),
]


@pytest.mark.parametrize("action", EXPRESSIBLE, ids=lambda a: a.kind)
def test_round_trip_action_code_action(action):
    assert pyautogui_code.parse(pyautogui_code.format(action)) == action
    assert parse_action(format_action(action, "pyautogui"), "pyautogui") == action


@pytest.mark.parametrize("code", [
    "pyautogui.click(10, 20, button='right')",
    "pyautogui.moveTo(5, 6)\npyautogui.dragTo(7, 8)",
    "pyautogui.typewrite('x\\ny')",
    "pyautogui.hotkey('ctrl', 'shift', 'esc')",
    "pyautogui.hscroll(-2, x=1, y=1)",
    "time.sleep(0.25)",
])
def test_round_trip_code_action_code(code):
    action = pyautogui_code.parse(code)
    assert pyautogui_code.parse(pyautogui_code.format(action)) == action


@pytest.mark.parametrize("action, match", [
    (Action.answer("x"), r"answer cannot be written as pyautogui code"),
    (Action.goto("https://a.b"), r"goto cannot be written as pyautogui code"),
    (Action("open_app", text="x"), r"open_app cannot be written as pyautogui code"),
    (Action("long_press", x=1, y=2), r"long_press cannot be written"),
    (Action("swipe", direction="up"), r"swipe cannot be written"),
    (Action("navigate_back"), r"navigate_back cannot be written"),
    (Action.click_element(2), r"click on element 2 cannot be written as pyautogui code"),
    (Action("type", text="a", x=1, y=2), r"type at a point cannot be written as pyautogui code"),
])
def test_format_unsupported(action, match):
    with pytest.raises(ActionParseError, match=match):
        pyautogui_code.format(action)


@pytest.mark.parametrize("code, match", [
    ("pyautogui.click(x)", r"line 1: `x` in pyautogui.click\(\.\.\.\) is not a literal"),
    ("os.system('rm -rf /')", r"line 1: `os.system\('rm -rf /'\)` is not allowed: only `import pyautogui`"),
    ("import os", r"line 1: `import os` is not allowed"),
    ("import pyautogui as pg", r"line 1: `import pyautogui as pg` is not allowed"),
    ("from pyautogui import click", r"line 1: `from pyautogui import click` is not allowed"),
    ("pyautogui.click(1,2); exec('x')", r"line 1: `exec\('x'\)` is not allowed"),
    ("pyautogui.click(1, 2)\neval('1')", r"line 2: `eval\('1'\)` is not allowed"),
    ("__import__('os').system('ls')", r"line 1: `__import__\('os'\).system\('ls'\)` is not allowed"),
    ("pyautogui.click(1, 2)\nx = 5", r"line 2: `x = 5` is not allowed"),
    ("pyautogui.FAILSAFE = False", r"line 1: `pyautogui.FAILSAFE = False` is not allowed"),
    ("for i in range(3):\n    pyautogui.click(1, 2)", r"line 1: `for i in range\(3\):.*` is not allowed"),
    ("while True: pass", r"line 1: `while True: pass` is not allowed"),
    ("def f(): pass", r"line 1: `def f\(\): pass` is not allowed"),
    ("pyautogui.write(f'{secret}')", r"line 1: `f'\{secret\}'` in pyautogui.write\(\.\.\.\) is not a literal"),
    ("pyautogui.click(int('1'), 2)", r"line 1: `int\('1'\)` in pyautogui.click\(\.\.\.\) is not a literal"),
    ("pyautogui.click(1 + 1, 2)", r"`1 \+ 1` in pyautogui.click\(\.\.\.\) is not a literal"),
    ("pyautogui.click(*pos)", r"`\*pos` \(argument unpacking\) is not allowed"),
    ("pyautogui.click(**kw)", r"`kw` \(keyword unpacking\) is not allowed"),
    ("pyautogui.screenshot()", r"`pyautogui.screenshot\(\)` is not supported; supported pyautogui functions: click"),
    ("pyautogui.position", r"`pyautogui.position` is not allowed"),
    ("pyautogui.click.__globals__", r"is not allowed"),
    ("time.time()", r"`time.time\(\)` is not allowed"),
    ("pyautogui.moveTo(1, 2, tween=pyautogui.easeInQuad)", r"`pyautogui.easeInQuad` in pyautogui.moveTo"),
    ("pyautogui.click(1, 2, 3, 4, 5, 6)", r"pyautogui.click takes at most 5 positional arguments, received 6"),
    ("pyautogui.click(1, 2, colour='red')", r"pyautogui.click: unknown argument 'colour'"),
    ("pyautogui.click(1, x=2)", r"pyautogui.click: argument 'x' given twice"),
    ("pyautogui.click(1)", r"pyautogui.click: give x and y together"),
    ("pyautogui.click('button.png')", r"locating an image on the screen \('button.png'\) is not supported"),
    ("pyautogui.click(True, 2)", r"pyautogui.click: x must be a number, received True"),
    ("pyautogui.click(1, 2, button='side')", r"button must be 'left', 'middle' or 'right', received 'side'"),
    ("pyautogui.click(1, 2, clicks=0)", r"clicks must be a positive int, received 0"),
    ("pyautogui.click(1, 2, clicks=2, button='right')", r"2 clicks of the right button have no single action"),
    ("pyautogui.doubleClick()", r"a double_click needs x and y \(the pointer position is not known here\)"),
    ("pyautogui.doubleClick(1, 2, button='right')", r"2 clicks of the right button have no single action"),
    ("pyautogui.click(1, 2, clicks=4)", r"4 clicks of the left button have no single action"),
    ("pyautogui.moveTo()", r"pyautogui.moveTo needs x and y"),
    ("pyautogui.moveRel(10, 0)", r"pyautogui.moveRel moves relative to the pointer, whose position is not known"),
    ("pyautogui.dragRel(10, 0)", r"pyautogui.dragRel moves relative to the pointer"),
    ("pyautogui.scroll(0)", r"clicks must be a non-zero int, received 0"),
    ("pyautogui.scroll(2.5)", r"clicks must be a non-zero int, received 2.5"),
    ("pyautogui.write('')", r"expected a non-empty string \(or a list of key names\), received ''"),
    ("pyautogui.press([])", r"expected a key name or a list of key names, received \[\]"),
    ("pyautogui.press('a', presses=-1)", r"presses must be a positive int"),
    ("pyautogui.hotkey()", r"expected a key name or a list of key names"),
    ("pyautogui.keyDown(1)", r"pyautogui.keyDown: expected a key name or a list of key names, received 1"),
    ("pyautogui.keyUp(['a', 'b'])", r"key_up: takes exactly one key, received \['a', 'b'\]"),
    ("time.sleep(120)", r"wait: duration_s must be within \[0, 60\]"),
    ("time.sleep('1')", r"seconds must be a number"),
    ("pyautogui.click(1, 2", r"line 1: invalid Python \('\(' was never closed\)"),
    ("Click the OK button", r"line 1: invalid Python"),
    ("import pyautogui\n'''just a comment'''", r"the code holds no action"),
    ("", r"received an empty string"),
    ("```python\n\n```", r"received an empty string"),
    (None, r"expected pyautogui code like 'pyautogui.click\(100, 200\)', received NoneType"),
    (42, r"received int"),
])
def test_malformed(code, match):
    with pytest.raises(ActionParseError, match=match):
        pyautogui_code.parse_many(code)
