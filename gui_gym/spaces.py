"""Gymnasium spaces for GUI envs: free text, and the action space of canonical actions.

Gymnasium's `Text` space only admits a fixed charset (alphanumerics by default), while
instructions and accessibility trees are arbitrary Unicode; `FreeText` is a `Text` whose
`contains` only bounds the length. `ActionSpace` accepts an `Action` or a string in the env's
action format, and `sample` draws valid random actions over the screen.
"""

from __future__ import annotations

import string
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

from gui_gym.action_formats import get_format, parse_action
from gui_gym.actions import DIRECTIONS, Action
from gui_gym.errors import ActionParseError

_SAMPLE_KEYS = ("enter", "tab", "esc", "backspace", "up", "down", "left", "right", "pagedown", "pageup")
_SAMPLE_HOTKEYS = (("ctrl", "a"), ("ctrl", "c"), ("ctrl", "v"), ("shift", "tab"))
DEFAULT_SAMPLE_KINDS = ("click", "double_click", "right_click", "move", "drag", "scroll", "type",
                        "key", "hotkey", "wait")
"""What `ActionSpace.sample` draws by default: input actions only. Terminal kinds (done, fail,
answer) and navigation off the task (goto) would end or derail an episode at random."""


class FreeText(spaces.Text):
    """Any string of at most `max_length` characters (Unicode included)."""

    def __init__(self, max_length: int = 1_000_000, seed: int | None = None):
        super().__init__(max_length=max_length, min_length=0, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"FreeText(max_length={self.max_length})"


class ActionSpace(spaces.Space):
    """Canonical actions, or strings in `action_format`, on a `screen_size` screen.

    >>> space = ActionSpace(screen_size=(100, 50), action_format="json", seed=0)
    >>> space.contains(space.sample())
    True
    >>> space.contains('{"kind": "click", "x": 5, "y": 5}')
    True
    """

    def __init__(self, screen_size: tuple[int, int], action_format: str = "json",
                 kinds: Sequence[str] = DEFAULT_SAMPLE_KINDS, format_context: dict[str, Any] | None = None,
                 seed: int | None = None):
        width, height = screen_size
        if width <= 0 or height <= 0:
            raise ValueError(f"screen_size must be positive (width, height), received {screen_size}")
        super().__init__(shape=None, dtype=None, seed=seed)
        self.screen_size = (int(width), int(height))
        self.action_format = action_format
        self.kinds = tuple(kinds)
        self.format_context = dict(format_context or {})

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def parse(self, x: Any) -> Action:
        """The `Action` that `x` denotes, or `ActionParseError`."""
        return parse_action(x, self.action_format, **self.format_context)

    def contains(self, x: Any) -> bool:
        """Whether `x` is a valid output: every action it holds parses and lies on the screen
        (one output may hold several, e.g. AndroidWorld's input_text with clear_text)."""
        try:
            actions = self._parse_all(x)
        except ActionParseError:
            return False
        width, height = self.screen_size
        for action in actions:
            for px, py in ((action.x, action.y), (action.to_x, action.to_y)):
                if px is not None and not (0 <= px < width and 0 <= py < height):
                    return False
        return bool(actions)

    def _parse_all(self, x: Any) -> list[Action]:
        if isinstance(x, Action):
            return [x]
        return list(get_format(self.action_format).parse_many(x, **self.format_context))

    def sample(self, mask: Any = None, probability: Any = None) -> Action:
        if mask is not None or probability is not None:
            raise NotImplementedError("ActionSpace.sample does not take a mask or probability")
        rng = self.np_random
        kind = self.kinds[int(rng.integers(len(self.kinds)))]
        return random_action(kind, self.screen_size, rng)

    def __repr__(self) -> str:
        return f"ActionSpace(screen_size={self.screen_size}, action_format={self.action_format!r})"

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, ActionSpace) and other.screen_size == self.screen_size
                and other.action_format == self.action_format and other.kinds == self.kinds)


def random_action(kind: str, screen_size: tuple[int, int], rng: np.random.Generator) -> Action:
    """A valid random `Action` of `kind` with integer pixel coordinates on the screen."""
    width, height = screen_size

    def point() -> tuple[int, int]:
        return int(rng.integers(width)), int(rng.integers(height))

    if kind in ("click", "double_click", "triple_click", "right_click", "move", "long_press"):
        x, y = point()
        return Action(kind, x=x, y=y)
    if kind in ("drag", "swipe"):
        (x, y), (to_x, to_y) = point(), point()
        return Action(kind, x=x, y=y, to_x=to_x, to_y=to_y)
    if kind == "scroll":
        x, y = point()
        return Action.scroll(DIRECTIONS[int(rng.integers(4))], int(rng.integers(1, 10)), x, y)
    if kind == "type":
        letters = string.ascii_letters + string.digits + " "
        return Action.type("".join(letters[i] for i in rng.integers(len(letters), size=int(rng.integers(1, 12)))))
    if kind == "key":
        return Action.key(_SAMPLE_KEYS[int(rng.integers(len(_SAMPLE_KEYS)))])
    if kind == "hotkey":
        return Action.hotkey(*_SAMPLE_HOTKEYS[int(rng.integers(len(_SAMPLE_HOTKEYS)))])
    if kind == "wait":
        return Action.wait(round(float(rng.uniform(0.0, 0.2)), 3))
    if kind in ("navigate_back", "navigate_home"):
        return Action(kind)
    raise ValueError(f"cannot sample a random {kind!r} action")
