"""The fake adbd's shell: command lines parsed as ``sh`` would, run against a `VirtualDevice`.

Quotes, backslashes, ``$?``, ``;``, ``&&`` and ``||`` are understood; any other shell operator
(``|``, ``&``, ``<``, ``>``, ...) makes the command fail, so a client that forgets to quote
what it sends fails a test instead of passing by luck. This module holds the parser and the
stock commands (files, settings, input, screen); `app_shell` adds the ones apps and their
data need (am, pm, content, sqlite3, date, find, ...).
"""

from __future__ import annotations

import shutil
from typing import Callable

from .virtual_device import VirtualDevice

Command = Callable[[VirtualDevice, list[str]], "str | bytes"]


class ShellError(Exception):
    """A command failed: exit `code`, `message` on stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


EXIT_STATUS = "\0"
"""Stands for ``$?`` inside a parsed word until the command runs."""
_UNSUPPORTED = set("|&<>()`{}")


def parse_command_line(line: str) -> list[tuple[str | None, list[str]]]:
    """``[(connector, argv), ...]`` as sh splits a line; connector is None, ';', '&&' or '||'."""
    commands: list[tuple[str | None, list[str]]] = []
    words: list[str] = []
    word: list[str] | None = None
    connector: str | None = None
    i = 0
    while i < len(line):
        c = line[i]
        if c in " \t\n":
            if word is not None:
                words.append("".join(word))
                word = None
            i += 1
            continue
        if c == "#" and word is None:
            break
        if c == ";" or line.startswith(("&&", "||"), i):
            op = ";" if c == ";" else line[i:i + 2]
            if word is not None:
                words.append("".join(word))
                word = None
            if not words:
                raise ShellError(2, f"syntax error: unexpected '{op}'")
            commands.append((connector, words))
            words, connector = [], op
            i += len(op)
            continue
        if c in _UNSUPPORTED:
            raise ShellError(2, f"the fake shell does not support the operator {c!r} (did a caller forget to quote?)")
        word = word if word is not None else []
        if c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShellError(2, "syntax error: unterminated quoted string")
            word.append(line[i + 1:end])
            i = end + 1
        elif c == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                if line[i] == "\\" and i + 1 < len(line) and line[i + 1] in '"\\$`':
                    word.append(line[i + 1])
                    i += 2
                elif line[i] in "$`":
                    i = _expand(line, i, word)
                else:
                    word.append(line[i])
                    i += 1
            if i >= len(line):
                raise ShellError(2, "syntax error: unterminated quoted string")
            i += 1
        elif c == "\\":
            word.append(line[i + 1:i + 2])
            i += 2
        elif c == "$":
            i = _expand(line, i, word)
        else:
            word.append(c)
            i += 1
    if word is not None:
        words.append("".join(word))
    if words:
        commands.append((connector, words))
    elif connector in ("&&", "||"):
        raise ShellError(2, f"syntax error: unexpected end after '{connector}'")
    return commands


def _expand(line: str, i: int, word: list[str]) -> int:
    if line.startswith("$?", i):
        word.append(EXIT_STATUS)
        return i + 2
    raise ShellError(2, f"the fake shell does not expand {line[i:i + 2]!r} (did a caller forget to quote?)")


def run_command_line(device: VirtualDevice, line: str, table: dict[str, Command]) -> tuple[int, list[tuple[int, bytes]]]:
    """Run a shell command line on `device`: the exit code and the output in the order it was
    written, as (1 for stdout or 2 for stderr, bytes) pieces."""
    try:
        commands = parse_command_line(line)
    except ShellError as exc:
        return exc.code, [(2, f"/system/bin/sh: {exc}\n".encode())]
    code, output = 0, []
    for connector, words in commands:
        if (connector == "&&" and code != 0) or (connector == "||" and code == 0):
            continue
        argv = [w.replace(EXIT_STATUS, str(code)) for w in words]
        handler = table.get(argv[0])
        try:
            if handler is None:
                raise ShellError(127, f"/system/bin/sh: {argv[0]}: inaccessible or not found")
            result = handler(device, argv[1:])
            output.append((1, result if isinstance(result, bytes) else result.encode()))
            code = 0
        except ShellError as exc:
            output.append((2, f"{exc}\n".encode()))
            code = exc.code
    return code, output


def device_path(device: VirtualDevice, path: str):
    if not device.root and path.startswith("/data/data"):
        raise ShellError(1, f"{path}: Permission denied")
    return device.host_path(path)


def split_flags(args: list[str]) -> tuple[set[str], list[str]]:
    flags = {c for a in args if a.startswith("-") and len(a) > 1 for c in a[1:]}
    return flags, [a for a in args if not (a.startswith("-") and len(a) > 1)]


def _rm(device: VirtualDevice, args: list[str]) -> str:
    flags, paths = split_flags(args)
    for name in paths:
        path = device_path(device, name)
        if path.is_dir():
            if "r" not in flags:
                raise ShellError(1, f"rm: {name}: Is a directory")
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        elif "f" not in flags:
            raise ShellError(1, f"rm: {name}: No such file or directory")
    return ""


def _mkdir(device: VirtualDevice, args: list[str]) -> str:
    flags, paths = split_flags(args)
    for name in paths:
        path = device_path(device, name)
        if path.exists() and "p" not in flags:
            raise ShellError(1, f"mkdir: '{name}': File exists")
        if not path.parent.is_dir() and "p" not in flags:
            raise ShellError(1, f"mkdir: '{name}': No such file or directory")
        path.mkdir(parents=True, exist_ok=True)
    return ""


def _ls(device: VirtualDevice, args: list[str]) -> str:
    _, paths = split_flags(args)
    out = []
    for name in paths or ["/"]:
        path = device_path(device, name)
        if not path.exists():
            raise ShellError(1, f"ls: {name}: No such file or directory")
        out += sorted(p.name for p in path.iterdir()) if path.is_dir() else [name]
    return "".join(f"{line}\n" for line in out)


def _cat(device: VirtualDevice, args: list[str]) -> bytes:
    out = b""
    for name in args:
        path = device_path(device, name)
        if not path.is_file():
            raise ShellError(1, f"cat: {name}: No such file or directory")
        out += path.read_bytes()
    return out


def _settings(device: VirtualDevice, args: list[str]) -> str:
    if len(args) < 2 or args[1] not in device.settings:
        raise ShellError(255, f"Invalid namespace in {' '.join(args)!r}: expected global, system or secure")
    verb, table = args[0], device.settings[args[1]]
    if verb == "get" and len(args) == 3:
        return table.get(args[2], "null") + "\n"
    if verb == "put" and len(args) >= 4:
        table[args[2]] = args[3]
        return ""
    if verb == "delete" and len(args) == 3:
        return f"Deleted {int(table.pop(args[2], None) is not None)} rows\n"
    if verb == "list" and len(args) == 2:
        return "".join(f"{k}={v}\n" for k, v in sorted(table.items()))
    raise ShellError(255, f"settings: bad arguments {args}")


def _svc(device: VirtualDevice, args: list[str]) -> str:
    keys = {"wifi": "wifi_on", "bluetooth": "bluetooth_on"}
    if len(args) != 2 or args[0] not in keys or args[1] not in ("enable", "disable"):
        raise ShellError(1, f"svc: unsupported {' '.join(args)!r}")
    device.settings["global"][keys[args[0]]] = "1" if args[1] == "enable" else "0"
    return ""


KEYCODES = {3: "HOME", 4: "BACK", 61: "TAB", 62: "SPACE", 66: "ENTER", 67: "DEL", 111: "ESCAPE", 112: "FORWARD_DEL"}
KEY_NAMES = {
    *KEYCODES.values(), *(chr(c) for c in range(ord("A"), ord("Z") + 1)), *(str(d) for d in range(10)),
    *(f"F{n}" for n in range(1, 13)), "DPAD_UP", "DPAD_DOWN", "DPAD_LEFT", "DPAD_RIGHT", "DPAD_CENTER", "MOVE_HOME",
    "MOVE_END", "PAGE_UP", "PAGE_DOWN", "CTRL_LEFT", "SHIFT_LEFT", "ALT_LEFT", "META_LEFT", "INSERT", "CAPS_LOCK",
    "VOLUME_UP", "VOLUME_DOWN", "VOLUME_MUTE", "POWER", "MENU", "SEARCH", "APP_SWITCH", "CAMERA", "COMMA", "PERIOD"}


def _keycode(name: str) -> str:
    if name.isdigit() and int(name) in KEYCODES:
        return "KEYCODE_" + KEYCODES[int(name)]
    bare = name.removeprefix("KEYCODE_")
    if bare not in KEY_NAMES:
        raise ShellError(255, f"Error: Unknown keycode {name!r}")
    return "KEYCODE_" + bare


def android_input_text(arg: str) -> str:
    """What Android's `input text` types for its argument: ``%s`` is a space."""
    out, escape = [], False
    for ch in arg:
        if escape and ch == "s":
            out[-1], escape = " ", False
        else:
            out.append(ch)
            escape = ch == "%"
    return "".join(out)


