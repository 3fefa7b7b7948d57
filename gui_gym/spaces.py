"""Gymnasium spaces for GUI envs: free text, and the action space of canonical actions.

Gymnasium's `Text` space only admits a fixed charset (alphanumerics by default), while
instructions, urls and accessibility trees are arbitrary Unicode, so `FreeText` is a space of its
own whose `contains` only bounds the length. It is not a `Text`: Gymnasium's shared-memory code
for `Text` encodes each character by its index in the charset (a character outside it is a
`KeyError`) and reads the buffer once, when the vector env is made. `FreeText` brings its own
shared-memory functions instead (registered with Gymnasium's, below), so
``gym.make_vec(id, n, vectorization_mode="async")`` carries every text as it was, with its
defaults. `ActionSpace` accepts an `Action` or a string in the env's action format, and `sample`
draws valid random actions over the screen.
"""

from __future__ import annotations

import multiprocessing
import string
from collections.abc import Sequence as SequenceABC
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

from gui_gym.action_formats import get_format, parse_action
from gui_gym.actions import DIRECTIONS, Action
from gui_gym.errors import ActionParseError

_SAMPLE_KEYS = ("enter", "tab", "esc", "backspace", "up", "down", "left", "right", "pagedown", "pageup")
_SAMPLE_HOTKEYS = (("ctrl", "a"), ("ctrl", "c"), ("ctrl", "v"), ("shift", "tab"))
DEFAULT_SAMPLE_KINDS = ("click", "double_click", "right_click", "move", "drag", "scroll", "type",
                        "key", "hotkey", "wait")
"""What `ActionSpace.sample` draws by default: input actions only. Terminal kinds (done, fail,
answer) and navigation off the task (goto) would end or derail an episode at random."""


class FreeText(spaces.Space[str]):
    """Any string of at most `max_length` characters (Unicode included).

    >>> space = FreeText(max_length=8, seed=0)
    >>> space.contains("“naïve”"), space.contains("x" * 9), space.contains(b"bytes")
    (True, False, False)
    >>> space.contains(space.sample())
    True
    """

    SAMPLE_CHARACTERS = string.ascii_letters + string.digits + " .,:/-_éü“”→中"
    """What `sample` draws from: ASCII and a few characters a charset-bound space refuses."""

    def __init__(self, max_length: int = 1_000_000, seed: int | None = None):
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1:
            raise ValueError(f"max_length must be an int >= 1, received {max_length!r}")
        super().__init__(shape=None, dtype=None, seed=seed)
        self.max_length = max_length

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random string of up to 32 characters (or `max_length`, if less)."""
        if mask is not None or probability is not None:
            raise NotImplementedError("FreeText.sample does not take a mask or probability")
        length = int(self.np_random.integers(min(32, self.max_length) + 1))
        picks = self.np_random.integers(len(self.SAMPLE_CHARACTERS), size=length)
        return "".join(self.SAMPLE_CHARACTERS[i] for i in picks)

    def __repr__(self) -> str:
        return f"FreeText(max_length={self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, FreeText) and other.max_length == self.max_length


# ---- FreeText in an AsyncVectorEnv's shared memory ------------------------------------------
# Each sub-env has a slot of 4 bytes per character (UTF-8's longest) and a length: the worker
# writes a text's UTF-8 bytes into its slot, the parent decodes them when it reads. Gymnasium
# reads a space's shared memory once, when the vector env is made, and keeps what it got; for
# arrays that is a view, so `read` returns `SharedTexts`, a view too.

_BYTES_PER_CHARACTER = 4
_ENCODING = ("utf-8", "surrogatepass")  # a lone surrogate (seen in a11y text) goes through as it came


class SharedTexts(SequenceABC):
    """The current texts of a vector env's sub-envs, read from shared memory at each access.
    What ``AsyncVectorEnv(copy=False)`` returns for a `FreeText` key; a deep copy (what it
    returns by default) is a tuple of str, as `SyncVectorEnv` gives."""

    def __init__(self, lengths: Any, data: Any, n: int, capacity: int):
        self._lengths = np.frombuffer(lengths.get_obj(), dtype=np.int64)
        self._data = np.frombuffer(data.get_obj(), dtype=np.uint8).reshape(n, capacity)

    def __len__(self) -> int:
        return len(self._lengths)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        row = range(len(self))[index]  # IndexError past the end, negative indices from it
        return self._data[row, :self._lengths[row]].tobytes().decode(*_ENCODING)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SequenceABC) and tuple(self) == tuple(other)

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"


@create_shared_memory.register(FreeText)
def _create_free_text_memory(space: FreeText, n: int = 1, ctx: Any = multiprocessing) -> tuple[Any, Any]:
    return ctx.Array("q", n), ctx.Array("B", n * space.max_length * _BYTES_PER_CHARACTER)


@read_from_shared_memory.register(FreeText)
def _read_free_text_memory(space: FreeText, shared_memory: tuple[Any, Any], n: int = 1) -> SharedTexts:
    lengths, data = shared_memory
    return SharedTexts(lengths, data, n, space.max_length * _BYTES_PER_CHARACTER)


@write_to_shared_memory.register(FreeText)
def _write_free_text_memory(space: FreeText, index: int, value: str, shared_memory: tuple[Any, Any]) -> None:
    if not space.contains(value):
        got = f"{len(value)} characters" if isinstance(value, str) else type(value).__name__
        raise ValueError(f"a {space!r} observation must be a str of at most {space.max_length} characters, "
                               f"received {got}")
    encoded = value.encode(*_ENCODING)
    lengths, data = shared_memory
    capacity = space.max_length * _BYTES_PER_CHARACTER
    slot = np.frombuffer(data.get_obj(), dtype=np.uint8)[index * capacity:(index + 1) * capacity]
    slot[:len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
    np.frombuffer(lengths.get_obj(), dtype=np.int64)[index] = len(encoded)


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
