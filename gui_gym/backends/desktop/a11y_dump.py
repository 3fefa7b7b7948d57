"""Dump the AT-SPI accessibility tree of the desktop as XML (OSWorld's Ubuntu layout).

Run by our desktop server with the system Python (``/usr/bin/python3``), where Debian's
``python3-pyatspi`` lives, as a separate process: pyatspi needs GObject introspection, which
the project's virtual environment does not carry. The output mirrors OSWorld's: one element
per accessible, named by its role (spaces as dashes), with ``name``, states as ``st:*``,
object attributes as ``attr:*``, ``cp:screencoord`` / ``cp:size``, and the text content.
Standard library and pyatspi only.
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
INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _tag(role_name):
    """An XML name for a role or state name: spaces and other symbols become dashes."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", role_name or "unknown")
    return name if name[:1].isalpha() else "x-" + name


def _add(parent, node, budget, pyatspi):
    if budget[0] <= 0:
        return
    budget[0] -= 1
    try:
        element = ET.SubElement(parent, _tag(node.getRoleName()), {"name": node.name or ""})
    except Exception:  # an accessible that vanished while we walk
        return
    try:
        for state in node.getState().getStates():
            element.set("{%s}%s" % (NS["st"], _tag(pyatspi.stateToString(state))), "true")
    except Exception:
        pass
    try:
        for item in node.getAttributes() or []:
            key, _, value = item.partition(":")
            if key:
                element.set("{%s}%s" % (NS["attr"], _tag(key)), value)
    except Exception:
        pass
    try:
        component = node.queryComponent()
        x, y = component.getPosition(pyatspi.XY_SCREEN)
        w, h = component.getSize()
        element.set("{%s}screencoord" % NS["cp"], "(%d, %d)" % (x, y))
        element.set("{%s}size" % NS["cp"], "(%d, %d)" % (w, h))
    except Exception:
        pass
    try:
        text = node.queryText()
        content = text.getText(0, min(text.characterCount, MAX_TEXT))
        if content:
            element.text = INVALID_XML.sub("", content)
    except Exception:
        pass
    try:
        value = node.queryValue()
        element.set("{%s}value" % NS["val"], str(value.currentValue))
    except Exception:
        pass
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
            _add(element, child, budget, pyatspi)


def main():
    import pyatspi

    for prefix, uri in NS.items():
        ET.register_namespace(prefix, uri)
    root = ET.Element("desktop-frame", {"name": "main"})
    budget = [MAX_NODES]
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is not None:
            _add(root, app, budget, pyatspi)
    sys.stdout.write(ET.tostring(root, encoding="unicode"))


if __name__ == "__main__":
    main()