def _input(device: VirtualDevice, args: list[str]) -> str:
    if args and args[0] in ("touchscreen", "keyboard", "mouse", "touchpad", "dpad", "stylus"):
        args = args[1:]
    if not args:
        raise ShellError(255, "Usage: input [<source>] <command> [<arg>...]")
    command, rest = args[0], args[1:]
    try:
        numbers = [round(float(a)) for a in rest] if command in ("tap", "swipe", "draganddrop") else []
    except ValueError:
        raise ShellError(255, f"Error: {command} takes numbers, received {rest}") from None
    if command == "tap" and len(numbers) == 2:
        device.tap(*numbers)
    elif command in ("swipe", "draganddrop") and len(numbers) in (4, 5):
        device.swipe(*numbers[:4], numbers[4] if len(numbers) == 5 else 300)
    elif command == "text" and rest:
        text = android_input_text(rest[0])
        if not text.isascii():
            raise ShellError(255, "java.lang.NullPointerException: no key events map the text to the virtual keyboard")
        device.type_text(text)
    elif command == "keyevent" and rest:
        for name in (a for a in rest if not a.startswith("--")):
            device.key(_keycode(name))
    elif command == "keycombination" and rest:
        device.events.append(("keycombination", *(_keycode(a) for a in rest)))
    else:
        raise ShellError(255, f"Error: Unknown command or arguments: input {' '.join(args)}")
    return ""


