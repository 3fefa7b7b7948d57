"""Hostile agent and judge outputs, per action format, and the fault table they give.

An agent under RL emits anything: coordinates past float32, 1 MB of garbage, JSON nested a
thousand deep, integers past Python's 4,300-digit limit, lone surrogates, code that tries to
escape. Every input here must be rejected at the door (`gui_gym.action_formats.read_actions`) with
an `ActionParseError`, fast; the seeded mutations of valid outputs may parse or not, but
never crash, hang or take long. The corpus is shared by the fuzz tests
(``tests/gui_gym/test_fuzz_actions.py``) and by this script, which prints the table of
``docs/reliability.md``: inputs per format, crashes, slowest rejection.

    python -m gui_gym.benchmarks.hostile_inputs [--seed 0] [--mutations 100]
"""

from __future__ import annotations

import argparse
import json
import random
import time
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from gui_gym.actions import Action

SCREEN_SIZE = (1280, 720)
"""The viewport of GUI/Demo-v0 and GUI/LocalWeb-v0, where the corpus runs."""
MB = 1 << 20
RELATIVE_MARKER = "gui-gym-fuzz-escaped"
"""A file name code-escape attempts try to create in the working folder."""
FORMATS = ("json", "uitars", "pyautogui", "computer_13", "androidworld", "choice", "point")
"""Every registered string format; "action" stands for `Action` objects given directly."""


@dataclass(frozen=True)
class Case:
    """One input. `value` is what the agent sends (for format "action", a function building
    the `Action`, since building it may itself be the rejection). `expect` says where it is
    turned down: "door" (`read_actions` raises `ActionParseError`), "env" (it parses, and the
    env's backend answers with an action error: a blocked URL, a missing element), or "any"
    (a mutation, which may even be valid)."""

    format: str
    name: str
    value: Any
    expect: str = "door"

    @property
    def size(self) -> int:
        value = self.value
        return len(value) if isinstance(value, str) else len(json.dumps(value, default=str)) if not callable(value) else 0


# ---- the pieces hostile inputs are made of ------------------------------------------------

NUMBERS = {
    "1e308": "1e308", "-1e308": "-1e308", "1e39": "1e39", "-1e39": "-1e39", "3.5e38": "3.5e38",
    "1e400": "1e400", "-1e400": "-1e400", "NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity",
    "int 1e40": "1" + "0" * 40, "int 400 digits": "9" * 400, "int 5000 digits": "9" * 5000,
    "-int 5000 digits": "-" + "9" * 5000, "1e5": "100000", "-1e5": "-100000", "1e-400 then junk": "1e-400x",
}
"""Numbers no screen holds, in the spelling of JSON and Python literals."""

DIGITS = {"41 digits": "9" * 41, "-41 digits": "-" + "9" * 41, "400 digits": "9" * 400, "5000 digits": "9" * 5000,
          "1e5": "100000", "-1e5": "-100000"}
"""The same for formats that only spell digits (UI-TARS points)."""

URLS = {
    "file": "file:///etc/passwd", "file on localhost": "file://localhost/etc/passwd", "javascript": "javascript:alert(1)",
    "data": "data:text/html,<script>document.title='x'</script>", "external host": "http://example.com/",
    "external https": "https://example.org/login", "chrome": "chrome://version", "view-source": "view-source:http://127.0.0.1/",
    "userinfo trick": "http://127.0.0.1@example.com/", "hex host": "http://0x7f000001/", "ftp": "ftp://127.0.0.1/",
}
"""goto/open_url targets an env must refuse."""
LOOPBACK_FILE_URL = "file://127.0.0.1/etc/passwd"
"""A host file behind the loopback host name: refusing it takes a scheme allow-list, not a host one."""

TEXT_HAZARDS = {
    "lone surrogate": "\ud800", "lone low surrogate": "x\udfffy", "1 MB of text": "a" * MB,
}
"""Text fields that cannot be typed (not Unicode) or are past the size limit."""


