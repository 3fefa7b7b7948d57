"""The fields of an information-retrieval task's items as both its sides read them: the
exclusion conditions a filler item is tested against (`Condition`, `compare`) and the date
and time forms of the items and answers. The task (`information`) and the apps' data set-ups
(`information_apps`) share them, so neither imports the other's module for them.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

DATE_FORMAT = "%B %d %Y"


@dataclass(frozen=True)
class Condition:
    """An exclusion condition: a filler item meeting all of a task's conditions is dropped."""

    field: str
    op: str
    """"eq", "contains", "gt", "lt", "ge" or "le"."""
    value: str


def compare(value: Any, op: str, other: Any) -> bool:
    if op == "eq":
        return value == other
    if op == "contains":
        return other in str(value)
    return {"gt": value > other, "lt": value < other, "ge": value >= other, "le": value <= other}[op]


def parse_date(text: str) -> datetime.date:
    return datetime.datetime.strptime(text, DATE_FORMAT).date()


def parse_time(text: str) -> datetime.time:
    """"14:30", "2:30pm" or "2pm"."""
    for fmt in ("%H:%M", "%I:%M%p", "%I%p"):
        try:
            parsed = datetime.datetime.strptime(text, fmt)
        except ValueError:
            continue
        return datetime.time(parsed.hour, parsed.minute)
    raise ValueError(f"time {text!r} is not HH:MM, H:MMam/pm or Ham/pm")
