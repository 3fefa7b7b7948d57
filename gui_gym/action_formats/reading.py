"""Reading agent text, shared by the formats: code fences and JSON, in linear time with a
typed error for every way they fail.

A regular expression with a lazy body and optional whitespace before the closing fence
backtracks over every later fence (46 s for a 1 MB fenced output); `strip_fence` cuts at the
last fence instead. `json.loads` raises four kinds of errors besides a syntax error (nesting
too deep, an integer past Python's 4,300-digit limit, ...); `load_json` turns each into an
`ActionParseError` that says what was expected.
"""

from __future__ import annotations

import json
from typing import Any

from gui_gym.errors import ActionParseError


def strip_fence(text: str, languages: tuple[str, ...]) -> str:
    """The body of a fenced block (```json ... ```) that is the whole of `text`, else `text`.

    The opening fence may name one of `languages`; the body ends at the last fence, without
    the spaces and the newline before it.
    """
    stripped = text.strip()
    if len(stripped) < 6 or not (stripped.startswith("```") and stripped.endswith("```")):
        return text
    head, newline, rest = stripped[3:].partition("\n")
    if not newline or head.rstrip(" \t") not in ("", *languages) or len(rest) < 3:
        return text
    body = rest[:-3].rstrip(" \t")
    return body[:-1] if body.endswith("\n") else body


def load_json(text: str, expected: str) -> Any:
    """`json.loads(text)`, or an `ActionParseError` saying that `expected` was expected."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ActionParseError(f"expected {expected}, received invalid JSON ({exc.msg} at {exc.pos})") from None
    except RecursionError:
        raise ActionParseError(f"expected {expected}, received JSON nested too deep to read") from None
    except ValueError:  # an integer literal past Python's int/str conversion limit
        raise ActionParseError(f"expected {expected}, received JSON holding a number of more than 4300 digits") from None
