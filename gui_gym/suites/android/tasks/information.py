"""Question-answering tasks (AndroidWorld's ``information_retrieval``): set up an app's data,
ask about it, score the agent's answer.

A task is a `Spec`: a question template, the values each parameter is drawn from, the items
(calendar events, to-dos, activities, notes) whose fields are templates over the parameters,
exclusion conditions that keep the random filler items from changing the answer, and how the
answer is computed from the items. As in AndroidWorld:

- a parameter's value may itself be a template over the other parameters (a note body that
  names the ingredient); an item field ``{x_without_replacement}`` takes a value of parameter
  ``x`` no other field has taken yet;
- dates in the question are reworded ("today", "this Friday", "October 20") at random among
  the phrasings that are true on 15 October 2023;
- the answer is split on commas; each part must match one expected value and the counts
  must agree: text fuzzily, numbers exactly or within a tolerance, dates as "<Month> <day>
  <year>", times as 24-hour "HH:MM";
- a filler item is dropped when it meets every exclusion condition (see `information_apps`).

The question is final when the task is made (the rewording is drawn with the parameters), so
the env shows it at reset; the items are drawn at set-up from the episode's seed.
"""

from __future__ import annotations

import datetime
import random
import re
import string
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gui_gym.suites.android.device import DEVICE_TIME, Device
from gui_gym.suites.android.matching import fuzzy_match
from gui_gym.suites.android.tasks.base import AndroidWorldTask
from gui_gym.suites.android.tasks.information_fields import DATE_FORMAT, Condition, parse_date, parse_time

REWORDED = "reworded"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Expect:
    """How the expected answer is read: from `field` of every item (``op`` "identity", "sum"
    or "count"), or from the template `value`."""

    match: str
    """"string", "number", "date" or "time"."""
    field: str = ""
    op: str = "identity"
    value: str | None = None
    tolerance: float | None = None


@dataclass(frozen=True)
class Spec:
    name: str
    prompt: str
    app: str
    """"calendar", "tasks", "sports" or "notes"."""
    items: tuple[dict[str, str], ...]
    conditions: tuple[Condition, ...]
    expect: tuple[Expect, ...]
    params: dict[str, tuple[str, ...]] = field(default_factory=dict)
    complexity: float = 1.0


def date_phrasings(date: datetime.date, today: datetime.date = DEVICE_TIME.date()) -> list[str]:
    """The ways of saying `date` that are true on `today`."""
    options = [date.strftime("%B %d"), date.strftime(DATE_FORMAT)]
    options += [word for offset, word in ((0, "today"), (1, "tomorrow"), (-1, "yesterday"))
                if date == today + datetime.timedelta(days=offset)]
    day = date.strftime("%A")
    if date > today:
        if date - today <= datetime.timedelta(days=7):
            options += [day, f"this {day}"]
        elif date - today <= datetime.timedelta(days=14):
            options.append(f"the {day} after next")
    elif date < today and today - date <= datetime.timedelta(days=7):
        options.append(day)
    return options


def fill(template: str, values: dict[str, Any], unused: dict[str, list[str]] | None, rng: random.Random) -> str:
    """`template` with its placeholders filled; ``{x_without_replacement}`` takes (and uses
    up) one of the values of `x` not yet used."""
    def value(match: re.Match) -> str:
        name = match.group(1)
        if name.endswith("_without_replacement") and unused is not None:
            pool = unused[name[: -len("_without_replacement")]]
            picked = rng.choice(pool)
            pool.remove(picked)
            return picked
        return str(values[name])
    return _PLACEHOLDER.sub(value, template)


