"""How oracles act: selectors in, canonical actions out, through the env's action interface.

`OracleUI` reads the live page (boxes, text, scroll containers) but changes it only by
yielding actions for the env to execute, so an oracle solution is a real trajectory any agent
could have produced: an element below the fold is reached by wheel scrolls over its scroll
container, a field is filled by clicking and typing, a native ``<select>`` by the keyboard.
Generators are lazy, so each action is computed after the previous one has settled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generator, Iterator

from gui_gym.actions import Action
from gui_gym.backends.browser.backend import SCROLL_NOTCH_PX
from gui_gym.backends.browser.page_scripts import BOX_JS
from gui_gym.errors import ActionExecutionError

if TYPE_CHECKING:
    from gui_gym.backends.browser.backend import BrowserBackend

MAX_SCROLLS = 25
_MARGIN_PX = 8
Box = tuple[float, float, float, float]

_VIEW_JS = r"""
(el) => {
  // The element's box (page_scripts.BOX_JS: null when it is not rendered), the visible box of
  // its nearest scroll container, and a point inside that box where the wheel scrolls that
  // container (not a nested scroller): {box: [x, y, w, h], host: [x, y, w, h, anchorX, anchorY]}.
  const element = (BOX_OF)(el);
  if (!element) return {box: null, host: null};
  const scrolls = p => {
    const cs = getComputedStyle(p);
    return (/(auto|scroll)/.test(cs.overflowY) && p.scrollHeight > p.clientHeight + 1) ||
           (/(auto|scroll)/.test(cs.overflowX) && p.scrollWidth > p.clientWidth + 1);
  };
  const hostOf = e => {
    for (let p = e.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement)
      if (scrolls(p)) return p;
    return null;
  };
  const host = hostOf(el);
  let box = [0, 0, innerWidth, innerHeight];
  if (host) {
    const h = host.getBoundingClientRect();
    const left = Math.max(h.left, 0), top = Math.max(h.top, 0);
    box = [left, top, Math.min(h.right, innerWidth) - left, Math.min(h.bottom, innerHeight) - top];
  }
  const result = anchor => ({box: element, host: [...box, ...anchor]});
  const [bx, by, bw, bh] = box;
  for (const fy of [0.5, 0.3, 0.7, 0.15, 0.85, 0.05, 0.95]) {
    for (const fx of [0.5, 0.25, 0.75, 0.05, 0.95]) {
      const x = bx + bw * fx, y = by + bh * fy;
      const hit = document.elementFromPoint(x, y);
      if (hit && (hit === host || hostOf(hit) === host || (host === null && !scrolls(hit) && hostOf(hit) === null)))
        return result([x, y]);
    }
  }
  return result([bx + bw / 2, by + bh / 2]);
}
""".replace("BOX_OF", BOX_JS)


class OracleUI:
    """Selector-level helpers that yield the actions a careful user would take."""

    def __init__(self, backend: "BrowserBackend"):
        self.backend = backend

    # ---- reading the page (no side effects) ----------------------------------------------

    def count(self, selector: str) -> int:
        return int(self.backend.evaluate("(s) => document.querySelectorAll(s).length", selector))

    def text(self, selector: str, nth: int = 0) -> str:
        return str(self.backend.evaluate(
            "([s, n]) => { const e = document.querySelectorAll(s)[n]; return e ? e.innerText.trim() : '' }",
            [selector, nth]))

    def texts(self, selector: str) -> list[str]:
        return list(self.backend.evaluate(
            "(s) => Array.from(document.querySelectorAll(s)).map(e => e.innerText.trim())", selector))

    def value(self, selector: str) -> str:
        return str(self.backend.evaluate("(s) => { const e = document.querySelector(s); return e ? e.value : '' }", selector))

    def exists(self, selector: str) -> bool:
        return self.count(selector) > 0

    # ---- acting (each helper is a generator of actions) ------------------------------------

    def scroll_into_view(self, selector: str, nth: int = 0) -> Generator[Action, None, Box]:
        """Wheel-scroll over the element's scroll container until the element is in view;
        returns its box there. Each look at the page is one round trip (`_VIEW_JS`)."""
        width, height = self.backend.screen_size
        previous = None
        for _ in range(MAX_SCROLLS):
            (x, y, w, h), (hx, hy, hw, hh, ax, ay) = self._view(selector, nth)
            if (x, y) == previous:  # the last scroll moved nothing: the container is at its end
                if y < height and y + h > 0 and x < width and x + w > 0:
                    return x, y, w, h
                break
            previous = (x, y)
            top, bottom = max(hy, 0) + _MARGIN_PX, min(hy + hh, height) - _MARGIN_PX
            left, right = max(hx, 0) + _MARGIN_PX, min(hx + hw, width) - _MARGIN_PX
            # Too tall or wide to fit: bring its start into view and stop there.
            dy = y - top if y < top else min(y + h - bottom, y - top) if y + h > bottom else 0
            dx = x - left if x < left else min(x + w - right, x - left) if x + w > right else 0
            if dy == 0 and dx == 0:
                return x, y, w, h
            delta, direction = (dy, "down" if dy > 0 else "up") if dy else (dx, "right" if dx > 0 else "left")
            notches = max(1, min(10, -(-abs(delta) // SCROLL_NOTCH_PX)))
            yield Action.scroll(direction, int(notches), ax, ay)
        raise ActionExecutionError(f"oracle could not scroll {selector!r} into view")

    def _view(self, selector: str, nth: int) -> tuple[Box, tuple[float, ...]]:
        """The element's box and its scroll container's (`_VIEW_JS`)."""
        seen = self.backend.evaluate_on(selector, _VIEW_JS, nth)
        if seen["box"] is None:
            raise ActionExecutionError(f"element {selector!r} is not rendered")
        return tuple(seen["box"]), tuple(seen["host"])

    def center(self, box: Box) -> tuple[float, float]:
        """Centre of the part of `box` inside the viewport."""
        x, y, w, h = box
        width, height = self.backend.screen_size
        x1, y1, x2, y2 = max(x, 0), max(y, 0), min(x + w, width - 1), min(y + h, height - 1)
        return (x1 + x2) / 2, (y1 + y2) / 2

    def click(self, selector: str, nth: int = 0, kind: str = "click") -> Iterator[Action]:
        box = yield from self.scroll_into_view(selector, nth)
        x, y = self.center(box)
        yield Action(kind, x=x, y=y)

    def type_into(self, selector: str, text: str, clear: bool = False, nth: int = 0) -> Iterator[Action]:
        """Click the field, optionally select its content, and type (replacing it)."""
        yield from self.click(selector, nth)
        if clear and self.value(selector):
            yield Action.hotkey("ctrl", "a")
        yield Action.type(text)

    def choose(self, selector: str, label: str) -> Iterator[Action]:
        """Pick an option of a native ``<select>`` by its visible label, with the keyboard."""
        options = list(self.backend.evaluate(
            "(s) => Array.from(document.querySelector(s).options).map(o => o.text.trim())", selector))
        if label not in options:
            raise ActionExecutionError(f"{selector!r} has no option {label!r}; it has {options}")
        current = int(self.backend.evaluate("(s) => document.querySelector(s).selectedIndex", selector))
        target = options.index(label)
        yield from self.click(selector)
        for _ in range(abs(target - max(current, 0))):
            yield Action.key("down" if target > current else "up")
        yield Action.key("enter")

    def type_ahead(self, selector: str, label: str) -> Iterator[Action]:
        """Pick an option of a native ``<select>`` by typing its label while it has focus,
        then Enter: three actions wherever the option sits in the list, so an oracle's length
        does not depend on which option a seed drew."""
        yield from self.click(selector)
        yield Action.type(label)
        yield self.press("enter")

    def pick_suggestion(self, field: str, text: str) -> Iterator[Action]:
        """Type `text` into the shared autocomplete widget ``#<field>-input`` (``widgets.js``)
        and pick the first suggestion shown.

        Meant for text that matches exactly one suggestion (a full name): the widget hides its
        list on every keystroke and shows only the answer to what the field holds, so the
        click waits for the last keystroke's suggestions."""
        yield from self.type_into(f"#{field}-input", text)
        yield from self.click(f"#{field}-field [role=listbox]:not([hidden]) [role=option]")

    @staticmethod
    def press(key: str) -> Action:
        return Action.key(key)

    @staticmethod
    def answer(text: str) -> Action:
        return Action.answer(text)