def _screencap(device: VirtualDevice, args: list[str]) -> bytes:
    if args != ["-p"]:
        raise ShellError(1, "screencap: only `screencap -p` (PNG to stdout) is supported by the fake")
    return device.screencap_png()


def _uiautomator(device: VirtualDevice, args: list[str]) -> str:
    _, rest = split_flags(args)
    if not rest or rest[0] != "dump" or len(rest) > 2:
        raise ShellError(1, f"uiautomator: unsupported {' '.join(args)!r}")
    target = rest[1] if len(rest) == 2 else "/sdcard/window_dump.xml"
    path = device_path(device, target)
    if not path.parent.is_dir():
        raise ShellError(1, f"ERROR: could not write {target}")
    path.write_text(device.dump_xml(), encoding="utf-8")
    return f"UI hierchary dumped to: {target}\n"



BASE_COMMANDS: dict[str, Command] = {
    "echo": lambda d, a: " ".join(a) + "\n",
    "true": lambda d, a: "",
    "getprop": lambda d, a: (d.props().get(a[0], "") if a else "".join(f"[{k}]: [{v}]\n" for k, v in d.props().items())) + "\n",
    "id": lambda d, a: ("0" if d.root else "2000") + "\n" if a == ["-u"] else f"uid={0 if d.root else 2000}\n",
    "touch": lambda d, a: "".join(device_path(d, p).touch() or "" for p in a),
    "rm": _rm, "mkdir": _mkdir, "ls": _ls, "cat": _cat, "settings": _settings, "svc": _svc, "input": _input,
    "screencap": _screencap, "uiautomator": _uiautomator,
    "wm": lambda d, a: f"Physical size: {d.size[0]}x{d.size[1]}\n" if a == ["size"] else "Physical density: 420\n",
}