def _runs(n: int) -> dict[str, str]:
    """Long runs of one thing, `n` characters or so: where a backtracking pattern goes quadratic."""
    return {
        "a": "a" * n, "braces": "{" * n, "balanced braces": "{" * (n // 2) + "}" * (n // 2), "brackets": "[" * n,
        "parens": "(" * n, "quotes": "'" * n, "spaces then x": " " * n + "x", "newlines then x": "\n" * n + "x",
        "tabs and newlines then x": "\t\n" * (n // 2) + "x", "digits": "9" * n, "minus signs": "-" * n + "1",
        "fences": "```" * (n // 3), "open fence": "```json\n" + "x" * n, "keys in strings": '{"a{"a' * (n // 6),
        "numbered lines of spaces": ("1:" + " " * 1000 + "x\n") * (n // 1004), "commas and spaces": ", " * (n // 2),
    }


def big_strings() -> dict[str, str]:
    """Strings any text format must turn down fast: runs of 1 MB (past the size limit) and
    just under the limit (read in full)."""
    from gui_gym.actions import MAX_OUTPUT_CHARS

    strings = {
        "empty": "", "whitespace": " \t\n", "NUL": "\x00", "lone surrogate": "\ud800", "RTL override": "\u202e" * 100,
        "zero-width": "\u200b" * 10_000, "combining marks": "a" + "\u0301" * 50_000, "emoji": "\U0001f642" * 10_000,
        "160k braces": "{" * 160_000, "JSON nested 1000 deep": "[" * 1000 + "]" * 1000,
        "object keys nested": '{"a":' * 5000 + "1" + "}" * 5000, "int 5000 digits": "9" * 5000, "NaN": "NaN",
    }
    for size, label in ((MB, "1 MB"), (MAX_OUTPUT_CHARS - 16, "64k")):
        strings.update({f"{label} of {what}": text for what, text in _runs(size).items()})
    return strings


# ---- per-format corpora ------------------------------------------------------------------

def _json_cases() -> Iterator[Case]:
    slots = {"click x": '{{"kind": "click", "x": {n}, "y": 10}}', "click y": '{{"kind": "click", "x": 10, "y": {n}}}',
             "drag to_x": '{{"kind": "drag", "x": 1, "y": 1, "to_x": {n}, "to_y": 5}}',
             "scroll at": '{{"kind": "scroll", "direction": "down", "x": {n}, "y": {n}}}',
             "scroll amount": '{{"kind": "scroll", "direction": "down", "amount": {n}}}',
             "move": '{{"kind": "move", "x": {n}, "y": {n}}}',
             "long_press duration": '{{"kind": "long_press", "x": 5, "y": 5, "duration_s": {n}}}',
             "wait duration": '{{"kind": "wait", "duration_s": {n}}}',
             "element": '{{"kind": "click", "element": {n}}}'}
    for slot, template in slots.items():
        for label, number in NUMBERS.items():
            expect = "env" if slot == "element" and label == "1e5" else "door"  # an index no page has
            yield Case("json", f"{slot} = {label}", template.format(n=number), expect)
    for label, text in TEXT_HAZARDS.items():
        yield Case("json", f"type {label}", json.dumps({"kind": "type", "text": text}))
        yield Case("json", f"answer {label}", {"kind": "answer", "text": text})
    for label, url in URLS.items():
        yield Case("json", f"goto {label}", {"kind": "goto", "text": url}, expect="env")
    yield Case("json", "100k waits in one step", json.dumps([{"kind": "wait", "duration_s": 0}] * 100_000))
    yield Case("json", "two minute-long waits", [{"kind": "wait", "duration_s": 60}, {"kind": "wait", "duration_s": 60}])
    yield Case("json", "key name 100k long", {"kind": "key", "keys": ["a" * 100_000]})
    yield Case("json", "hotkey of 100k keys", {"kind": "hotkey", "keys": ["ctrl"] * 100_000})
    yield Case("json", "million unknown fields", {f"f{i}": i for i in range(100_000)} | {"kind": "click"})
    yield Case("json", "dict x", {"kind": "click", "x": {"a": 1}, "y": 2})
    yield Case("json", "string x 1 MB", {"kind": "click", "x": "9" * MB, "y": 2})
    yield Case("json", "element -1", {"kind": "click", "element": -1})
    yield Case("json", "element 10**5000", {"kind": "click", "element": 10 ** 5000})
    yield Case("json", "unknown kind", {"kind": "__import__"})


def _computer13_cases() -> Iterator[Case]:
    slots = {"CLICK nested": '{{"action_type": "CLICK", "parameters": {{"x": {n}, "y": 10}}}}',
             "CLICK flat y": '{{"action_type": "CLICK", "x": 5, "y": {n}}}',
             "MOVE_TO": '{{"action_type": "MOVE_TO", "x": {n}, "y": {n}}}',
             "DRAG_TO": '[{{"action_type": "MOVE_TO", "x": 5, "y": 5}}, {{"action_type": "DRAG_TO", "x": {n}, "y": 5}}]',
             "RIGHT_CLICK": '{{"action_type": "RIGHT_CLICK", "x": {n}, "y": 5}}',
             "DOUBLE_CLICK": '{{"action_type": "DOUBLE_CLICK", "x": 5, "y": {n}}}',
             "SCROLL dy": '{{"action_type": "SCROLL", "dx": 0, "dy": {n}}}',
             "SCROLL at": '[{{"action_type": "MOVE_TO", "x": {n}, "y": 5}}, {{"action_type": "SCROLL", "dx": 0, "dy": -3}}]',
             "num_clicks": '{{"action_type": "CLICK", "x": 5, "y": 5, "num_clicks": {n}}}'}
    for slot, template in slots.items():
        for label, number in NUMBERS.items():
            yield Case("computer_13", f"{slot} = {label}", template.format(n=number))
    for label, text in TEXT_HAZARDS.items():
        yield Case("computer_13", f"TYPING {label}", json.dumps({"action_type": "TYPING", "text": text}))
    yield Case("computer_13", "HOTKEY of 100k keys", {"action_type": "HOTKEY", "keys": ["ctrl"] * 100_000})
    yield Case("computer_13", "PRESS a 100k-char key", {"action_type": "PRESS", "key": "a" * 100_000})
    yield Case("computer_13", "parameters nested deep", '{"action_type": "CLICK", "parameters": ' + "[" * 5000 + "]" * 5000 + "}")
    yield Case("computer_13", "fenced 1 MB", "```json\n" + " " * MB + "\n```")
    yield Case("computer_13", "fence then junk", "```json\n{}\n```" + "`" * 100_000)


def _pyautogui_cases(marker: str) -> Iterator[Case]:
    slots = {"click": "pyautogui.click({n}, 10)", "click y=": "pyautogui.click(x=10, y={n})",
             "moveTo": "pyautogui.moveTo({n}, 5)", "dragTo": "pyautogui.dragTo({n}, {n})",
             "scroll at": "pyautogui.scroll(-3, x={n}, y=5)", "hscroll clicks": "pyautogui.hscroll({n})",
             "mouseDown": "pyautogui.mouseDown({n}, 5)", "press presses": "pyautogui.press('a', presses={n})",
             "sleep": "time.sleep({n})"}
    for slot, template in slots.items():
        for label, number in NUMBERS.items():
            yield Case("pyautogui", f"{slot} = {label}", template.format(n=number))
    escapes = {
        "os.system": f"import os\nos.system('touch {marker}')", "__import__": f"__import__('os').system('touch {marker}')",
        "open": f"open('{marker}', 'w').write('x')", "exec": f"exec(\"open('{marker}','w')\")",
        "eval in argument": f"pyautogui.click(eval(\"open('{marker}','w') or 1\"), 1)",
        "subprocess": f"import subprocess\nsubprocess.run(['touch', '{marker}'])",
        "import as": f"import pyautogui as os\nos.system('touch {marker}')",
        "from import": f"from os import system\nsystem('touch {marker}')",
        "globals": "pyautogui.click.__globals__['os'].system('id')", "lambda": "(lambda: pyautogui.click(1, 1))()",
        "f-string": "pyautogui.write(f\"{__import__('os').getcwd()}\")", "starred": "pyautogui.click(*[1, 2])",
        "relative open": f"open('{RELATIVE_MARKER}', 'w')",
        "kwargs unpacking": "pyautogui.click(**{'x': 1, 'y': 2})", "assignment": "x = 1\npyautogui.click(x, 1)",
        "loop": "for i in range(10**9):\n    pyautogui.click(1, 1)", "while": "while True:\n    pass",
        "attribute": "pyautogui.FAILSAFE = False", "write file contents": "pyautogui.write(open('/etc/passwd').read())",
        "walrus": "pyautogui.click((x := 1), 1)", "with": f"with open('{marker}', 'w') as f:\n    pass",
        "class": "class A:\n    pass", "decorator": "@pyautogui.click\ndef f(): pass", "try": "try:\n    1/0\nexcept: pass",
        "time.time": "time.time()", "pyautogui private": "pyautogui._pyautogui_x11._keyDown('a')",
    }
    for label, code in escapes.items():
        yield Case("pyautogui", f"code escape: {label}", code)
    yield Case("pyautogui", "write 1 MB", "pyautogui.write('" + "a" * MB + "')")
    yield Case("pyautogui", "write lone surrogate", "pyautogui.write('\ud800')")
    yield Case("pyautogui", "1 MB of clicks", "pyautogui.click(1, 1)\n" * (MB // 22))
    yield Case("pyautogui", "64k of clicks", "pyautogui.click(1, 1)\n" * 2900)
    yield Case("pyautogui", "64k of one-line statements", "pyautogui.click(1, 1);" * 2900)
    yield Case("pyautogui", "64k of arguments", "pyautogui.hotkey(" + "'a'," * 16_000 + ")")
    yield Case("pyautogui", "60k minus signs", "pyautogui.click(" + "-" * 60_000 + "1, 5)")
    yield Case("pyautogui", "64k of nested lists", "pyautogui.hotkey(" + "[" * 32_000 + "]" * 32_000 + ")")
    yield Case("pyautogui", "60 clicks in one step", "pyautogui.click(1, 1)\n" * 60)
    yield Case("pyautogui", "three 30 s sleeps", "time.sleep(30)\n" * 3)
    yield Case("pyautogui", "1 MB comment", "pyautogui.click(1, 1)  #" + "x" * MB)
    yield Case("pyautogui", "1 MB docstring then nothing", '"""' + "x" * MB + '"""')
    yield Case("pyautogui", "100k minus signs", "pyautogui.click(" + "-" * 100_000 + "1, 5)")
    yield Case("pyautogui", "100k parens", "pyautogui.click(" + "(" * 100_000 + "1" + ")" * 100_000 + ", 5)")
    yield Case("pyautogui", "nested lists", "pyautogui.hotkey(" + "[" * 10_000 + "'a'" + "]" * 10_000 + ")")
    yield Case("pyautogui", "hotkey of 100k keys", "pyautogui.hotkey(" + "'ctrl', " * 100_000 + ")")
    yield Case("pyautogui", "fenced 1 MB", "```python\n" + "\n" * MB + "```")


def _uitars_cases() -> Iterator[Case]:
    slots = {"click": "Action: click(start_box='({n},10)')", "click y": "Action: click(start_box='(10,{n})')",
             "drag end": "Action: drag(start_box='(1,1)', end_box='({n},{n})')",
             "scroll at": "Action: scroll(start_box='({n},5)', direction='down')",
             "long_press": "Action: long_press(start_box='(5,{n})')",
             "box": "Action: click(start_box='[0,0,{n},{n}]')", "point tag": "Action: click(point='<point>{n} 5</point>')"}
    for slot, template in slots.items():
        for label, number in DIGITS.items():
            yield Case("uitars", f"{slot} = {label}", template.format(n=number))
    for label, url in URLS.items():
        yield Case("uitars", f"open_url {label}", f"Action: open_url(url='{url}')", expect="env")
    yield Case("uitars", "type 1 MB", "Action: type(content='" + "a" * MB + "')")
    yield Case("uitars", "type lone surrogate", "Action: type(content='\ud800')")
    yield Case("uitars", "1 MB thought", "Thought: " + "x" * MB + "\nAction: click(start_box='(1,1)')")
    yield Case("uitars", "thought of spaces", "Thought:" + " " * MB + "x")
    yield Case("uitars", "1 MB of calls", "Action: " + "click(start_box='(1,1)')\n\n" * (MB // 26))
    yield Case("uitars", "64k of calls", "Action: " + "click(start_box='(1,1)')\n\n" * 2500)
    yield Case("uitars", "64k of quotes and spaces", "Action: type(content='" + ("' " + " " * 1000) * 60)
    yield Case("uitars", "64k of spaces in a point", "Action: click(start_box='(1" + " " * 60_000 + "x)')")
    yield Case("uitars", "64k of escapes", "Action: type(content='" + "\\'" * 30_000 + "')")
    yield Case("uitars", "60 calls", "Action: " + "click(start_box='(1,1)')\n\n" * 60)
    yield Case("uitars", "100k keyword arguments", "Action: click(" + "a='', " * 100_000 + ")")
    yield Case("uitars", "100k nested calls", "Action: " + "a(" * 100_000)
    yield Case("uitars", "hotkey of 100k keys", "Action: hotkey(key='" + "ctrl " * 100_000 + "')")
    yield Case("uitars", "unterminated string 1 MB", "Action: type(content='" + "a\\" * (MB // 2))
    yield Case("uitars", "quotes and spaces", "Action: type(content='" + ("' " + " " * 1000) * 1000)
    yield Case("uitars", "point of 1 MB digits", "Action: click(start_box='(" + "1" * MB + ",1)')")
    yield Case("uitars", "point with 100k separators", "Action: click(start_box='(" + "1, " * 100_000 + ")')")


def _androidworld_cases() -> Iterator[Case]:
    slots = {"click x": '{{"action_type": "click", "x": {n}, "y": 5}}',
             "long_press y": '{{"action_type": "long_press", "x": 5, "y": {n}}}',
             "scroll at": '{{"action_type": "scroll", "direction": "down", "x": {n}, "y": {n}}}',
             "swipe from": '{{"action_type": "swipe", "direction": "up", "x": {n}, "y": 5}}',
             "input_text at": '{{"action_type": "input_text", "text": "hi", "x": {n}, "y": 5}}',
             "double_tap": '{{"action_type": "double_tap", "x": 5, "y": {n}}}',
             "index": '{{"action_type": "click", "index": {n}}}'}
    for slot, template in slots.items():
        for label, number in NUMBERS.items():
            expect = "env" if slot == "index" and label == "1e5" else "door"  # an index no screen has
            if slot in ("scroll at", "swipe from"):
                expect = "any"  # AndroidWorld ignores a scroll's or swipe's x, y: a warning, no point
            yield Case("androidworld", f"{slot} = {label}", template.format(n=number), expect)
    for label, text in TEXT_HAZARDS.items():
        yield Case("androidworld", f"input_text {label}", json.dumps({"action_type": "input_text", "text": text}))
    yield Case("androidworld", "index as 5000-digit string", {"action_type": "click", "index": "9" * 5000})
    yield Case("androidworld", "open_app 1 MB", {"action_type": "open_app", "app_name": "a" * MB})
    yield Case("androidworld", "answer lone surrogate", {"action_type": "answer", "text": "\ud800"})
    yield Case("androidworld", "keycode", {"action_type": "keycode", "keycode": "KEYCODE_POWER"})


def _text_format_cases(fmt: str) -> Iterator[Case]:
    """choice and point: free text, read for a letter or a point."""
    for label, text in big_strings().items():
        if label not in ("empty", "whitespace"):
            yield Case(fmt, label, text)
    yield Case(fmt, "uitars-looking 1 MB", "\n" * MB + "x")
    yield Case(fmt, "point past float32", "(" + "9" * 41 + ", 5)" if fmt == "point" else "Z" * MB)


def _action_cases() -> Iterator[Case]:
    big = {"1e308": 1e308, "-1e308": -1e308, "1e39": 1e39, "3.5e38": 3.5e38, "1e5": 1e5, "int 10**40": 10 ** 40,
           "int 10**400": 10 ** 400, "nan": float("nan"), "inf": float("inf")}
    for label, number in big.items():
        yield Case("action", f"click x = {label}", lambda n=number: Action.click(n, 5))
        yield Case("action", f"drag to_y = {label}", lambda n=number: Action.drag(1, 1, 5, n))
        yield Case("action", f"scroll at = {label}", lambda n=number: Action.scroll("down", 3, n, 5))
        yield Case("action", f"swipe from = {label}", lambda n=number: Action("swipe", x=n, y=5, direction="up"))
    yield Case("action", "scroll amount 10**30", lambda: Action.scroll("down", 10 ** 30))
    yield Case("action", "long_press a day", lambda: Action("long_press", x=5, y=5, duration_s=86_400))
    yield Case("action", "type 1 MB", lambda: Action.type("a" * MB))
    yield Case("action", "type lone surrogate", lambda: Action.type("\ud800"))
    yield Case("action", "element 10**5000", lambda: Action.click_element(10 ** 5000))
    yield Case("action", "hotkey of 100k keys", lambda: Action.hotkey(*["ctrl"] * 100_000))
    for label, url in URLS.items():
        yield Case("action", f"goto {label}", lambda u=url: Action.goto(u), expect="env")


def corpus(marker: str = "/nonexistent/gui-gym-fuzz-marker") -> list[Case]:
    """Every hostile input, per format. `marker` is a path that code-escape attempts try to
    create; nothing may create it."""
    cases = [*_json_cases(), *_computer13_cases(), *_pyautogui_cases(marker), *_uitars_cases(), *_androidworld_cases(),
             *_text_format_cases("choice"), *_text_format_cases("point"), *_action_cases()]
    for fmt in ("json", "uitars", "pyautogui", "computer_13", "androidworld"):
        cases += [Case(fmt, label, text) for label, text in big_strings().items()]
    return cases


# ---- seeded mutations of valid outputs -----------------------------------------------------

VALID: dict[str, list[str]] = {
    "json": ['{"kind": "click", "x": 100, "y": 200}', '[{"kind": "type", "text": "hello"}, {"kind": "key", "keys": ["enter"]}]',
             '{"kind": "scroll", "direction": "down", "amount": 3, "x": 640, "y": 360}'],
    "uitars": ["Thought: the button is at the top.\nAction: click(start_box='(100,200)')",
               "Action: drag(start_box='(10,10)', end_box='(300,300)')", "Action: type(content='hello\\n')"],
    "pyautogui": ["pyautogui.click(100, 200)", "import pyautogui\npyautogui.moveTo(10, 10)\npyautogui.dragTo(300, 300)",
                  "pyautogui.hotkey('ctrl', 'a')\npyautogui.write('hi')\ntime.sleep(0.1)"],
    "computer_13": ['{"action_type": "CLICK", "parameters": {"x": 100, "y": 200}}',
                    '[{"action_type": "MOVE_TO", "x": 5, "y": 5}, {"action_type": "SCROLL", "dx": 0, "dy": -3}]'],
    "androidworld": ['{"action_type": "click", "x": 100, "y": 200}', '{"action_type": "input_text", "text": "hi", "index": 2}',
                     '{"action_type": "scroll", "direction": "down"}'],
    "choice": ["B", "The answer is C.", "Action: finished(content='A')"],
    "point": ["(100, 200)", "Action: click(start_box='(100,200)')", '{"kind": "click", "x": 10, "y": 20}'],
}
_INSERTS = ["9" * 41, "1e39", "-" * 500, "{" * 2000, "[" * 1000, "\ud800", "\u202e", "'", '"', "\\", "\n" * 500, "(" * 500,
            "```", "NaN", "Action:", " " * 5000, "\x00", "9" * 5000]


def mutations(fmt: str, count: int, seed: int = 0) -> list[Case]:
    """`count` seeded mutations of valid `fmt` outputs: insertions of hostile pieces, repeated
    slices (up to ~1 MB), deletions, truncations. They need not be rejected; they must not
    crash, hang or take long."""
    rng = random.Random(seed * 1_000_003 + zlib.crc32(fmt.encode()))
    cases = []
    for number in range(count):
        text = rng.choice(VALID[fmt])
        for _ in range(rng.randint(1, 3)):
            op, at = rng.randrange(4), rng.randrange(len(text) + 1)
            if op == 0:
                text = text[:at] + rng.choice(_INSERTS) + text[at:]
            elif op == 1:
                end = min(len(text), at + rng.randint(1, 8))
                text = text[:at] + text[at:end] * rng.randint(2, max(2, MB // 8 // max(1, end - at))) + text[end:]
            elif op == 2:
                text = text[:at] + text[at + rng.randint(1, 5):]
            else:
                text = text[:at]
        cases.append(Case(fmt, f"mutation {number}", text, expect="any"))
    return cases


# ---- judge answers ---------------------------------------------------------------------------

def judge_answers() -> dict[str, str]:
    """Answers a judge (or a Qwen tool call) may come back with that must be read, or turned
    down, fast."""
    answers = dict(big_strings())
    answers.update({
        "flags with long whitespace": " " * 60_000 + "1: yes x",
        "JSON with 5000-digit int": '{"met": [' + "9" * 5000 + "]}", "JSON 1000 deep": '{"met": ' + "[" * 1000 + "]" * 1000 + "}",
        "thought of spaces": "Thought:" + " " * MB + "x", "tool call 1 MB": "<tool_call>" + "{" * MB,
        "tool call args nested": '<tool_call>{"name": "computer_use", "arguments": "' + "[" * 5000 + '"}</tool_call>',
        "tool call huge int": '<tool_call>{"arguments": {"action": "left_click", "coordinate": [' + "9" * 400 + ", 1]}}",
    })
    return answers


# ---- the table ----------------------------------------------------------------------------------

def judge_parsers() -> dict[str, Callable[[str], Any]]:
    """Every reader of judge (and prompt) answers, by name."""
    from gui_gym.agents.prompts import read_qwen_tool_call
    from gui_gym.action_formats import uitars
    from gui_gym.judges.webjudge import common as webjudge
    from gui_gym.judges.parsing import extract_json_object, parse_fields, parse_flags

    return {"extract_json_object": extract_json_object, "parse_flags": lambda t: parse_flags(t, "met", 3),
            "parse_fields": lambda t: parse_fields(t, ["Status", "Reason"]), "webjudge.parse_status": webjudge.parse_status,
            "webjudge.parse_screenshot_score": webjudge.parse_screenshot_score,
            "webjudge.parse_key_points": webjudge.parse_key_points,
            "qwen tool call": lambda t: read_qwen_tool_call(t, SCREEN_SIZE), "uitars thought": uitars.thought}


def time_call(call: Callable[[], Any]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, outcome) of one call; the outcome is "rejected" (a typed
    parse error), "accepted" or "CRASH <type>" (anything else)."""
    from gui_gym.errors import ActionParseError, JudgeFormatError

    started, cpu = time.perf_counter(), time.process_time()
    try:
        call()
        result = "accepted"
    except (ActionParseError, JudgeFormatError):
        result = "rejected"
    except Exception as exc:  # what the table counts as a crash
        result = f"CRASH {type(exc).__name__}"
    return time.perf_counter() - started, time.process_time() - cpu, result


def door(case: Case) -> Callable[[], Any]:
    """The call that reads `case` at an env's door."""
    from gui_gym.action_formats import read_actions

    if case.format == "action":
        return lambda: read_actions(case.value(), "json", screen_size=SCREEN_SIZE)
    return lambda: read_actions(case.value, case.format, screen_size=SCREEN_SIZE)


def _row(name: str, results: list[tuple[str, str, float, float, str]]) -> str:
    crashes = sum(r[4].startswith("CRASH") for r in results)
    wrong = sum(r[1] == "door" and r[4] == "accepted" for r in results)
    wall = max(results, key=lambda r: r[2])
    cpu = max(results, key=lambda r: r[3])
    return (f"| {name} | {len(results)} | {wrong} | {crashes} | {wall[2] * 1000:.1f} ({wall[0]}) | "
            f"{cpu[3] * 1000:.1f} ({cpu[0]}) |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mutations", type=int, default=100)
    args = parser.parse_args(argv)
    print("| reader | inputs | passed the door that must not | crashes | slowest wall ms (input) | slowest CPU ms (input) |")
    print("|---|---|---|---|---|---|")
    for fmt, valid in VALID.items():  # import each format and compile its patterns before timing
        door(Case(fmt, "warm-up", valid[0], "any"))()
    rows: dict[str, list[tuple[str, str, float, float, str]]] = {}
    for case in corpus() + [m for fmt in FORMATS for m in mutations(fmt, args.mutations, args.seed)]:
        rows.setdefault(case.format, []).append((case.name, case.expect, *time_call(door(case))))
    for fmt, results in rows.items():
        print(_row(fmt, results))
    for name, read in judge_parsers().items():
        print(_row(name, [(label, "any", *time_call(lambda t=text: read(t))) for label, text in judge_answers().items()]))
    for fmt, results in rows.items():
        for label, expect, _wall, _cpu, result in results:
            if result.startswith("CRASH") or (expect == "door" and result == "accepted"):
                print(f"{fmt}: {result}: {label}")


if __name__ == "__main__":
    main()
