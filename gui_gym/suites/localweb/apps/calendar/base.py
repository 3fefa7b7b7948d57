"""What every calendar template shares: the original world (rebuilt from the seed, so an
evaluator sees exactly what changed), target choice among events the month view shows, and
the oracle's recurring moves (open an event, pick a date, a time); a room is picked with
`OracleUI.type_ahead`, attendees with `OracleUI.pick_suggestion`."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.calendar import data, store
from gui_gym.suites.localweb.apps.calendar.views import CHIPS_PER_DAY
from gui_gym.suites.localweb.framework import log_has
from gui_gym.suites.localweb.templates import TaskTemplate, World

if TYPE_CHECKING:
    from gui_gym.suites.localweb.oracle_ui import OracleUI

MONTH_END = "2026-03-31"
"""Targets of the short templates lie in the start page's month, from today on."""


def fingerprint(event: dict[str, Any]) -> tuple:
    return (event["title"], event["date"], event["start"], event["end"], event["room"],
            tuple(sorted(event["attendees"])), event["rsvp"], event["series"], event["people"])


class CalendarTemplate(TaskTemplate):
    app = "calendar"

    initial_state = staticmethod(data.initial_state)

    def changes(self, world: World) -> tuple[set[int], list[dict[str, Any]]]:
        """(ids of original events changed or deleted, events created in the episode)."""
        before = {e["id"]: fingerprint(e) for e in self.original()["events"]}
        now = {e["id"]: e for e in world["calendar"]["events"]}
        changed = {i for i, mark in before.items() if i not in now or fingerprint(now[i]) != mark}
        return changed, [e for i, e in now.items() if i not in before]


def event(world: World, event_id: int) -> dict[str, Any] | None:
    return store.find(world["calendar"], event_id)


def visited(world: World, path: str, method: str = "GET", **query: Any) -> bool:
    return log_has(world["calendar"]["log"], path, method, **query)


def day_text(iso: str) -> str:
    moment = date.fromisoformat(iso)
    return f"{moment:%A}, {moment:%B} {moment.day}"


def shown_in_month(state: dict[str, Any], *, mine: bool | None = None, one_off: bool = True) -> list[dict[str, Any]]:
    """Events from today to the end of the month whose chip the month view shows (the first
    of their day), optionally only those the user organizes (or not)."""
    shown = []
    for e in state["events"]:
        if not data.TODAY <= e["date"] <= MONTH_END or (one_off and e["series"] is not None):
            continue
        if mine is not None and (e["organizer"] == state["me"]["email"]) != mine:
            continue
        if e in store.day_events(state, e["date"])[:CHIPS_PER_DAY]:
            shown.append(e)
    return sorted(shown, key=lambda e: e["id"])


# ---- oracle moves ------------------------------------------------------------------------------

def open_event(ui: "OracleUI", ev: dict[str, Any]) -> Iterator[Action]:
    """From a month page: to the event's month if its day is not on the grid, then its chip
    (or the day's "+N more" and the week view)."""
    cell = f"td[data-date='{ev['date']}']"
    while not ui.exists(f"table.month {cell}"):
        yield from ui.click("#next-month")
    chip = f"{cell} .ev[data-id='{ev['id']}']"
    if ui.exists(chip):
        yield from ui.click(chip)
    else:
        yield from ui.click(f"{cell} .more")
        yield from ui.click(f".week-ev[data-id='{ev['id']}']")


def pick_date(ui: "OracleUI", selector: str, iso: str) -> Iterator[Action]:
    """Open the date picker and click the day, paging months as needed."""
    current = ui.value(selector)
    if current == iso:
        return
    yield from ui.click(selector)
    shown = date.fromisoformat(current) if store.parse_day(current) else date.fromisoformat(data.TODAY)
    target = date.fromisoformat(iso)
    for _ in range((target.year - shown.year) * 12 + target.month - shown.month):
        yield from ui.click(".datepicker-popup .dp-next")
    for _ in range((shown.year - target.year) * 12 + shown.month - target.month):
        yield from ui.click(".datepicker-popup .dp-prev")
    yield from ui.click(f".datepicker-popup button[data-date='{iso}']")


def pick_time(ui: "OracleUI", field: str, hhmm: str) -> Iterator[Action]:
    if ui.value(f"#{field}") == hhmm:
        return
    yield from ui.click(f"#{field}")
    yield from ui.click(f"#{field}-options [data-value='{hhmm}']")