class InformationRetrievalTask(AndroidWorldTask):
    """One question-answering task; subclasses give the `spec`."""

    spec: ClassVar[Spec]

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        params = {name: rng.choice(values) for name, values in cls.spec.params.items()}
        for name, value in list(params.items()):  # values that are templates over the others
            params[name] = string.Formatter().vformat(value, (), params)
        reworded = {}
        for name, value in params.items():
            try:
                reworded[name] = rng.choice(date_phrasings(parse_date(value)))
            except ValueError:
                continue
        params[REWORDED] = reworded
        return params

    @property
    def goal(self) -> str:
        return self.spec.prompt.format(**{**self.params, **self.params.get(REWORDED, {})})

    def initialize_task(self, device: Device) -> None:
        from gui_gym.suites.android.tasks.information_apps import SETUPS

        super().initialize_task(device)
        values = {k: v for k, v in self.params.items() if k != REWORDED}
        unused = {name: [string.Formatter().vformat(v, (), values) for v in options]
                  for name, options in self.spec.params.items()}
        for name, used in values.items():
            if name in unused and used in unused[name]:
                unused[name].remove(used)
        self.items = [{k: fill(v, values, unused, self.rng) for k, v in item.items()} for item in self.spec.items]
        self.conditions = [Condition(c.field, c.op, fill(c.value, values, unused, self.rng)) for c in self.spec.conditions]
        SETUPS[self.spec.app].setup(device, self.items, self.conditions, self.rng)

    def tear_down(self, device: Device) -> None:
        from gui_gym.suites.android.tasks.information_apps import SETUPS

        SETUPS[self.spec.app].clear(device)
        super().tear_down(device)

    def expected(self) -> list[Any]:
        """The expected answers, from the items as set up."""
        values = {k: v for k, v in self.params.items() if k != REWORDED}
        answers: list[Any] = []
        for expect in self.spec.expect:
            if expect.value is not None:
                return cast([expect.match], [expect.value.format(**values)])
            found = [item[expect.field] for item in self.items if expect.field in item]
            if expect.op == "sum":
                return [sum(float(v) for v in found)]
            if expect.op == "count":
                return [len(found)]
            if expect.match == "time":
                parsed: list[Any] = [parse_time(v) for v in found]
            else:
                parsed = cast([expect.match], found)
            answers = parsed if not answers else [_combine(a, b) for a, b in zip(answers, parsed)]
        return answers

    def is_successful(self, device: Device) -> float:
        answer = device.interaction_cache
        if not answer:
            return 0.0
        return float(answer_matches(answer, self.spec.expect, self.expected()))


def cast(matches: list[str], answers: list[str]) -> list[Any]:
    """Answers read as the expectation's type; ValueError when one cannot be."""
    if matches == ["string"]:
        return [str(a) for a in answers]
    if matches == ["number"]:
        return [float(a) for a in answers]
    if matches == ["date"]:
        return [parse_date(a) for a in answers]
    if matches == ["time"]:
        return [datetime.datetime.strptime(a, "%H:%M").time() for a in answers]
    if matches == ["date", "time"]:
        return [datetime.datetime.strptime(a, DATE_FORMAT + " %H:%M") for a in answers]
    raise ValueError(f"unsupported answer types {matches}")


def _combine(a: Any, b: Any) -> datetime.datetime:
    if isinstance(a, datetime.date) and isinstance(b, datetime.time):
        return datetime.datetime(a.year, a.month, a.day, b.hour, b.minute)
    if isinstance(b, datetime.date) and isinstance(a, datetime.time):
        return datetime.datetime(b.year, b.month, b.day, a.hour, a.minute)
    raise ValueError(f"cannot combine {a!r} and {b!r} into a date and time")


def answer_matches(answer: str, expects: tuple[Expect, ...], expected: list[Any]) -> bool:
    """AndroidWorld's answer check: comma-separated parts, each matching an expected value,
    as many parts as expected values; an answer of the wrong type fails."""
    matches = [e.match for e in expects]
    try:
        parts = cast(matches, [part.strip() for part in answer.split(",")])
    except ValueError:
        return False
    if "string" in matches:
        same = fuzzy_match
    elif "number" in matches and expects[0].tolerance is not None:
        tolerance = expects[0].tolerance
        same = lambda x, y: abs(x - y) < tolerance  # noqa: E731
    else:
        same = lambda x, y: x == y  # noqa: E731
    return len(parts) == len(expected) and all(any(same(x, y) for y in expected) for x in parts)
