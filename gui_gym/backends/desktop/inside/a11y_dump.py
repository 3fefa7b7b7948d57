"""Dump the AT-SPI accessibility tree of the desktop as XML (OSWorld's Ubuntu layout), or with
``--terminal`` the text OSWorld's server reads as the terminal's output.

Run by our desktop server with the system Python (``/usr/bin/python3``), where Debian's
``python3-pyatspi`` lives, as a separate process: pyatspi needs GObject introspection, which
the project's virtual environment does not carry. The output mirrors OSWorld's server: one
element per accessible, named by its role (spaces as dashes), with ``name``, states as
``st:*`` (pyatspi's state names as OSWorld writes them: ``multi_line``), object attributes as
``attr:*``, ``cp:screencoord`` / ``cp:size`` for what is visible and showing, and the text
content (without U+FFFC and U+FFFD, as OSWorld strips them). Bounded where OSWorld is not: at
most `MAX_NODES` elements, `MAX_CHILDREN` children and `MAX_TEXT` characters of text each (the
terminal's text: its last `MAX_TERMINAL_TEXT`). OSWorld's image, selection, value-range and
action attributes are left out: no task's evaluator reads them. Standard library and pyatspi only.
"""

import re
import sys
import xml.etree.ElementTree as ET

NS = {
    "st": "https://accessibility.ubuntu.example.org/ns/state",
    "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
    "cp": "https://accessibility.ubuntu.example.org/ns/component",
    "doc": "https://accessibility.ubuntu.example.org/ns/document",
    "txt": "https://accessibility.ubuntu.example.org/ns/text",
    "val": "https://accessibility.ubuntu.example.org/ns/value",
    "act": "https://accessibility.ubuntu.example.org/ns/action",
}
MAX_NODES = 20000
MAX_CHILDREN = 500
MAX_TEXT = 2000
MAX_TERMINAL_TEXT = 1 << 20
TERMINAL_APP = "gnome-terminal-server"
"""The accessible application GNOME Terminal's windows belong to."""
INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _tag(role_name):
    """An XML name for a role or state name: spaces and other symbols become dashes."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", role_name or "unknown")
    return name if name[:1].isalpha() else "x-" + name


def _children(node):
    try:
        count = min(node.childCount, MAX_CHILDREN)
    except Exception:
        return
    for index in range(count):
        try:
            child = node.getChildAtIndex(index)
        except Exception:
            continue
        if child is not None:
            yield child


def _state_name(state, pyatspi):
    """OSWorld's name of a state: ``STATE_MULTI_LINE`` -> ``multi_line``."""
    return pyatspi.StateType._enum_lookup[state].split("_", 1)[1].lower()


def _text(node, limit, tail=False):
    """The accessible's text, its first `limit` characters (with `tail`, its last), with
    OSWorld's replacement characters removed; "" when it has none."""
    try:
        text = node.queryText()
        count = text.characterCount
        content = text.getText(max(0, count - limit), count) if tail else text.getText(0, min(count, limit))
    except Exception:
        return ""
    return INVALID_XML.sub("", content.replace("\ufffc", "").replace("\ufffd", ""))


def _add(parent, node, budget, pyatspi):
    if budget[0] <= 0:
        return
    budget[0] -= 1
    try:
        element = ET.SubElement(parent, _tag(node.getRoleName()), {"name": node.name or ""})
    except Exception:  # an accessible that vanished while we walk
        return
    states = set()
    try:
        states = {_state_name(state, pyatspi) for state in node.getState().getStates()}
    except Exception:
        pass
    for state in sorted(states):
        element.set("{%s}%s" % (NS["st"], _tag(state)), "true")
    try:
        for item in node.getAttributes() or []:
            key, _, value = item.partition(":")
            if key:
                element.set("{%s}%s" % (NS["attr"], _tag(key)), value)
    except Exception:
        pass
    if {"visible", "showing"} <= states:
        try:
            component = node.queryComponent()
            x, y = component.getPosition(pyatspi.XY_SCREEN)
            w, h = component.getSize()
            element.set("{%s}screencoord" % NS["cp"], "(%d, %d)" % (x, y))
            element.set("{%s}size" % NS["cp"], "(%d, %d)" % (w, h))
        except Exception:
            pass
    content = _text(node, MAX_TEXT)
    if content:
        element.text = content
    try:
        value = node.queryValue()
        element.set("{%s}value" % NS["val"], str(value.currentValue))
    except Exception:
        pass
    for child in _children(node):
        _add(element, child, budget, pyatspi)


def _has_state(node, state):
    try:
        return node.getState().contains(state)
    except Exception:
        return False


def _role(node):
    try:
        return node.getRoleName()
    except Exception:
        return ""


def terminal_output(pyatspi):
    """OSWorld's server's terminal output: the text (right-stripped) of the focused terminal of
    GNOME Terminal's active window; None unless there is exactly one, or when it is empty."""
    found, budget = [], [MAX_NODES]

    def focused_terminals(node):
        for child in _children(node):
            if budget[0] <= 0:
                return
            budget[0] -= 1
            if _role(child) == "terminal" and _has_state(child, pyatspi.STATE_FOCUSED):
                found.append(child)
            focused_terminals(child)

    desktop = pyatspi.Registry.getDesktop(0)
    for app in _children(desktop):
        if _role(app) == "application" and app.name == TERMINAL_APP:
            for frame in _children(app):
                if _role(frame) == "frame" and _has_state(frame, pyatspi.STATE_ACTIVE):
                    focused_terminals(frame)
    return (_text(found[0], MAX_TERMINAL_TEXT, tail=True).rstrip() or None) if len(found) == 1 else None


def main():
    import json

    import pyatspi

    if sys.argv[1:] == ["--terminal"]:
        sys.stdout.write(json.dumps({"output": terminal_output(pyatspi)}))
        return
    for prefix, uri in NS.items():
        ET.register_namespace(prefix, uri)
    root = ET.Element("desktop-frame", {"name": "main"})
    budget = [MAX_NODES]
    for app in _children(pyatspi.Registry.getDesktop(0)):
        _add(root, app, budget, pyatspi)
    sys.stdout.write(ET.tostring(root, encoding="unicode"))


if __name__ == "__main__":
    main()
